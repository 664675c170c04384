/* gpu_alloc.cu - the GPU heap's allocation rules with 1..N PEs (issue 7):
 * same address on every PE for every call, calloc zeroes reused memory,
 * realloc keeps contents (and the address agreement), growth past the first
 * chunk works through the peers' mappings, all-or-nothing NULL when the heap
 * is full (arg "oom", run with a small SHMEM_GPU_HEAP_SIZE), and
 * SHMEM_MALLOC_GPU=1 turning shmem_malloc into GPU memory (arg "default"). */
#include "gpu_test.h"

#include <string.h>

__global__ void k_fill(char *p, size_t n, char v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = v;
}

__global__ void k_sum(const unsigned char *p, size_t n, unsigned long long *sum)
{
    unsigned long long s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        s += p[i];
    atomicAdd(sum, s);
}

/* Read the last byte of every peer's copy through the device API. */
__global__ void k_peer_tail(const char *p, size_t n, int npes, int *bad)
{
    for (int pe = 0; pe < npes; pe++)
        if (nvshmem_char_g(p + n - 1, pe) != (char)(pe + 1)) atomicAdd(bad, 1);
}

static unsigned long long sum(const void *p, size_t n)
{
    unsigned long long *d, h;
    CK(cudaMalloc(&d, sizeof *d));
    CK(cudaMemset(d, 0, sizeof *d));
    k_sum<<<128, 256>>>((const unsigned char *)p, n, d);
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    return h;
}

static void is_device(const void *p, const char *what)
{
    cudaPointerAttributes at;
    CK(cudaPointerGetAttributes(&at, p));
    EXPECT(at.type == cudaMemoryTypeDevice, "%s gave memory of type %d, not device", what,
           (int)at.type);
}

static void oom(int me)
{
    shmemx_heap_info_t a, b;
    EXPECT(shmemx_gpu_heap_info(&a) == 0, "no GPU heap info");
    void *big = nvshmem_malloc(a.size + 1);
    EXPECT(big == NULL, "allocating more than the heap (%zu) did not fail", a.size);
    void *half = nvshmem_malloc(a.size / 2);
    EXPECT(half != NULL, "half the heap failed");
    void *again = nvshmem_malloc(a.size / 2 + 4096);
    EXPECT(again == NULL, "over-full heap did not fail");
    EXPECT(shmemx_gpu_heap_info(&b) == 0 && b.live_blocks == 1, "heap changed by a failed alloc");
    nvshmem_free(half);
    void *ok = nvshmem_malloc(1 << 20);
    EXPECT(ok && gpu_test_same_everywhere((uintptr_t)ok), "alloc after OOM");
    nvshmem_free(ok);
    if (me == 0) printf("gpu_alloc oom: ok\n");
}

int main(int argc, char **argv)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "oom")) {
        oom(me);
        nvshmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "default")) { /* SHMEM_MALLOC_GPU=1 */
        void *p = shmem_malloc(4096), *q = shmem_calloc(16, 16), *r = shmem_align(1 << 21, 100);
        is_device(p, "shmem_malloc");
        is_device(q, "shmem_calloc");
        is_device(r, "shmem_align");
        EXPECT((uintptr_t)r % (1 << 21) == 0, "shmem_align(2M) gave %p", r);
        EXPECT(sum(q, 256) == 0, "shmem_calloc not zero");
        shmem_free(r);
        shmem_free(q);
        shmem_free(p);
        if (me == 0) printf("gpu_alloc default: ok\n");
        nvshmem_finalize();
        return 0;
    }

    /* Many sizes: the same address everywhere, device memory, host heap separate. */
    void *blk[12];
    for (int i = 0; i < 12; i++) {
        blk[i] = nvshmem_malloc((size_t)1 << (i * 2));
        EXPECT(blk[i], "nvshmem_malloc(%zu) = NULL", (size_t)1 << (i * 2));
        is_device(blk[i], "nvshmem_malloc");
        EXPECT(gpu_test_same_everywhere((uintptr_t)blk[i]), "block %d differs between PEs", i);
    }
    void *host = shmem_malloc(64);
    cudaPointerAttributes at;
    CK(cudaPointerGetAttributes(&at, host));
    EXPECT(at.type != cudaMemoryTypeDevice, "shmem_malloc gave GPU memory without SHMEM_MALLOC_GPU");
    shmem_free(host);
    void *al = nvshmem_align(1 << 20, 3000);
    EXPECT((uintptr_t)al % (1 << 20) == 0, "nvshmem_align(1M) gave %p", al);
    for (int i = 11; i >= 0; i--) nvshmem_free(blk[i]);
    nvshmem_free(al);

    /* calloc on dirty, reused memory must be zero. */
    size_t sz = 8 << 20;
    char *d = (char *)nvshmem_malloc(sz);
    k_fill<<<128, 256>>>(d, sz, 0x5a);
    CK(cudaDeviceSynchronize());
    nvshmem_free(d);
    char *z = (char *)nvshmem_calloc(sz, 1);
    EXPECT(z == d, "calloc did not reuse the freed block (%p vs %p)", (void *)z, (void *)d);
    EXPECT(sum(z, sz) == 0, "nvshmem_calloc of reused memory is not zero");

    /* realloc: grow (moves past a neighbour), contents kept, same address everywhere. */
    char *fence = (char *)nvshmem_malloc(4096); /* blocks growth in place */
    k_fill<<<128, 256>>>(z, sz, 3);
    CK(cudaDeviceSynchronize());
    char *g = (char *)nvshmem_realloc(z, 3 * sz);
    EXPECT(g && gpu_test_same_everywhere((uintptr_t)g), "realloc address differs between PEs");
    EXPECT(sum(g, sz) == 3ull * sz, "realloc lost the contents");
    char *s = (char *)nvshmem_realloc(g, sz / 2);
    EXPECT(s == g, "shrinking realloc moved the block");
    nvshmem_free(fence);

    /* Growth past the first chunk (SHMEM_GPU_CHUNK, 256M by default): write
     * the tail on every PE, read every peer's tail through the device API. */
    size_t bigsz = (size_t)600 << 20;
    char *big = (char *)nvshmem_malloc(bigsz);
    EXPECT(big, "nvshmem_malloc(600M) = NULL");
    k_fill<<<1, 1>>>(big + bigsz - 1, 1, (char)(me + 1));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    int *bad;
    CK(cudaMalloc(&bad, sizeof *bad));
    CK(cudaMemset(bad, 0, sizeof *bad));
    k_peer_tail<<<1, 1>>>(big, bigsz, n, bad);
    int h;
    CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 0, "peer tails of a grown heap: %d wrong", h);
    shmemx_heap_info_t hi;
    EXPECT(shmemx_gpu_heap_info(&hi) == 0 && hi.live_blocks == 2, "heap info: %zu live blocks",
           hi.live_blocks);
    nvshmem_barrier_all();
    nvshmem_free(big);
    nvshmem_free(s);
    if (me == 0) printf("gpu_alloc: %d PEs ok\n", n);
    nvshmem_finalize();
    return 0;
}
