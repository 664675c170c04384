/* gpu_brief.cu - the brief's snippets, GPU memory variant (issue 7): the
 * tutorial wrote device memory from host loops, which only works for host
 * memory; here every initialization is a kernel, with the NVSHMEM-style API.
 *   §4.1/§4.6  same address on every PE; nvshmem_ptr(p, my_pe) == p
 *   §4.6       write a known pattern, read it back from every PE (device g)
 *   §4.3       local, root + broadcast (device get from the root),
 *              distributed (each PE fills its block and pushes it to all)
 *   §4.4.2     one block per PE for any N (N % npes != 0)
 *   §4.5       collective free */
#include "gpu_test.h"

__global__ void init_local(int *a, size_t n, int me)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] = me * 1000 + (int)(i % 1000);
}

__global__ void read_all(const int *a, size_t n, int npes, int *bad)
{
    for (int pe = 0; pe < npes; pe++)
        for (size_t i = threadIdx.x; i < n; i += blockDim.x)
            if (nvshmem_int_g(a + i, pe) != pe * 1000 + (int)(i % 1000)) atomicAdd(bad, 1);
}

__global__ void bcast_from_root(int *a, size_t n, int root)
{
    nvshmemx_int_get_block(a, a, n, root); /* every PE pulls the root's copy */
}

/* Distributed: PE me owns [lo, hi) of a global array of n; it computes its
 * block and pushes it into every PE's full copy. */
__global__ void fill_and_push(int *full, size_t lo, size_t hi, int npes)
{
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) full[i] = (int)(i * 3 + 1);
    for (int pe = 0; pe < npes; pe++) nvshmemx_int_put_block(full + lo, full + lo, hi - lo, pe);
}

__global__ void check_full(const int *full, size_t n, int *bad)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (full[i] != (int)(i * 3 + 1)) atomicAdd(bad, 1);
}

static int take_bad(int *bad)
{
    int h;
    CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemset(bad, 0, sizeof h));
    return h;
}

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    int *bad;
    CK(cudaMalloc(&bad, sizeof *bad));
    CK(cudaMemset(bad, 0, sizeof *bad));

    /* §4.1 / §4.6: one address everywhere, nvshmem_ptr(p, me) == p */
    size_t n = 1 << 20;
    int *a = (int *)nvshmem_malloc(n * sizeof(int));
    printf("PE %d: nvshmem_malloc -> %p\n", me, (void *)a);
    EXPECT(gpu_test_same_everywhere((uintptr_t)a), "addresses differ");
    EXPECT(nvshmem_ptr(a, me) == a, "nvshmem_ptr(p, my_pe) != p");

    /* §4.6 write then read back from every PE, §4.3 strategy 1 (local) */
    init_local<<<128, 256>>>(a, n, me);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    read_all<<<1, 1024>>>(a, n, npes, bad);
    EXPECT(take_bad(bad) == 0, "write/read-back through every PE failed");
    nvshmem_barrier_all();

    /* §4.3 strategy 2: root initializes, everybody copies it */
    int root = npes - 1;
    if (me == root) init_local<<<128, 256>>>(a, n, 4242);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (me != root) bcast_from_root<<<1, 1024>>>(a, n, root);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    {
        int h0, hl;
        CK(cudaMemcpy(&h0, a, sizeof h0, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&hl, a + n - 1, sizeof hl, cudaMemcpyDeviceToHost));
        EXPECT(h0 == 4242 * 1000 && hl == 4242 * 1000 + (int)((n - 1) % 1000),
               "root initialization not seen: %d %d", h0, hl);
    }

    /* §4.3 strategy 3 and §4.4.2: blocks for any N, the remainder spread */
    size_t N = 1000003, base = N / npes, rem = N % npes;
    size_t lo = me * base + (me < (int)rem ? me : rem), hi = lo + base + (me < (int)rem);
    int *full = (int *)nvshmem_calloc(N, sizeof(int));
    fill_and_push<<<1, 1024>>>(full, lo, hi, npes);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    check_full<<<128, 256>>>(full, N, bad);
    EXPECT(take_bad(bad) == 0, "distributed initialization of %zu ints over %d PEs", N, npes);

    /* §4.5: every PE frees the same blocks */
    nvshmem_barrier_all();
    nvshmem_free(full);
    nvshmem_free(a);
    if (me == 0) printf("gpu_brief: %d PEs ok\n", npes);
    nvshmem_finalize();
    return 0;
}
