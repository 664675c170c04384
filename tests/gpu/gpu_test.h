/* gpu_test.h - shared by the GPU tests (tests/gpu): skip without a GPU,
 * checks that name the PE, the line and the values.
 *
 * Each test calls gpu_test_init() instead of nvshmem_init(): with no GPU
 * (or no driver) it prints one "SKIP" line and exits 77, which ctest counts
 * as skipped (SKIP_RETURN_CODE), so CI machines with nvcc but no GPU pass. */
#ifndef GPU_TEST_H
#define GPU_TEST_H

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "[pe %d] %s:%d: %s: %s\n", nvshmem_my_pe(), __FILE__,         \
                    __LINE__, #call, cudaGetErrorString(e_));                             \
            exit(1);                                                              \
        }                                                                                 \
    } while (0)

#define EXPECT(cond, ...)                                                                 \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "[pe %d] %s:%d: FAILED %s: ", nvshmem_my_pe(), __FILE__,      \
                    __LINE__, #cond);                                                     \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fprintf(stderr, "\n");                                                        \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static inline void gpu_test_init(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: no GPU (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        exit(77);
    }
    nvshmem_init();
    EXPECT(shmemx_gpu_available(), "a GPU is visible but symheap set up no GPU heap "
                                   "(run with SHMEM_DEBUG=1 to see why)");
}

/* 1 when every PE has the same value v (collective, through host memory). */
static inline int gpu_test_same_everywhere(unsigned long long v)
{
    static unsigned long long all[4096]; /* symmetric global */
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    for (int pe = 0; pe < n; pe++) shmem_ulonglong_p(&all[me], v, pe);
    shmem_barrier_all();
    int ok = 1;
    for (int pe = 0; pe < n; pe++) ok &= all[pe] == v;
    shmem_barrier_all();
    return ok;
}

#ifdef __CUDACC__
/* The groups of the collective forms (gpu_coll, gpu_teams): one thread, the
 * block's first warp, the whole block; F picks one. */
enum { THREAD, WARP, BLOCK };
template <int F> __device__ bool in_group() { return F == BLOCK || (F == WARP ? threadIdx.x < 32 : threadIdx.x == 0); }
template <int F> __device__ unsigned gtid() { return F == THREAD ? 0 : threadIdx.x; }
template <int F> __device__ unsigned gsize() { return F == BLOCK ? blockDim.x : F == WARP ? 32 : 1; }
template <int F> __device__ void gsync()
{
    if (F == BLOCK) __syncthreads();
    else if (F == WARP) __syncwarp();
}
/* team_sync by the group: nobody's next collective writes into a result the
 * group still checks. */
template <int F> __device__ void gteam_sync(nvshmem_team_t t)
{
    if (F == THREAD) nvshmem_team_sync(t);
    else if (F == WARP) nvshmemx_team_sync_warp(t);
    else nvshmemx_team_sync_block(t);
}
#endif

#endif
