/* gpu_misuse.cu - misuse of the GPU heap must stop the job with one clear
 * line (tests/gpu/CMakeLists.txt gives the expected text per mode). */
#include "gpu_test.h"

#include <string.h>

__global__ void k_p(int *p) { nvshmem_int_p(p, 1, 0); }
__global__ void k_team_sum(nvshmem_team_t t, int *p) { nvshmem_int_sum_reduce(t, p, p + 8, 4); }

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    nvshmem_init();
    int me = nvshmem_my_pe();
    int *p = (int *)nvshmem_malloc(4096);
    if (!strcmp(m, "hint_no_gpu")) { /* run with SHMEM_GPU=0 */
        /* the extension's explicit GPU request is fatal without a GPU heap;
         * shmem_malloc_with_hints falls back to host memory (hints are advice) */
        shmemx_align_with_hints(64, 64, SHMEMX_MALLOC_DEVICE);
    } else if (!strcmp(m, "one_pe_alloc")) {
        if (me == 0) nvshmem_malloc(4096);
        nvshmem_free(p);
    } else if (!strcmp(m, "size_mismatch")) {
        nvshmem_malloc(me == 0 ? 4096 : 8192);
    } else if (!strcmp(m, "double_free")) {
        nvshmem_free(p);
        nvshmem_free(p);
    } else if (!strcmp(m, "interior_free")) {
        nvshmem_free(p + 2);
    } else if (!strcmp(m, "host_overrun")) {
        static int src[2048];
        shmemx_heap_info_t hi;
        shmemx_gpu_heap_info(&hi);
        nvshmem_int_put((int *)((char *)hi.base + hi.size) - 4, src, 8, 0);
    } else if (!strcmp(m, "host_amo")) {
        shmem_int_atomic_add(p, 1, 0);
    } else if (!strcmp(m, "device_not_sym")) {
        int *q;
        CK(cudaMalloc(&q, 64));
        k_p<<<1, 1>>>(q);
        cudaError_t e = cudaDeviceSynchronize();
        fprintf(stderr, "kernel ended: %s\n", cudaGetErrorString(e));
        return 1;
    } else if (!strcmp(m, "device_team_destroyed")) {
        /* a split team used in a kernel after nvshmem_team_destroy */
        nvshmem_team_t t;
        if (nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, nvshmem_n_pes(), NULL, 0, &t))
            return 2;
        nvshmem_team_destroy(t);
        k_team_sum<<<1, 1>>>(t, p);
        cudaError_t e = cudaDeviceSynchronize();
        fprintf(stderr, "kernel ended: %s\n", cudaGetErrorString(e));
        return 1;
    } else if (!strcmp(m, "stream_team_invalid")) {
        /* the on-stream form checks on the host and returns an error */
        int rc = nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_INVALID, p, p + 8, 4, 0);
        fprintf(stderr, "returned %d\n", rc);
        return rc == NVSHMEMX_ERROR_INVALID_VALUE ? 1 : 0;
    }
    nvshmem_finalize();
    return 0;
}
