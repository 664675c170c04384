/* gpu_coll.cu - collectives in kernels with 1..N PEs (issue 14): broadcast,
 * fcollect, alltoall, the reductions (sum, prod, min, max, and, or, xor on
 * several types, in place too), reducescatter, barrier/team_sync on a team
 * and team_my_pe / n_pes, each in thread, warp and block form, with sizes
 * on both sides of the push/pull thresholds (nvshmem_coll_device.cuh) and
 * several rounds per kernel (the reduction scratch alternates its halves),
 * and back to back without barriers across the low-latency threshold; the
 * block-scope maxloc in kernels, in place and not.
 * Every result is checked exactly, on every PE, against values computed
 * here in PE order. */
#include "gpu_test.h"

#include <type_traits>

enum { THREADS = 128, ROUNDS = 4 };
static const char *form_name[] = { "thread", "warp", "block" };
/* element counts: pushed, odd, and past SHMI_DC_PUSH_MAX / the scratch half */
static const size_t sizes[] = { 1, 37, 1000, 20000 };
#define MAXN 20000

struct fail {
    int count, what, round;
    unsigned long long n, i;
    double got, want;
};

__device__ void report(fail *f, int what, size_t n, int r, size_t i, double got, double want)
{
    if (atomicAdd(&f->count, 1) == 0) {
        f->what = what;
        f->n = n;
        f->round = r;
        f->i = i;
        f->got = got;
        f->want = want;
    }
}

/* After checking: nobody's next collective may write into dest earlier. */
template <int F> __device__ void gbarrier() { gteam_sync<F>(NVSHMEM_TEAM_WORLD); }
#define CALL3(F, t, w, b)                 \
    do {                                  \
        if (F == THREAD) (void)(t);       \
        else if (F == WARP) (void)(w);    \
        else (void)(b);                   \
    } while (0)

/* The value PE pe contributes at index i in round r. */
template <typename T> __host__ __device__ T val(int pe, size_t i, int r, int kind)
{
    if (kind == 1) return (T)((pe + i + r) % 3 + 1); /* products stay small */
    if (kind == 2) return (T)((unsigned long long)(pe + 1) * 0x9E3779B97F4A7C15ull ^ (i * 2654435761ull) ^ (unsigned long long)r);
    return (T)(pe * 31 + (long long)(i % 1000) * 7 + r);
}

/* The test's own operators (x: accumulator, y: next PE). */
template <typename T, bool I = std::is_integral<T>::value> struct wide { typedef T type; };
template <typename T> struct wide<T, true> { typedef unsigned long long type; };
enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
template <typename T>
__device__ typename std::enable_if<std::is_integral<T>::value, T>::type bits(int o, T x, T y)
{
    return (T)(o == OP_AND ? x & y : o == OP_OR ? x | y : x ^ y);
}
template <typename T>
__device__ typename std::enable_if<!std::is_integral<T>::value, T>::type bits(int, T x, T)
{
    return x; /* no bitwise reductions on floating types */
}
template <typename T> __device__ T op(int o, T x, T y)
{
    typedef typename wide<T>::type W;
    switch (o) {
    case OP_SUM: return (T)((W)x + (W)y);
    case OP_PROD: return (T)((W)x * (W)y);
    case OP_MIN: return y < x ? y : x;
    case OP_MAX: return y > x ? y : x;
    default: return bits(o, x, y);
    }
}

/* ---- broadcast, fcollect, alltoall (int and char) ---------------------------------- */
template <int F>
__global__ void k_move(int *dest, int *src, char *cdest, char *csrc, size_t n, fail *f)
{
    if (!in_group<F>()) return;
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    const unsigned t = gtid<F>(), nt = gsize<F>();
    for (int r = 0; r < ROUNDS; r++) {
        int root = r % np;
        /* broadcast of ints from a root that changes each round */
        for (size_t i = t; i < n; i += nt) src[i] = val<int>(me, i, r, 0);
        gsync<F>();
        CALL3(F, nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, dest, src, n, root),
              nvshmemx_int_broadcast_warp(NVSHMEM_TEAM_WORLD, dest, src, n, root),
              nvshmemx_int_broadcast_block(NVSHMEM_TEAM_WORLD, dest, src, n, root));
        for (size_t i = t; i < n; i += nt)
            if (dest[i] != val<int>(root, i, r, 0)) report(f, 0, n, r, i, dest[i], val<int>(root, i, r, 0));
        gbarrier<F>();
        /* broadcastmem of an odd number of bytes */
        for (size_t i = t; i < n; i += nt) csrc[i] = val<char>(me, i, r, 2);
        gsync<F>();
        CALL3(F, nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, cdest, csrc, n, root),
              nvshmemx_broadcastmem_warp(NVSHMEM_TEAM_WORLD, cdest, csrc, n, root),
              nvshmemx_broadcastmem_block(NVSHMEM_TEAM_WORLD, cdest, csrc, n, root));
        for (size_t i = t; i < n; i += nt)
            if (cdest[i] != val<char>(root, i, r, 2)) report(f, 1, n, r, i, cdest[i], val<char>(root, i, r, 2));
        gbarrier<F>();
        /* fcollect: block p of dest is PE p's source */
        CALL3(F, nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, dest, src, n),
              nvshmemx_int_fcollect_warp(NVSHMEM_TEAM_WORLD, dest, src, n),
              nvshmemx_int_fcollect_block(NVSHMEM_TEAM_WORLD, dest, src, n));
        for (size_t i = t; i < n * np; i += nt)
            if (dest[i] != val<int>((int)(i / n), i % n, r, 0))
                report(f, 2, n, r, i, dest[i], val<int>((int)(i / n), i % n, r, 0));
        gbarrier<F>();
        /* fcollectmem on chars */
        CALL3(F, nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, cdest, csrc, n),
              nvshmemx_fcollectmem_warp(NVSHMEM_TEAM_WORLD, cdest, csrc, n),
              nvshmemx_fcollectmem_block(NVSHMEM_TEAM_WORLD, cdest, csrc, n));
        for (size_t i = t; i < n * np; i += nt)
            if (cdest[i] != val<char>((int)(i / n), i % n, r, 2))
                report(f, 3, n, r, i, cdest[i], val<char>((int)(i / n), i % n, r, 2));
        gbarrier<F>();
        /* alltoall: block q of PE p's source goes to block p of PE q's dest */
        for (size_t i = t; i < n * np; i += nt) src[i] = val<int>(me, i, r, 0);
        gsync<F>();
        CALL3(F, nvshmem_int_alltoall(NVSHMEM_TEAM_WORLD, dest, src, n),
              nvshmemx_int_alltoall_warp(NVSHMEM_TEAM_WORLD, dest, src, n),
              nvshmemx_int_alltoall_block(NVSHMEM_TEAM_WORLD, dest, src, n));
        for (size_t i = t; i < n * np; i += nt) {
            int p = (int)(i / n);
            int want = val<int>(p, (size_t)me * n + i % n, r, 0);
            if (dest[i] != want) report(f, 4, n, r, i, dest[i], want);
        }
        gbarrier<F>();
    }
}

/* ---- reductions and reducescatter ---------------------------------------------------- */
/* what: 10 + 10 * type + op; in place when inplace. */
#define RED_KERNEL(TN, T, OPN, OPC, KIND, ID)                                                        \
    template <int F>                                                                                 \
    __global__ void k_red_##TN##_##OPN(T *dest, T *src, size_t n, int inplace, fail *f)             \
    {                                                                                                \
        if (!in_group<F>()) return;                                                                  \
        const int me = nvshmem_my_pe(), np = nvshmem_n_pes();                                        \
        const unsigned t = gtid<F>(), nt = gsize<F>();                                               \
        T *d = inplace ? src : dest;                                                                 \
        for (int r = 0; r < ROUNDS; r++) {                                                           \
            for (size_t i = t; i < n; i += nt) src[i] = val<T>(me, i, r, KIND);                      \
            gsync<F>();                                                                              \
            CALL3(F, nvshmem_##TN##_##OPN##_reduce(NVSHMEM_TEAM_WORLD, d, src, n),                  \
                  nvshmemx_##TN##_##OPN##_reduce_warp(NVSHMEM_TEAM_WORLD, d, src, n),               \
                  nvshmemx_##TN##_##OPN##_reduce_block(NVSHMEM_TEAM_WORLD, d, src, n));             \
            for (size_t i = t; i < n; i += nt) {                                                     \
                T want = val<T>(0, i, r, KIND);                                                      \
                for (int p = 1; p < np; p++) want = op<T>(OPC, want, val<T>(p, i, r, KIND));         \
                if (!(d[i] == want)) report(f, ID, n, r, i, (double)d[i], (double)want);             \
            }                                                                                        \
            gbarrier<F>();                                                                           \
            if (inplace) continue;                                                                   \
            /* reducescatter: PE me gets the reduction of block me of every source */                \
            for (size_t i = t; i < n * np; i += nt) src[i] = val<T>(me, i, r, KIND);                 \
            gsync<F>();                                                                              \
            CALL3(F, nvshmem_##TN##_##OPN##_reducescatter(NVSHMEM_TEAM_WORLD, dest, src, n),        \
                  nvshmemx_##TN##_##OPN##_reducescatter_warp(NVSHMEM_TEAM_WORLD, dest, src, n),     \
                  nvshmemx_##TN##_##OPN##_reducescatter_block(NVSHMEM_TEAM_WORLD, dest, src, n));   \
            for (size_t i = t; i < n; i += nt) {                                                     \
                size_t j = (size_t)me * n + i;                                                       \
                T want = val<T>(0, j, r, KIND);                                                      \
                for (int p = 1; p < np; p++) want = op<T>(OPC, want, val<T>(p, j, r, KIND));         \
                if (!(dest[i] == want)) report(f, ID + 1000, n, r, i, (double)dest[i], (double)want); \
            }                                                                                        \
            gbarrier<F>();                                                                           \
        }                                                                                            \
    }
/* X(typename, type, op name, op, value kind, id) */
#define RED_CASES(X)                                 \
    X(int, int, sum, OP_SUM, 0, 10)                  \
    X(int, int, prod, OP_PROD, 1, 11)                \
    X(int, int, min, OP_MIN, 0, 12)                  \
    X(int, int, max, OP_MAX, 0, 13)                  \
    X(uint, unsigned int, and, OP_AND, 2, 14)        \
    X(uint, unsigned int, or, OP_OR, 2, 15)          \
    X(uint64, uint64_t, xor, OP_XOR, 2, 16)          \
    X(char, char, sum, OP_SUM, 0, 17)                \
    X(double, double, sum, OP_SUM, 0, 18)            \
    X(float, float, prod, OP_PROD, 1, 19)            \
    X(double, double, min, OP_MIN, 0, 20)            \
    X(longlong, long long, max, OP_MAX, 0, 21)       \
    X(int8, int8_t, xor, OP_XOR, 2, 22)              \
    X(ushort, unsigned short, sum, OP_SUM, 0, 23)
RED_CASES(RED_KERNEL)

/* ---- barrier on a team, team queries ---------------------------------------------------- */
template <int F> __global__ void k_team(int *slot, fail *f)
{
    if (!in_group<F>()) return;
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    const nvshmem_team_t teams[] = { NVSHMEM_TEAM_WORLD, NVSHMEM_TEAM_SHARED, NVSHMEMX_TEAM_NODE };
    for (int r = 1; r <= 30; r++) {
        nvshmem_team_t team = teams[r % 3];
        if (gtid<F>() == 0) {
            if (nvshmem_team_my_pe(team) != me) report(f, 900, 0, r, 0, nvshmem_team_my_pe(team), me);
            if (nvshmem_team_n_pes(team) != np) report(f, 901, 0, r, 0, nvshmem_team_n_pes(team), np);
            nvshmem_int_p(slot, r * 1000 + me, (me + 1) % np);
        }
        CALL3(F, nvshmem_barrier(team), nvshmemx_barrier_warp(team), nvshmemx_barrier_block(team));
        int want = r * 1000 + (me + np - 1) % np;
        if (gtid<F>() == 0 && *(volatile int *)slot != want) report(f, 902, 0, r, 0, *(volatile int *)slot, want);
        CALL3(F, nvshmem_sync(team), nvshmemx_team_sync_warp(team), nvshmemx_team_sync_block(team));
    }
    if (gtid<F>() == 0 && nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID) != -1)
        report(f, 903, 0, 0, 0, nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID), -1);
}

/* ---- back to back, no barrier between ------------------------------------------------------
 * Low-latency broadcasts and fcollects (SHMI_DC_LL_MAX: no barrier inside),
 * each result checked at once, 50 rounds with changing roots; and a
 * low-latency broadcast into the very buffer that a pushed fcollect (n * np
 * past the low-latency limit) fills next: a PE still copying its packets
 * into dest must not overwrite a fast peer's pushed block.  W: the team. */
template <int F> __global__ void k_b2b(int *dest, int *src, int *d2, size_t n, size_t big, fail *f)
{
    if (!in_group<F>()) return;
    const nvshmem_team_t W = NVSHMEM_TEAM_WORLD;
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    const unsigned t = gtid<F>(), nt = gsize<F>();
    for (int r = 0; r < 50; r++) {
        const int root = (r * 7) % np;
        for (size_t i = t; i < big; i += nt) src[i] = val<int>(me, i, r, 5);
        gsync<F>();
        CALL3(F, nvshmem_int_broadcast(W, d2, src, n, root),
              nvshmemx_int_broadcast_warp(W, d2, src, n, root),
              nvshmemx_int_broadcast_block(W, d2, src, n, root));
        for (size_t i = t; i < n; i += nt)
            if (d2[i] != val<int>(root, i, r, 5)) report(f, 50, n, r, i, d2[i], val<int>(root, i, r, 5));
        CALL3(F, nvshmem_int_fcollect(W, d2 + n, src, n),
              nvshmemx_int_fcollect_warp(W, d2 + n, src, n),
              nvshmemx_int_fcollect_block(W, d2 + n, src, n));
        for (size_t i = t; i < n * np; i += nt)
            if (d2[n + i] != val<int>((int)(i / n), i % n, r, 5))
                report(f, 51, n, r, i, d2[n + i], val<int>((int)(i / n), i % n, r, 5));
        CALL3(F, nvshmem_int_broadcast(W, dest, src, n, root),
              nvshmemx_int_broadcast_warp(W, dest, src, n, root),
              nvshmemx_int_broadcast_block(W, dest, src, n, root));
        CALL3(F, nvshmem_int_fcollect(W, dest, src, big),
              nvshmemx_int_fcollect_warp(W, dest, src, big),
              nvshmemx_int_fcollect_block(W, dest, src, big));
        for (size_t i = t; i < big * np; i += nt)
            if (dest[i] != val<int>((int)(i / big), i % big, r, 5))
                report(f, 52, big, r, i, dest[i], val<int>((int)(i / big), i % big, r, 5));
        gbarrier<F>(); /* dest was read above: the next round's pushes wait */
    }
}

/* ---- maxloc (block form): the largest x, of equal x the smallest y -------------------------
 * PE p's element i: x = (p * 7 + i) % 5 (ties between PEs), y = p * 100 + i. */
__host__ __device__ double2 mx_val(int p, size_t i)
{
    double2 v;
    v.x = (double)((p * 7 + (int)i) % 5);
    v.y = (double)(p * 100 + (int)i);
    return v;
}
__host__ __device__ double2 mx_want(int np, size_t i)
{
    double2 w = mx_val(0, i);
    for (int p = 1; p < np; p++) {
        double2 v = mx_val(p, i);
        if (v.x > w.x || (v.x == w.x && v.y < w.y)) w = v;
    }
    return w;
}
__global__ void k_maxloc(double2 *dest, double2 *src, size_t n, fail *f)
{
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) src[i] = mx_val(me, i);
        __syncthreads();
        nvshmemx_double2_maxloc_reduce_block(NVSHMEM_TEAM_WORLD, r & 1 ? src : dest, src, n);
        const double2 *got = r & 1 ? src : dest;
        for (size_t i = threadIdx.x; i < n; i += blockDim.x) {
            double2 w = mx_want(np, i);
            if (got[i].x != w.x || got[i].y != w.y) report(f, 60 + (r & 1), n, r, i, got[i].y, w.y);
        }
        nvshmemx_barrier_all_block();
    }
}

static void check(fail *df, const char *what, int form, size_t n)
{
    fail h;
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&h, df, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h.count == 0, "%s, %s form, n=%zu: %d wrong elements; first: check %d, round %d, "
           "index %llu: got %g, want %g", what, form_name[form], n, h.count, h.what, h.round,
           h.i, h.got, h.want);
    CK(cudaMemset(df, 0, sizeof h));
}

template <int F> static void run_form(int *dest, int *src, char *cdest, char *csrc, void *rdest,
                                      void *rsrc, int *slot, fail *df)
{
    const int np = nvshmem_n_pes();
    k_b2b<F><<<1, THREADS>>>(dest, src, (int *)rdest, 128 / np, 2048 / np, df);
    check(df, "back-to-back low-latency and pushed collectives", F, 128 / np);
    for (size_t n : sizes) {
        k_move<F><<<1, THREADS>>>(dest, src, cdest, csrc, n, df);
        check(df, "broadcast/fcollect/alltoall", F, n);
        for (int inplace = 0; inplace < 2; inplace++) {
#define RED_RUN(TN, T, OPN, OPC, KIND, ID)                                              \
            k_red_##TN##_##OPN<F><<<1, THREADS>>>((T *)rdest, (T *)rsrc, n, inplace, df); \
            check(df, inplace ? #TN "_" #OPN "_reduce in place"                          \
                              : #TN "_" #OPN "_reduce/reducescatter", F, n);
            RED_CASES(RED_RUN)
#undef RED_RUN
        }
    }
    k_team<F><<<1, THREADS>>>(slot, df);
    check(df, "barrier/sync on teams", F, 0);
}

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    size_t cap = (size_t)MAXN * np;
    int *dest = (int *)nvshmem_malloc(cap * sizeof(int));
    int *src = (int *)nvshmem_malloc(cap * sizeof(int));
    char *cdest = (char *)nvshmem_malloc(cap);
    char *csrc = (char *)nvshmem_malloc(cap);
    void *rdest = nvshmem_malloc(cap * 8);
    void *rsrc = nvshmem_malloc(cap * 8);
    int *slot = (int *)nvshmem_calloc(1, sizeof(int));
    EXPECT(dest && src && cdest && csrc && rdest && rsrc && slot, "nvshmem_malloc failed");
    fail *df;
    CK(cudaMalloc(&df, sizeof *df));
    CK(cudaMemset(df, 0, sizeof *df));

    for (size_t n : sizes) {
        k_maxloc<<<1, THREADS>>>((double2 *)rdest, (double2 *)rsrc, (n + 1) / 2, df);
        check(df, "nvshmemx_double2_maxloc_reduce_block in a kernel (in place on odd rounds)", BLOCK,
              (n + 1) / 2);
    }
    run_form<THREAD>(dest, src, cdest, csrc, rdest, rsrc, slot, df);
    run_form<WARP>(dest, src, cdest, csrc, rdest, rsrc, slot, df);
    run_form<BLOCK>(dest, src, cdest, csrc, rdest, rsrc, slot, df);

    /* the host forms of the same names still work on host memory */
    static int hsrc[8], hdst[8 * 64]; /* symmetric globals */
    for (int i = 0; i < 8; i++) hsrc[i] = me + i;
    shmem_barrier_all();
    EXPECT(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, hdst, hsrc, 8) == 0, "host reduce");
    for (int i = 0; i < 8; i++) EXPECT(hdst[i] == np * (np - 1) / 2 + np * i, "host sum[%d] = %d", i, hdst[i]);
    EXPECT(nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, hdst, hsrc, 8) == 0, "host fcollect");
    for (int i = 0; i < 8 * np; i++) EXPECT(hdst[i] == i / 8 + i % 8, "host fcollect[%d] = %d", i, hdst[i]);
    EXPECT(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == me, "host team_my_pe");
    EXPECT(nvshmem_barrier(NVSHMEM_TEAM_WORLD) == 0, "host barrier");

    CK(cudaFree(df));
    nvshmem_free(slot);
    nvshmem_free(rsrc);
    nvshmem_free(rdest);
    nvshmem_free(csrc);
    nvshmem_free(cdest);
    nvshmem_free(src);
    nvshmem_free(dest);
    if (me == 0) printf("gpu_coll: %d PEs: device collectives in thread, warp and block form OK\n", np);
    nvshmem_finalize();
    return 0;
}
