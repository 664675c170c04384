/* gpu_rma.cu - GPU heap basics with 1..N PEs on one GPU (issue 7):
 * same device address on every PE, nvshmem_ptr, device put/get at thread,
 * warp and block level (aligned and unaligned), p/g, strided, host API on
 * device memory (put/get/p/g/iput), stream-ordered put + barrier. */
#include "gpu_test.h"

#include <string.h>

enum { N = 1 << 16 };

__global__ void k_fill(int *buf, size_t n, int base)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        buf[i] = base + (int)i;
}

__global__ void k_count_bad(const int *buf, size_t n, int base, int *bad)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (buf[i] != base + (int)i) atomicAdd(bad, 1);
}

/* mode: 0 thread put, 1 warp put, 2 block put, 3 p, 4 thread get, 5 warp get,
 * 6 block get, 7 g, 8 putmem_block at a 3-byte offset (unaligned path) */
__global__ void k_xfer(int *dst, int *src, size_t n, int pe, int mode)
{
    size_t t = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
    size_t per = (n + gridDim.x - 1) / gridDim.x, lo = blockIdx.x * per;
    size_t cnt = lo < n ? (n - lo < per ? n - lo : per) : 0;
    switch (mode) {
    case 0: if (t == 0) nvshmem_int_put(dst, src, n, pe); break;
    case 1: if (blockIdx.x == 0 && threadIdx.x < 32) nvshmemx_int_put_warp(dst, src, n, pe); break;
    case 2: nvshmemx_int_put_block(dst + lo, src + lo, cnt, pe); break;
    case 3: for (size_t i = t; i < n; i += nt) nvshmem_int_p(dst + i, src[i], pe); break;
    case 4: if (t == 0) nvshmem_int_get(dst, src, n, pe); break;
    case 5: if (blockIdx.x == 0 && threadIdx.x < 32) nvshmemx_int_get_warp(dst, src, n, pe); break;
    case 6: nvshmemx_int_get_block(dst + lo, src + lo, cnt, pe); break;
    case 7: for (size_t i = t; i < n; i += nt) dst[i] = nvshmem_int_g(src + i, pe); break;
    case 8: nvshmemx_putmem_block((char *)dst + 3 + lo * 4, (char *)src + 3 + lo * 4,
                                  cnt * 4 - (blockIdx.x == gridDim.x - 1 ? 3 : 0), pe); break;
    }
}

__global__ void k_ptr(int *sym, int npes, int me, int *bad)
{
    if (nvshmem_ptr(sym, me) != sym) atomicAdd(bad, 1);
    for (int pe = 0; pe < npes; pe++)
        if (!nvshmem_ptr(sym, pe) || (pe != me && nvshmem_ptr(sym, pe) == sym)) atomicAdd(bad, 1);
    if (nvshmem_my_pe() != me || nvshmem_n_pes() != npes) atomicAdd(bad, 100);
}

static int count_bad(const int *buf, size_t n, int base, int *bad)
{
    CK(cudaMemset(bad, 0, sizeof *bad));
    k_count_bad<<<64, 256>>>(buf, n, base, bad);
    int h;
    CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    int *dst = (int *)nvshmem_malloc(N * sizeof(int));
    int *src = (int *)nvshmem_malloc(N * sizeof(int));
    int *bad;
    CK(cudaMalloc(&bad, sizeof *bad));
    EXPECT(dst && src, "nvshmem_malloc returned NULL");

    /* The brief's §4.1/§4.6 checks: same address everywhere, device memory. */
    cudaPointerAttributes at;
    CK(cudaPointerGetAttributes(&at, dst));
    EXPECT(at.type == cudaMemoryTypeDevice, "nvshmem_malloc gave memory of type %d", (int)at.type);
    EXPECT(gpu_test_same_everywhere((uintptr_t)dst), "dst=%p differs between PEs", (void *)dst);
    EXPECT(nvshmem_ptr(dst, me) == dst, "nvshmem_ptr(p, me) != p");
    k_ptr<<<1, 1>>>(dst, n, me, bad);
    int h;
    CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 0, "device nvshmem_ptr/my_pe/n_pes wrong (%d)", h);

    /* Device transfers, every mode: I push to / pull from my neighbours. */
    for (int mode = 0; mode <= 8; mode++) {
        int get = mode >= 4 && mode <= 7;
        int tag = (mode + 1) * 1000000;
        k_fill<<<64, 256>>>(src, N, tag + me * 100000);
        CK(cudaMemset(dst, 0, N * sizeof(int)));
        CK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        k_xfer<<<mode == 0 || mode == 4 ? 1 : 8, 256>>>(dst, src, N, get ? right : right, mode);
        CK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        /* put: my dst holds left's src; get: my dst holds right's src */
        int from = get ? right : left;
        if (mode == 8) {
            int *host = (int *)malloc(N * sizeof(int)), *want = (int *)malloc(N * sizeof(int));
            CK(cudaMemcpy(host, dst, N * sizeof(int), cudaMemcpyDeviceToHost));
            for (int i = 0; i < N; i++) want[i] = tag + from * 100000 + i;
            EXPECT(memcmp((char *)host + 3, (char *)want + 3, N * 4 - 3) == 0,
                   "unaligned putmem_block: wrong bytes");
            free(host);
            free(want);
        } else {
            int b = count_bad(dst, N, tag + from * 100000, bad);
            EXPECT(b == 0, "device transfer mode %d: %d of %d ints wrong", mode, b, N);
        }
    }

    /* Host API on device memory: put/get/p/g/iput through the copy engines. */
    int *host = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) host[i] = 7000000 + me * 10000 + i % 10000;
    nvshmem_barrier_all();
    nvshmem_int_put(dst, host, N, right);
    nvshmem_barrier_all();
    int b = 0;
    {
        int *back = (int *)malloc(N * sizeof(int));
        CK(cudaMemcpy(back, dst, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) b += back[i] != 7000000 + left * 10000 + i % 10000;
        nvshmem_int_get(back, dst, N, right); /* right's dst holds my values */
        for (int i = 0; i < N; i++) b += back[i] != 7000000 + me * 10000 + i % 10000;
        free(back);
    }
    EXPECT(b == 0, "host put/get on device memory: %d ints wrong", b);
    nvshmem_barrier_all();
    nvshmem_int_p(dst + 5, 4242 + me, right);
    nvshmem_barrier_all();
    EXPECT(nvshmem_int_g(dst + 5, me) == 4242 + left, "host p/g on device memory");
    int stride_src[4] = { 11, 22, 33, 44 };
    nvshmem_int_iput(dst + 100, stride_src, 3, 1, 4, right); /* dst[100,103,106,109] */
    nvshmem_barrier_all();
    int got[10];
    nvshmem_int_get(got, dst + 100, 10, me);
    EXPECT(got[0] == 11 && got[3] == 22 && got[6] == 33 && got[9] == 44, "host iput strides");

    /* Host broadcast between device buffers: everyone gets the root's src. */
    int root = n - 1;
    k_fill<<<64, 256>>>(src, N, 5000000 + me);
    CK(cudaDeviceSynchronize());
    nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, dst, src, N, root);
    b = count_bad(dst, N, 5000000 + root, bad);
    EXPECT(b == 0, "nvshmem_int_broadcast on device memory: %d ints wrong", b);
    /* every PE has checked its dst before the next step writes its left
     * neighbour's (without this barrier a fast PE's put below overwrote a
     * slow neighbour's broadcast result before it was checked: 4 PEs) */
    nvshmem_barrier_all();

    /* Stream-ordered: putmem_on_stream then barrier_all_on_stream. */
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    k_fill<<<64, 256, 0, st>>>(src, N, 9000000 + me);
    nvshmemx_putmem_on_stream(dst, src, N * sizeof(int), right, st);
    nvshmemx_barrier_all_on_stream(st);
    CK(cudaStreamSynchronize(st));
    b = count_bad(dst, N, 9000000 + left, bad);
    EXPECT(b == 0, "putmem_on_stream + barrier_all_on_stream: %d ints wrong", b);

    nvshmem_barrier_all();
    nvshmem_free(src);
    nvshmem_free(dst);
    free(host);
    if (me == 0) printf("gpu_rma: %d PEs ok\n", n);
    nvshmem_finalize();
    return 0;
}
