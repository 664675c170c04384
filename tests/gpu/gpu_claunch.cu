/* gpu_claunch.cu - nvshmemx_collective_launch with 1..N PEs (issue 14):
 * the grid the query gives runs with every block resident at once (each
 * block waits for all the others before block 0 does a device barrier with
 * the other PEs), a grid of 0x0x0 launches that largest grid, a grid one
 * block too large is NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED with nothing
 * launched (never a hang), so is a grid with some dimensions 0; and
 * NVIDIA's collective-launch example's ring in one block. */
#include "gpu_test.h"

enum { THREADS = 256 };

/* Every block arrives, waits for every other block of this PE's grid (only
 * possible when all are resident), then block 0 meets the other PEs. */
__global__ void k_resident(unsigned *arrived, int *ring, int *grid_seen)
{
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
    if (threadIdx.x == 0) {
        atomicAdd(arrived, 1u);
        while (*(volatile unsigned *)arrived < nblocks) {
        }
        if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0) {
            *grid_seen = (int)nblocks;
            nvshmem_int_p(ring, me, (me + 1) % np);
            nvshmem_barrier_all();
        }
    }
}

/* NVIDIA's collective-launch example's kernel: a ring sum, one thread. */
__global__ void k_reduce_ring(int *target, int mype, int npes)
{
    int peer = (mype + 1) % npes;
    int lvalue = mype;
    for (int i = 0; i < npes; i++) {
        nvshmem_int_p(target, lvalue, peer);
        nvshmem_barrier_all();
        lvalue = *target + mype;
        nvshmem_barrier_all();
    }
    *target = lvalue;
}

static int read_int(const void *p)
{
    int h;
    CK(cudaMemcpy(&h, p, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    unsigned *arrived;
    int *grid_seen;
    int *ring = (int *)nvshmem_calloc(1, sizeof(int));
    int *target = (int *)nvshmem_calloc(1, sizeof(int));
    EXPECT(ring && target, "nvshmem_calloc failed");
    CK(cudaMalloc(&arrived, sizeof *arrived));
    CK(cudaMalloc(&grid_seen, sizeof *grid_seen));
    void *args[] = { &arrived, &ring, &grid_seen };

    int grid = -1;
    EXPECT(nvshmemx_collective_launch_query_gridsize((const void *)k_resident, dim3(THREADS), args,
                                                     0, &grid) == NVSHMEMX_SUCCESS, "query");
    EXPECT(grid > 0, "query_gridsize gave %d blocks of %d threads", grid, THREADS);
    EXPECT(gpu_test_same_everywhere((unsigned long long)grid), "PEs got different grid sizes");

    /* the largest grid: all of it resident, or this hangs (symrun's timeout) */
    for (int round = 0; round < 3; round++) {
        CK(cudaMemset(arrived, 0, sizeof *arrived));
        CK(cudaMemset(grid_seen, 0, sizeof *grid_seen));
        nvshmem_barrier_all();
        dim3 g = round == 1 ? dim3(0, 0, 0) : dim3((unsigned)grid); /* 0x0x0: the largest */
        int rc = nvshmemx_collective_launch((const void *)k_resident, g, dim3(THREADS), args, 0, 0);
        EXPECT(rc == NVSHMEMX_SUCCESS, "collective launch of %d blocks: rc %d", grid, rc);
        CK(cudaDeviceSynchronize());
        EXPECT(read_int(grid_seen) == grid, "the kernel saw %d blocks, want %d", read_int(grid_seen), grid);
        EXPECT(read_int(arrived) == grid, "%d blocks arrived, want %d", read_int(arrived), grid);
        nvshmem_barrier_all();
        EXPECT(read_int(ring) == (me + np - 1) % np, "ring: %d", read_int(ring));
    }

    /* one block more than fits: an error code and a message, nothing runs */
    CK(cudaMemset(arrived, 0, sizeof *arrived));
    int rc = nvshmemx_collective_launch((const void *)k_resident, dim3((unsigned)grid + 1),
                                        dim3(THREADS), args, 0, 0);
    EXPECT(rc == NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED, "too large a grid gave rc %d", rc);
    rc = nvshmemx_collective_launch((const void *)k_resident, dim3(2, 0, 1), dim3(THREADS), args, 0, 0);
    EXPECT(rc == NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED, "a grid of 2x0x1 gave rc %d", rc);
    CK(cudaDeviceSynchronize());
    EXPECT(read_int(arrived) == 0, "a refused launch ran %d blocks", read_int(arrived));

    /* on a stream, as NVIDIA's examples do */
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    void *rargs[] = { &target, &me, &np };
    nvshmemx_barrier_all_on_stream(st);
    EXPECT(nvshmemx_collective_launch((const void *)k_reduce_ring, dim3(1), dim3(1), rargs, 0, st) ==
               NVSHMEMX_SUCCESS, "ring launch");
    nvshmemx_barrier_all_on_stream(st);
    CK(cudaStreamSynchronize(st));
    /* npes + 1 terms: every PE once, and this one twice */
    EXPECT(read_int(target) == np * (np - 1) / 2 + me, "ring sum %d, want %d", read_int(target),
           np * (np - 1) / 2 + me);
    CK(cudaStreamDestroy(st));

    CK(cudaFree(grid_seen));
    CK(cudaFree(arrived));
    nvshmem_free(target);
    nvshmem_free(ring);
    if (me == 0) printf("gpu_claunch: %d PEs: collective launch of %d blocks OK\n", np, grid);
    nvshmem_finalize();
    return 0;
}
