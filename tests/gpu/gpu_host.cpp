/* gpu_host.cpp - a host-only file (no kernels) built by symcc with the C++
 * compiler, as NVIDIA's hello.cpp is (issue 14): nvshmem.h brings the CUDA
 * runtime (cudaSetDevice ...) and cuda.h's types, symcc links libcudart
 * and libcuda as needed.  Written in the subset of C and C++ so that the
 * same file also compiles as C (the test does both).  Without a GPU it
 * prints SKIP and exits 77. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdio.h>
#include <stdlib.h>

#ifndef SYMHEAP_NVSHMEM_CUDA
#error "nvshmem.h did not bring the CUDA runtime although symcc added the toolkit's headers"
#endif

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "[pe %d] gpu_host: ", shmem_my_pe());                              \
        fprintf(stderr, __VA_ARGS__);                                                      \
        fprintf(stderr, "\n");                                                             \
        exit(1);                                                                           \
    } while (0)

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    nvshmem_init();
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    int mype_node = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    /* as NVIDIA's examples: one GPU per PE of the node where there are enough */
    cudaError_t e = cudaSetDevice(mype_node % ndev);
    if (e != cudaSuccess) FAIL("cudaSetDevice(%d): %s", mype_node % ndev, cudaGetErrorString(e));
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev != mype_node % ndev) FAIL("cudaGetDevice: %d", dev);

    /* cuda.h's types are there (user-buffer.cu needs them) */
    CUmemAllocationProp prop;
    CUmemAccessDesc access;
    (void)prop;
    (void)access;

    /* the runtime works next to the symmetric heap */
    int *d = NULL, h = 0;
    if (cudaMalloc((void **)&d, sizeof(int)) != cudaSuccess) FAIL("cudaMalloc");
    int v = 1000 + me;
    if (cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess || h != v)
        FAIL("cudaMemcpy round trip gave %d, want %d", h, v);
    cudaFree(d);

    int *x = (int *)nvshmem_malloc(sizeof(int));
    if (!x) FAIL("nvshmem_malloc");
    nvshmem_barrier_all();
    nvshmem_int_p(x, me, (me + 1) % np);
    nvshmem_barrier_all();
    int got = nvshmem_int_g(x, me);
    if (got != (me + np - 1) % np) FAIL("ring gave %d", got);
    nvshmem_free(x);
    if (me == 0) printf("gpu_host: %d PEs: CUDA runtime through nvshmem.h in a host file OK\n", np);
    nvshmem_finalize();
    return 0;
}
