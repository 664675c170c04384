/* gpu_uid.cu N - GPU PEs started with no launcher (as torchrun or
 * multiprocessing start them): this process makes a unique ID and forks N
 * children before touching CUDA; each joins with
 * nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID), allocates GPU symmetric
 * memory, puts its rank into its right neighbour's copy from a kernel, and
 * checks what its left neighbour put, after a host barrier (no device-side
 * wait: PEs that share a GPU without MPS, which only symrun starts, run
 * their kernels one after another).  Exits 77 without a GPU. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void k_put(int *dst, int v, int pe) { nvshmem_int_p(dst, v, pe); }

static int pe(nvshmemx_uniqueid_t *id, int rank, int n)
{
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_set_attr_uniqueid_args(rank, n, id, &attr);
    if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) return 1;
    int me = nvshmem_my_pe();
    if (me != rank || nvshmem_n_pes() != n || !shmemx_gpu_available()) {
        fprintf(stderr, "gpu_uid: rank %d: PE %d of %d, GPU heap %d\n", rank, me,
                nvshmem_n_pes(), shmemx_gpu_available());
        return 1;
    }
    int *dst = (int *)nvshmem_malloc(sizeof(int));
    k_put<<<1, 1>>>(dst, 1000 + me, (me + 1) % n);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    nvshmem_barrier_all();
    int got = -1;
    cudaMemcpy(&got, dst, sizeof got, cudaMemcpyDeviceToHost);
    int want = 1000 + (me + n - 1) % n;
    if (got != want) fprintf(stderr, "gpu_uid: PE %d got %d, want %d\n", me, got, want);
    nvshmem_free(dst);
    nvshmem_finalize();
    return got == want ? 0 : 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2;
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    nvshmemx_get_uniqueid(&id); /* no CUDA call before the forks */
    pid_t kid[16];
    for (int r = 0; r < n && r < 16; r++)
        if ((kid[r] = fork()) == 0) {
            int count = 0;
            if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) _exit(77);
            _exit(pe(&id, r, n));
        }
    int bad = 0, skip = 0;
    for (int r = 0; r < n; r++) {
        int st;
        waitpid(kid[r], &st, 0);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        skip += code == 77;
        bad += code != 0 && code != 77;
    }
    if (skip == n) {
        printf("SKIP: no GPU\n");
        return 77;
    }
    if (!bad) printf("gpu_uid: %d PEs without a launcher: ok\n", n);
    return bad ? 1 : 0;
}
