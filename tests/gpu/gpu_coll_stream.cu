/* gpu_coll_stream.cu - the _on_stream collectives with 1..N PEs (issue 14):
 * reductions, reducescatter, broadcast, fcollect, alltoall (typed and mem
 * forms), barrier and team_sync on a team, in stream order with kernels
 * that write the sources and check the results, small and large; the same
 * sequence captured in a CUDA graph and replayed (the round number lives on
 * the GPU, so every replay checks new values); a split team runs, a
 * destroyed one gives NVSHMEMX_ERROR_INVALID_VALUE, not a launch. */
#include "gpu_test.h"

enum { REPLAYS = 1000 };
#define MAXN 20000

/* round: a counter on the GPU, advanced by k_check. */
__global__ void k_fill(int *isrc, double *dsrc, int *a2a, size_t n, const int *round, int me, int np)
{
    int r = *round;
    for (size_t i = threadIdx.x + (size_t)blockIdx.x * blockDim.x; i < n * np;
         i += (size_t)blockDim.x * gridDim.x) {
        if (i < n) {
            isrc[i] = me * 100 + (int)(i % 5000) + r;
            dsrc[i] = (double)((me * 7 + (int)i + r) % 1000);
        }
        a2a[i] = me * 1000000 + (int)(i % 100000) + r;
    }
}

/* bad[0]: wrong elements; bad[1]: 1 + the first round with one; bad[2]: a
 * bit per check that failed (below) ; bad[3]: 1 + its first index. */
static const char *const check_names[] = { "isum", "dmax", "bc", "rs", "fc", "a2a" };
__device__ void k_bad(int *bad, int r, int check, size_t i)
{
    atomicAdd(bad, 1);
    atomicCAS(bad + 1, 0, r + 1);
    atomicOr(bad + 2, 1 << check);
    atomicCAS(bad + 3, 0, (int)i + 1);
}

__global__ void k_check(const int *isum, const double *dmax, const int *bc, const int *fc,
                        const int *a2a, const int *rs, size_t n, int *round, int *bad, int me, int np)
{
    int r = *round;
    int root = r % np;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
        int want = np * (int)(i % 5000) + np * r + 100 * np * (np - 1) / 2;
        if (isum[i] != want) k_bad(bad, r, 0, i);
        double m = 0;
        for (int p = 0; p < np; p++) {
            double v = (double)((p * 7 + (int)i + r) % 1000);
            m = p == 0 || v > m ? v : m;
        }
        if (dmax[i] != m) k_bad(bad, r, 1, i);
        if (bc[i] != root * 100 + (int)(i % 5000) + r) k_bad(bad, r, 2, i);
        /* reducescatter (sum) of the alltoall sources: block me of each */
        long long s = 0;
        for (int p = 0; p < np; p++) s += p * 1000000 + (int)(((size_t)me * n + i) % 100000) + r;
        if (rs[i] != (int)s) k_bad(bad, r, 3, i);
    }
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x) {
        int p = (int)(i / n);
        if (fc[i] != p * 100 + (int)((i % n) % 5000) + r) k_bad(bad, r, 4, i);
        if (a2a[i] != p * 1000000 + (int)(((size_t)me * n + i % n) % 100000) + r) k_bad(bad, r, 5, i);
    }
    __syncthreads();
    if (threadIdx.x == 0) *round = r + 1;
}

/* "N wrong elements (first in round R at index I; checks: isum bc)" */
static const char *bad_text(const int *dbad)
{
    static char buf[256];
    int h[4];
    CK(cudaMemcpy(h, dbad, sizeof h, cudaMemcpyDeviceToHost));
    int at = snprintf(buf, sizeof buf, "%d wrong elements", h[0]);
    if (h[0]) {
        at += snprintf(buf + at, sizeof buf - at, " (first in round %d at index %d; checks:",
                       h[1] - 1, h[3] - 1);
        for (int k = 0; k < 6; k++)
            if (h[2] & 1 << k) at += snprintf(buf + at, sizeof buf - at, " %s", check_names[k]);
        snprintf(buf + at, sizeof buf - at, ")");
    }
    return buf;
}

struct bufs {
    int *isrc, *isum, *bc, *fc, *a2a_src, *a2a_dst, *rs;
    double *dsrc, *dmax;
};

/* One round, all on the stream. */
static void round_on_stream(const bufs &b, size_t n, int *round, int *bad, int me, int np,
                            cudaStream_t st, int r_host)
{
    k_fill<<<4, 256, 0, st>>>(b.isrc, b.dsrc, b.a2a_src, n, round, me, np);
    nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, st);
    EXPECT(nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, b.isum, b.isrc, n, st) == 0, "reduce");
    EXPECT(nvshmemx_double_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, b.dmax, b.dsrc, n, st) == 0, "max");
    /* the root follows the round; in a graph r_host is fixed, so alternate
     * typed and mem forms with the root the device expects (r % np) only
     * outside graphs */
    int root = r_host % np;
    if (r_host & 1)
        EXPECT(nvshmemx_int_broadcast_on_stream(NVSHMEM_TEAM_WORLD, b.bc, b.isrc, n, root, st) == 0, "bcast");
    else
        EXPECT(nvshmemx_broadcastmem_on_stream(NVSHMEM_TEAM_WORLD, b.bc, b.isrc, n * sizeof(int), root, st) == 0, "bcastmem");
    if (r_host & 1)
        EXPECT(nvshmemx_int_fcollect_on_stream(NVSHMEM_TEAM_WORLD, b.fc, b.isrc, n, st) == 0, "fcollect");
    else
        EXPECT(nvshmemx_fcollectmem_on_stream(NVSHMEM_TEAM_SHARED, b.fc, b.isrc, n * sizeof(int), st) == 0, "fcollectmem");
    if (r_host & 1)
        EXPECT(nvshmemx_int_alltoall_on_stream(NVSHMEM_TEAM_WORLD, b.a2a_dst, b.a2a_src, n, st) == 0, "alltoall");
    else
        EXPECT(nvshmemx_alltoallmem_on_stream(NVSHMEMX_TEAM_NODE, b.a2a_dst, b.a2a_src, n * sizeof(int), st) == 0, "alltoallmem");
    EXPECT(nvshmemx_int_sum_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, b.rs, b.a2a_src, n, st) == 0, "reducescatter");
    k_check<<<1, 256, 0, st>>>(b.isum, b.dmax, b.bc, b.fc, b.a2a_dst, b.rs, n, round, bad, me, np);
    EXPECT(nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, st) == 0, "team_sync");
}

static int read_int(const int *p)
{
    int h;
    CK(cudaMemcpy(&h, p, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    size_t cap = (size_t)MAXN * np;
    bufs b;
    b.isrc = (int *)nvshmem_malloc(cap * sizeof(int));
    b.isum = (int *)nvshmem_malloc(cap * sizeof(int));
    b.bc = (int *)nvshmem_malloc(cap * sizeof(int));
    b.fc = (int *)nvshmem_malloc(cap * sizeof(int));
    b.a2a_src = (int *)nvshmem_malloc(cap * sizeof(int));
    b.a2a_dst = (int *)nvshmem_malloc(cap * sizeof(int));
    b.rs = (int *)nvshmem_malloc(cap * sizeof(int));
    b.dsrc = (double *)nvshmem_malloc(cap * sizeof(double));
    b.dmax = (double *)nvshmem_malloc(cap * sizeof(double));
    EXPECT(b.isrc && b.isum && b.bc && b.fc && b.a2a_src && b.a2a_dst && b.rs && b.dsrc && b.dmax,
           "nvshmem_malloc failed");
    int *round, *bad;
    CK(cudaMalloc(&round, sizeof(int)));
    CK(cudaMalloc(&bad, 4 * sizeof(int)));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    /* on st: a non-blocking stream does not wait for the legacy stream's
     * cudaMemset (that race made the first graph replay read the old round) */
    CK(cudaMemsetAsync(round, 0, sizeof(int), st));
    CK(cudaMemsetAsync(bad, 0, 4 * sizeof(int), st));

    /* stream order, small and large sizes, root = round % np as k_check expects */
    const size_t sizes[] = { 1, 100, 5000, MAXN };
    int r = 0;
    for (size_t n : sizes)
        for (int k = 0; k < 2 * np + 2; k++, r++) round_on_stream(b, n, round, bad, me, np, st, r);
    CK(cudaStreamSynchronize(st));
    EXPECT(read_int(bad) == 0, "%s in stream-ordered collectives", bad_text(bad));
    EXPECT(read_int(round) == r, "round counter %d, want %d", read_int(round), r);

    /* A graph of one round per root, replayed: k_check expects root r % np,
     * so capture np rounds (one per root) and replay the graph. */
    CK(cudaMemsetAsync(round, 0, sizeof(int), st));
    CK(cudaStreamSynchronize(st));
    nvshmem_barrier_all();
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < np; k++) round_on_stream(b, 1000, round, bad, me, np, st, k);
    CK(cudaStreamEndCapture(st, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    int replays = REPLAYS / np;
    for (int i = 0; i < replays; i++) CK(cudaGraphLaunch(exec, st));
    CK(cudaStreamSynchronize(st));
    EXPECT(read_int(bad) == 0, "%s in graph replays", bad_text(bad));
    EXPECT(read_int(round) == replays * np, "graph replays: round %d, want %d", read_int(round),
           replays * np);
    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));

    /* a split team works on the stream (gpu_teams checks its results); once
     * destroyed: a clear error code, nothing launched */
    nvshmem_team_t half;
    nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    EXPECT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, np, &cfg, 0, &half) == 0, "split");
    EXPECT(nvshmemx_int_sum_reduce_on_stream(half, b.isum, b.isrc, 1, st) == 0,
           "a split team works on streams");
    EXPECT(nvshmemx_barrier_on_stream(half, st) == 0, "a split team works on streams");
    CK(cudaStreamSynchronize(st));
    nvshmem_team_destroy(half);
    EXPECT(nvshmemx_int_sum_reduce_on_stream(half, b.isum, b.isrc, 1, st) ==
               NVSHMEMX_ERROR_INVALID_VALUE, "a destroyed team must be refused");
    EXPECT(nvshmemx_barrier_on_stream(half, st) == NVSHMEMX_ERROR_INVALID_VALUE,
           "a destroyed team must be refused");

    CK(cudaStreamDestroy(st));
    CK(cudaFree(bad));
    CK(cudaFree(round));
    nvshmem_free(b.dmax);
    nvshmem_free(b.dsrc);
    nvshmem_free(b.rs);
    nvshmem_free(b.a2a_dst);
    nvshmem_free(b.a2a_src);
    nvshmem_free(b.fc);
    nvshmem_free(b.bc);
    nvshmem_free(b.isum);
    nvshmem_free(b.isrc);
    if (me == 0) printf("gpu_coll_stream: %d PEs: on-stream collectives and graph replays OK\n", np);
    nvshmem_finalize();
    return 0;
}
