/* gpu_teams.cu - split teams in kernels and on streams (issue 14).
 *
 * With n PEs: the even and the odd PEs (nvshmem_team_split_strided, stride
 * 2) and the 2D split of the world with xrange 2 (rows {0,1}, {2,3}, ...;
 * columns with stride 2).  Every PE runs, on each team it is in, one kernel
 * per form (thread, warp, block) that checks nvshmem_team_my_pe / n_pes /
 * translate_pe, then broadcast, fcollect, alltoall, a sum reduction and
 * reducescatter at sizes on both sides of the low-latency and push limits,
 * barriers between rounds, and the same on streams; the even and odd teams'
 * kernels run at the same time on one GPU, so a team that shared flags or
 * scratch with another would fail.  Then the world's collectives still give
 * the world's results, a destroyed team's index is free again, and a team
 * split anew into a reused slot starts from a zeroed control block.  Values
 * depend on the world PE of each contribution, so a wrong translation of
 * team ranks shows. */
#include "gpu_test.h"

enum { THREADS = 128 };
static const char *form_name[] = { "thread", "warp", "block" };
/* ints per PE: low-latency, pushed, pulled / two shots */
__host__ __device__ size_t size_at(int k) { return k == 0 ? 3 : k == 1 ? 700 : 9000; }
#define MAXN 9000
#define MAXPES 8

struct fail {
    int count, what, world_pe;
    unsigned long long n, i;
    long long got, want;
};

__device__ void report(fail *f, int what, size_t n, size_t i, long long got, long long want)
{
    if (atomicAdd(&f->count, 1) == 0) {
        f->what = what;
        f->n = n;
        f->i = i;
        f->got = got;
        f->want = want;
    }
}

/* What world PE w contributes at index i. */
__host__ __device__ int val(int w, size_t i) { return w * 1000 + (int)(i % 997); }

enum { W_MYPE = 1, W_NPES, W_XLATE, W_BCAST, W_FCOLLECT, W_ALLTOALL, W_REDUCE, W_RSCATTER, W_BARRIER };
static const char *what_name[] = { "", "team_my_pe", "team_n_pes", "translate_pe", "broadcast",
                                   "fcollect", "alltoall", "sum_reduce", "sum_reducescatter",
                                   "barrier" };

/* team t: size tn, this PE's rank tr, world PE of rank r = ts + r * tstride. */
template <int F>
__global__ void k_team(nvshmem_team_t t, int tn, int tr, int ts, int tstride, int *src, int *dst,
                       int *big, int *flag, fail *f)
{
    if (!in_group<F>()) return;
    const unsigned tid = gtid<F>(), nth = gsize<F>();
    if (tid == 0) {
        if (nvshmem_team_my_pe(t) != tr) report(f, W_MYPE, 0, 0, nvshmem_team_my_pe(t), tr);
        if (nvshmem_team_n_pes(t) != tn) report(f, W_NPES, 0, 0, nvshmem_team_n_pes(t), tn);
        for (int r = 0; r < tn; r++) {
            int w = nvshmem_team_translate_pe(t, r, NVSHMEM_TEAM_WORLD);
            if (w != ts + r * tstride) report(f, W_XLATE, r, 0, w, ts + r * tstride);
            if (nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, w, t) != r)
                report(f, W_XLATE, r, 1, nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, w, t), r);
        }
    }
    const int me = ts + tr * tstride;
    for (int si = 0; si < 3; si++) {
        const size_t n = size_at(si);
        const size_t per = n / tn ? n / tn : 1; /* alltoall / reducescatter block */
        /* broadcast from the last rank */
        for (size_t i = tid; i < n; i += nth) src[i] = val(me, i), dst[i] = -1;
        gsync<F>();
        const int root = tn - 1;
        if (F == THREAD) nvshmem_int_broadcast(t, dst, src, n, root);
        else if (F == WARP) nvshmemx_int_broadcast_warp(t, dst, src, n, root);
        else nvshmemx_int_broadcast_block(t, dst, src, n, root);
        for (size_t i = tid; i < n; i += nth)
            if (dst[i] != val(ts + root * tstride, i)) report(f, W_BCAST, n, i, dst[i], val(ts + root * tstride, i));
        gteam_sync<F>(t);
        /* fcollect: block r from rank r */
        if (n * tn <= MAXN * MAXPES) {
            if (F == THREAD) nvshmem_int_fcollect(t, big, src, n);
            else if (F == WARP) nvshmemx_int_fcollect_warp(t, big, src, n);
            else nvshmemx_int_fcollect_block(t, big, src, n);
            for (size_t i = tid; i < n * tn; i += nth) {
                const int want = val(ts + (int)(i / n) * tstride, i % n);
                if (big[i] != want) report(f, W_FCOLLECT, n, i, big[i], want);
            }
            gteam_sync<F>(t);
        }
        /* alltoall: rank q gets block q of every rank's source (src[q * per + k] = val(me, q * per + k)) */
        for (size_t i = tid; i < per * tn; i += nth) src[i] = val(me, i);
        gsync<F>();
        if (F == THREAD) nvshmem_int_alltoall(t, big, src, per);
        else if (F == WARP) nvshmemx_int_alltoall_warp(t, big, src, per);
        else nvshmemx_int_alltoall_block(t, big, src, per);
        for (size_t i = tid; i < per * tn; i += nth) {
            const int from = ts + (int)(i / per) * tstride;
            const int want = val(from, tr * per + i % per);
            if (big[i] != want) report(f, W_ALLTOALL, per, i, big[i], want);
        }
        gteam_sync<F>(t);
        /* sum reduction over the team's members */
        for (size_t i = tid; i < n; i += nth) src[i] = val(me, i);
        gsync<F>();
        if (F == THREAD) nvshmem_int_sum_reduce(t, dst, src, n);
        else if (F == WARP) nvshmemx_int_sum_reduce_warp(t, dst, src, n);
        else nvshmemx_int_sum_reduce_block(t, dst, src, n);
        for (size_t i = tid; i < n; i += nth) {
            int want = 0;
            for (int r = 0; r < tn; r++) want += val(ts + r * tstride, i);
            if (dst[i] != want) report(f, W_REDUCE, n, i, dst[i], want);
        }
        gteam_sync<F>(t);
        /* reducescatter: rank q gets the sum of block q */
        for (size_t i = tid; i < per * tn; i += nth) src[i] = val(me, i);
        gsync<F>();
        if (F == THREAD) nvshmem_int_sum_reducescatter(t, dst, src, per);
        else if (F == WARP) nvshmemx_int_sum_reducescatter_warp(t, dst, src, per);
        else nvshmemx_int_sum_reducescatter_block(t, dst, src, per);
        for (size_t i = tid; i < per; i += nth) {
            int want = 0;
            for (int r = 0; r < tn; r++) want += val(ts + r * tstride, tr * per + i);
            if (dst[i] != want) report(f, W_RSCATTER, per, i, dst[i], want);
        }
        gteam_sync<F>(t);
    }
    /* a barrier orders a put: each rank puts its world PE into the next rank's flag */
    if (tid == 0) {
        const int next = ts + ((tr + 1) % tn) * tstride, prev = ts + ((tr + tn - 1) % tn) * tstride;
        nvshmem_int_p(flag, me + 1, next);
        nvshmem_barrier(t);
        if (*(volatile int *)flag != prev + 1) report(f, W_BARRIER, 0, 0, *(volatile int *)flag, prev + 1);
    }
    gsync<F>();
    gteam_sync<F>(t);
}

struct team_desc {
    nvshmem_team_t t;
    int n, rank, start, stride;
    const char *name;
};

struct bufs {
    int *src, *dst, *big, *flag;
    fail *f;
};

static void check_fail(fail *f, const team_desc &d, const char *form)
{
    fail h;
    CK(cudaMemcpy(&h, f, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h.count == 0, "team %s (%d PEs, rank %d), %s form: %d mismatches, first in %s at n=%llu "
           "index %llu: got %lld, want %lld", d.name, d.n, d.rank, form, h.count,
           what_name[h.what], h.n, h.i, h.got, h.want);
}

/* Every form on team d, the kernel launched on stream s (other teams' kernels
 * may run at the same time on other streams). */
static void run_team(const team_desc &d, bufs b, cudaStream_t s)
{
    for (int form = THREAD; form <= BLOCK; form++) {
        CK(cudaMemsetAsync(b.f, 0, sizeof(fail), s));
        CK(cudaMemsetAsync(b.flag, 0, sizeof(int), s));
        nvshmemx_barrier_on_stream(d.t, s); /* nobody's p lands before this PE cleared flag */
        if (form == THREAD)
            k_team<THREAD><<<1, THREADS, 0, s>>>(d.t, d.n, d.rank, d.start, d.stride, b.src, b.dst, b.big, b.flag, b.f);
        else if (form == WARP)
            k_team<WARP><<<1, THREADS, 0, s>>>(d.t, d.n, d.rank, d.start, d.stride, b.src, b.dst, b.big, b.flag, b.f);
        else
            k_team<BLOCK><<<1, THREADS, 0, s>>>(d.t, d.n, d.rank, d.start, d.stride, b.src, b.dst, b.big, b.flag, b.f);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s));
        check_fail(b.f, d, form_name[form]);
    }
    /* on the stream: broadcast, reduction, team barrier */
    const size_t n = 700;
    int *h = (int *)malloc(MAXN * sizeof(int));
    EXPECT(h, "out of host memory");
    for (size_t i = 0; i < n; i++) h[i] = val(d.start + d.rank * d.stride, i);
    CK(cudaMemcpyAsync(b.src, h, n * sizeof(int), cudaMemcpyHostToDevice, s));
    EXPECT(nvshmemx_int_sum_reduce_on_stream(d.t, b.dst, b.src, n, s) == 0, "reduce_on_stream");
    EXPECT(nvshmemx_int_broadcast_on_stream(d.t, b.big, b.src, n, 0, s) == 0, "broadcast_on_stream");
    EXPECT(nvshmemx_team_sync_on_stream(d.t, s) == 0, "team_sync_on_stream");
    int *h2 = (int *)malloc(MAXN * sizeof(int));
    EXPECT(h2, "out of host memory");
    CK(cudaMemcpyAsync(h, b.dst, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(h2, b.big, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < n; i++) {
        int want = 0;
        for (int r = 0; r < d.n; r++) want += val(d.start + r * d.stride, i);
        EXPECT(h[i] == want, "team %s: reduce_on_stream [%zu] = %d, want %d", d.name, i, h[i], want);
        EXPECT(h2[i] == val(d.start, i), "team %s: broadcast_on_stream [%zu] = %d, want %d", d.name,
               i, h2[i], val(d.start, i));
    }
    free(h);
    free(h2);
}

static bufs alloc_bufs(void)
{
    bufs b;
    b.src = (int *)nvshmem_malloc(MAXN * MAXPES * sizeof(int));
    b.dst = (int *)nvshmem_malloc(MAXN * MAXPES * sizeof(int));
    b.big = (int *)nvshmem_malloc(MAXN * MAXPES * sizeof(int));
    b.flag = (int *)nvshmem_malloc(sizeof(int));
    EXPECT(b.src && b.dst && b.big && b.flag, "nvshmem_malloc");
    CK(cudaMalloc(&b.f, sizeof(fail)));
    return b;
}

int main(void)
{
    gpu_test_init();
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    EXPECT(n <= MAXPES, "at most %d PEs", MAXPES);
    cudaStream_t s[2];
    CK(cudaStreamCreateWithFlags(&s[0], cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));

    /* even / odd PEs: each PE is in exactly one; both run at once */
    nvshmem_team_t even = NVSHMEM_TEAM_INVALID, odd = NVSHMEM_TEAM_INVALID;
    EXPECT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even) == 0,
           "split even");
    if (n > 1)
        EXPECT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd) == 0,
               "split odd");
    team_desc mine = me % 2 == 0 ? team_desc{ even, (n + 1) / 2, me / 2, 0, 2, "even" }
                                 : team_desc{ odd, n / 2, me / 2, 1, 2, "odd" };
    EXPECT(mine.t != NVSHMEM_TEAM_INVALID, "this PE got no team from its split");
    EXPECT((me % 2 == 0 ? odd : even) == NVSHMEM_TEAM_INVALID, "a non-member got a team handle");
    bufs b = alloc_bufs();
    run_team(mine, b, s[me % 2]);
    nvshmem_barrier_all();

    /* 2D: rows of 2, columns */
    nvshmem_team_t x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
    EXPECT(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) == 0, "split_2d");
    const int xn = n - me / 2 * 2 < 2 ? n - me / 2 * 2 : 2, yn = (n - me % 2 + 1) / 2;
    run_team(team_desc{ x, xn, me % 2, me / 2 * 2, 1, "row" }, b, s[0]);
    run_team(team_desc{ y, yn, me / 2, me % 2, 2, "column" }, b, s[1]);

    /* the world's collectives are unaffected */
    run_team(team_desc{ NVSHMEM_TEAM_WORLD, n, me, 0, 1, "world" }, b, s[0]);

    /* destroy, split anew: the host slot is reused, its block starts from zero */
    nvshmem_team_destroy(x);
    nvshmem_team_destroy(y);
    nvshmem_team_t again = NVSHMEM_TEAM_INVALID;
    EXPECT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &again) == 0,
           "split reversed");
    run_team(team_desc{ again, n, n - 1 - me, n - 1, -1, "reversed" }, b, s[1]);
    EXPECT(nvshmem_team_my_pe(x) == -1 || x == again, "a destroyed team still answers");

    nvshmem_team_destroy(again);
    if (me % 2 == 0) nvshmem_team_destroy(even);
    else nvshmem_team_destroy(odd);
    nvshmem_barrier_all();
    if (me == 0) printf("gpu_teams: %d PEs OK\n", n);
    nvshmem_free(b.src);
    nvshmem_free(b.dst);
    nvshmem_free(b.big);
    nvshmem_free(b.flag);
    CK(cudaFree(b.f));
    nvshmem_finalize();
    return 0;
}
