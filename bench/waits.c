/* waits.c - what a waiting PE costs the PEs that write to it (issues 15 and 19).
 *
 *   symrun -n N build/bench/bench_waits [--trials N] [--target-ms MS] [--only NAMES]
 *   oshrun -np N ./bench_waits_osh ...       (the same file built with oshcc)
 *
 * waits: PE 0 writes into PE 1 in a timed loop while every other PE is
 *   barrier    in shmem_barrier_all for the whole measurement
 *   other      in shmem_uint64_wait_until on another word (another cache line)
 *   same       in shmem_long_wait_until on the written word (a wait the writes
 *              could end, but do not: it waits for a value they never reach)
 *   compute    computing outside the library (a loop of arithmetic, reading a
 *              flag in its own memory now and then)
 *   nap        outside the library, asleep: 0.2 ms naps between looks at the flag
 *              (how bench.c's idle PEs wait)
 * and the operations are
 *   put        shmem_putmem of 8 bytes + shmem_quiet
 *   fadd       shmem_long_atomic_fetch_add
 *   putsig     shmem_putmem_signal of 8 bytes, SHMEM_SIGNAL_SET (OpenSHMEM 1.5) + quiet
 * One line per (state, op): 'bench waits_<state> <pes> <op> <us per op> us' (median
 * over the trials; the iteration count is calibrated once per state and op, all
 * inside one episode of the state).  Goal (issue 15): barrier and other within 1.2x of
 * compute in every launch (nap too, where the PEs outnumber the CPUs and computing
 * PEs take CPU time from PE 0).
 *
 * osu rows (issue 19): the OSU micro-benchmarks' shape: each collective timed alone on
 *   every PE, a shmem_barrier_all after it outside the timing; per-PE mean, averaged
 *   over the PEs (what osu_oshm_* prints); median over the trials.  Broadcast (from PE
 *   0), collect, fcollect, long sum reduction and alltoall, 8 B and 1 KiB per PE:
 *   'bench osu<coll> <pes> lat_8B|lat_1KiB <us> us'.  --only osu selects all, or name
 *   one (osubcast, osucollect, osufcollect, osureduce, osualltoall).  1.4 libraries:
 *   the 64-bit forms with an active set and pSync (shmem_long_sum_to_all).
 *
 * halo row (issue 15): the halo exchange of a well-known benchmark suite's stencil
 *   kernel: a 2-D Jacobi grid cut into slabs of rows, one per PE, the PEs in a ring;
 *   per iteration each PE puts its first and last row into its two neighbours' halo
 *   rows (double-buffered by iteration parity), shmem_fence, shmem_int_atomic_inc on
 *   each neighbour's flag, shmem_int_wait_until on its own flag, then a 5-point
 *   stencil sweep of its slab.  'bench halo <pes> iter <us> us' (median over the
 *   trials of PE 0's time per iteration) and 'bench halo <pes> mflops <MFlop/s>'
 *   (the whole job's stencil flops; the value in the time field is 1/rate).  Run it
 *   quiet and under load (waits.sh --load): waits that sleep show up here.
 *
 * Uses only the standard API, so it builds with oshcc too (putsig is skipped below
 * OpenSHMEM 1.5). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define BENCH_15 1
#else
#define BENCH_15 0
#endif

#define LIMIT ((long)1 << 62) /* the 'same' waiters wait for W >= LIMIT */

struct words {                    /* symmetric, one per PE */
    long w;                       /* the written word (putsig: its signal) */
    uint64_t pad0[7];
    uint64_t data;                /* putsig's data (w is its signal) */
    uint64_t pad1[7];
    uint64_t flag;                /* 'other' waits here; compute/nap read it */
    uint64_t pad2[7];
    uint64_t share;               /* PE 0 -> all: calibrated counts */
    uint64_t pad3[7];
    double res[1024];             /* osubcast: each PE's mean, on PE 0 */
    uint64_t bsrc[8], bdst[8];
    long psync[64];               /* >= SHMEM_BCAST_SYNC_SIZE */
};

enum state { S_BARRIER, S_OTHER, S_SAME, S_COMPUTE, S_NAP, S_COUNT };
static const char *state_name[S_COUNT] = { "barrier", "other", "same", "compute", "nap" };
enum op { OP_PUT, OP_FADD, OP_PUTSIG, OP_COUNT };
static const char *op_name[OP_COUNT] = { "put", "fadd", "putsig" };

static struct words *W;
static int me, npes;
static struct bench_opt opt;
static volatile double sink;

static void loop(enum op op, long n)
{
    long v = 1;
    switch (op) {
    case OP_PUT:
        for (long i = 0; i < n; i++) {
            v = (long)i;
            shmem_putmem(&W->w, &v, sizeof v, 1);
            shmem_quiet();
        }
        break;
    case OP_FADD:
        for (long i = 0; i < n; i++) (void)shmem_long_atomic_fetch_add(&W->w, 1, 1);
        break;
    default:
#if BENCH_15
        for (long i = 0; i < n; i++) {
            shmem_putmem_signal(&W->data, &v, sizeof v, (uint64_t *)&W->w, (uint64_t)i,
                                SHMEM_SIGNAL_SET, 1);
            shmem_quiet();
        }
#endif
        break;
    }
}

/* The waiting side of one episode (PEs 1..n-1); epoch: this episode's number. */
static void be(enum state s, uint64_t epoch)
{
    volatile uint64_t *flag = &W->flag;
    switch (s) {
    case S_BARRIER: shmem_barrier_all(); break; /* PE 0 joins when done */
    case S_OTHER: shmem_uint64_wait_until(&W->flag, SHMEM_CMP_GE, epoch); break;
    case S_SAME: shmem_long_wait_until(&W->w, SHMEM_CMP_GE, LIMIT); break;
    case S_COMPUTE: {
        double x = 1;
        while (*flag < epoch)
            for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
        sink = x;
        break;
    }
    default: {
        const struct timespec nap = { 0, 200000 };
        while (*flag < epoch) nanosleep(&nap, NULL);
    }
    }
}

/* PE 0 ends an episode: what releases the others. */
static void release(enum state s, uint64_t epoch)
{
    if (s == S_BARRIER) {
        shmem_barrier_all();
        return;
    }
    for (int pe = 1; pe < npes; pe++) {
        if (s == S_SAME) shmem_long_atomic_add(&W->w, LIMIT, pe);
        else shmem_uint64_p(&W->flag, epoch, pe);
    }
    shmem_quiet();
}

static void waits(void)
{
    static uint64_t epoch;
    for (int s = 0; s < S_COUNT; s++)
        for (int op = 0; op < OP_COUNT; op++) {
            if (op == OP_PUTSIG && !BENCH_15) continue;
            if (npes < 2) return;
            W->w = 0;
            ++epoch;
            shmem_barrier_all();
            if (me != 0) {
                be((enum state)s, epoch);
            } else {
                double t[BENCH_MAX_TRIALS];
                loop((enum op)op, 100); /* warm-up */
                long n = 1;
                for (;; n *= 8) {
                    double t0 = bench_now();
                    loop((enum op)op, n);
                    double el = bench_now() - t0;
                    if (el >= opt.target_s / 10 || n >= (1L << 30)) {
                        n = bench_scale(n, el, opt.target_s);
                        break;
                    }
                }
                for (int k = 0; k < opt.trials; k++) {
                    double t0 = bench_now();
                    loop((enum op)op, n);
                    t[k] = (bench_now() - t0) / (double)n;
                }
                char name[32];
                snprintf(name, sizeof name, "waits_%s", state_name[s]);
                bench_report(name, npes, op_name[op], bench_median(t, opt.trials), 0, "us");
                release((enum state)s, epoch);
            }
            shmem_barrier_all();
        }
}

/* ---- halo ---------------------------------------------------------------------- */
#define HALO_COLS 1024
#define HALO_ROWS 128 /* per PE */
#define HALO_ITERS 50 /* per trial */

struct halo {                     /* symmetric */
    double in[2][2][HALO_COLS];   /* [iteration parity][0: from above, 1: from below] */
    int flag;                     /* incremented by both neighbours each iteration */
};

static void halo(void)
{
    if (npes < 2) return;
    struct halo *h = shmem_calloc(1, sizeof *h);
    double *a = malloc(sizeof(double) * HALO_ROWS * HALO_COLS);
    double *b = malloc(sizeof(double) * HALO_ROWS * HALO_COLS);
    if (!h || !a || !b) {
        fprintf(stderr, "bench_waits: halo: out of memory\n");
        shmem_global_exit(1);
    }
    for (int i = 0; i < HALO_ROWS * HALO_COLS; i++) a[i] = (double)((i * 7 + me * 13) % 101);
    int up = (me + npes - 1) % npes, down = (me + 1) % npes;
    long it = 0;
    shmem_barrier_all();
    double t[BENCH_MAX_TRIALS];
    for (int k = -1; k < opt.trials; k++) { /* k = -1: warm-up */
        double t0 = bench_now();
        for (int n = 0; n < HALO_ITERS; n++, it++) {
            int par = (int)(it & 1);
            /* my first row is the upper neighbour's halo from below, my last row the
             * lower neighbour's halo from above */
            shmem_putmem(h->in[par][1], a, sizeof(double) * HALO_COLS, up);
            shmem_putmem(h->in[par][0], a + (HALO_ROWS - 1) * HALO_COLS,
                         sizeof(double) * HALO_COLS, down);
            shmem_fence();
            shmem_int_atomic_inc(&h->flag, up);
            shmem_int_atomic_inc(&h->flag, down);
            shmem_int_wait_until(&h->flag, SHMEM_CMP_GE, (int)(2 * (it + 1)));
            for (int r = 0; r < HALO_ROWS; r++) {
                const double *above = r ? a + (r - 1) * HALO_COLS : h->in[par][0];
                const double *below = r < HALO_ROWS - 1 ? a + (r + 1) * HALO_COLS : h->in[par][1];
                const double *row = a + r * HALO_COLS;
                double *out = b + r * HALO_COLS;
                out[0] = row[0];
                out[HALO_COLS - 1] = row[HALO_COLS - 1];
                for (int c = 1; c < HALO_COLS - 1; c++)
                    out[c] = 0.2 * (row[c] + row[c - 1] + row[c + 1] + above[c] + below[c]);
            }
            double *x = a; a = b; b = x;
        }
        if (k >= 0) t[k] = (bench_now() - t0) / HALO_ITERS;
    }
    sink = a[HALO_COLS + 1];
    if (me == 0) {
        double per = bench_median(t, opt.trials);
        bench_report("halo", npes, "iter", per, 0, "us");
        /* 5 flops per interior point, every PE */
        double flops = 5.0 * HALO_ROWS * (HALO_COLS - 2) * npes;
        printf("bench halo %d mflops %.1f MFlop/s\n", npes, flops / per / 1e6);
    }
    shmem_barrier_all();
    free(a);
    free(b);
    shmem_free(h);
}

/* The OSU-shaped rows: which collective, and its bytes per PE. */
enum osu { OSU_BCAST, OSU_COLLECT, OSU_FCOLLECT, OSU_REDUCE, OSU_ALLTOALL, OSU_COUNT };
static const char *osu_name[OSU_COUNT] = { "osubcast", "osucollect", "osufcollect", "osureduce",
                                           "osualltoall" };
#define OSU_MAX 1024 /* largest size per PE */
static char *osrc, *odst; /* symmetric, npes * OSU_MAX bytes each */
static long *opwrk;       /* 1.4 reductions' pWrk */

/* One collective of `bytes` per PE (the OSU tests' calls; 1.4 libraries: the
 * 64-bit forms with an active set and pSync, a barrier after each keeps pSync
 * reusable, as in OSU). */
static void osu_call(enum osu c, size_t bytes)
{
    size_t nl = bytes / 8;
#if BENCH_15
    switch (c) {
    case OSU_BCAST: shmem_broadcastmem(SHMEM_TEAM_WORLD, odst, osrc, bytes, 0); break;
    case OSU_COLLECT: shmem_collectmem(SHMEM_TEAM_WORLD, odst, osrc, bytes); break;
    case OSU_FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, odst, osrc, bytes); break;
    case OSU_REDUCE: shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)odst, (long *)osrc, nl); break;
    case OSU_ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, odst, osrc, bytes); break;
    default: break;
    }
#else
    switch (c) {
    case OSU_BCAST: shmem_broadcast64(odst, osrc, nl, 0, 0, 0, npes, W->psync); break;
    case OSU_COLLECT: shmem_collect64(odst, osrc, nl, 0, 0, npes, W->psync); break;
    case OSU_FCOLLECT: shmem_fcollect64(odst, osrc, nl, 0, 0, npes, W->psync); break;
    case OSU_REDUCE:
        shmem_long_sum_to_all((long *)odst, (long *)osrc, (int)nl, 0, 0, npes, opwrk, W->psync);
        break;
    case OSU_ALLTOALL: shmem_alltoall64(odst, osrc, nl, 0, 0, npes, W->psync); break;
    default: break;
    }
#endif
}

/* Mean time of one collective over n, timed alone, a barrier after each. */
static double osu_loop(enum osu c, size_t bytes, long n)
{
    double sum = 0;
    for (long i = 0; i < n; i++) {
        double t0 = bench_now();
        osu_call(c, bytes);
        sum += bench_now() - t0;
        shmem_barrier_all();
    }
    return sum / (double)n;
}

static void osu_row(enum osu c, size_t bytes)
{
    for (int i = 0; i < 64; i++) W->psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    osu_loop(c, bytes, 20); /* warm-up */
    long n = 1;
    for (;; n *= 4) { /* PE 0 calibrates on the whole loop (barriers included) */
        double t0 = bench_now();
        osu_loop(c, bytes, n);
        double el = bench_now() - t0;
        uint64_t next = 0;
        if (me == 0 && (el >= opt.target_s / 10 || n >= (1L << 24))) {
            next = (uint64_t)bench_scale(n, el, opt.target_s);
            for (int pe = 0; pe < npes; pe++) shmem_uint64_p(&W->share, next, pe);
            shmem_quiet();
        }
        shmem_barrier_all();
        next = *(volatile uint64_t *)&W->share;
        shmem_barrier_all();
        if (next) {
            n = (long)next;
            break;
        }
    }
    double t[BENCH_MAX_TRIALS];
    for (int k = 0; k < opt.trials; k++) {
        double mine = osu_loop(c, bytes, n);
        shmem_double_p(&W->res[me], mine, 0);
        shmem_barrier_all();
        double sum = 0;
        for (int pe = 0; pe < npes; pe++) sum += W->res[pe];
        t[k] = sum / npes;
        shmem_barrier_all();
    }
    W->share = 0;
    char metric[32];
    snprintf(metric, sizeof metric, bytes >= 1024 ? "lat_%zuKiB" : "lat_%zuB",
             bytes >= 1024 ? bytes / 1024 : bytes);
    if (me == 0) bench_report(osu_name[c], npes, metric, bench_median(t, opt.trials), 0, "us");
    shmem_barrier_all();
}

/* Every OSU-shaped row selected by --only ("osu" selects them all). */
static void osu(void)
{
    if (npes > 1024) return;
    osrc = shmem_malloc((size_t)npes * OSU_MAX);
    odst = shmem_malloc((size_t)npes * OSU_MAX);
    long nw = OSU_MAX / 8 / 2 + 1;
    if (nw < SHMEM_REDUCE_MIN_WRKDATA_SIZE) nw = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    opwrk = shmem_malloc((size_t)nw * sizeof *opwrk);
    if (!osrc || !odst || !opwrk) {
        fprintf(stderr, "bench_waits: shmem_malloc failed\n");
        shmem_global_exit(1);
    }
    memset(osrc, me + 1, (size_t)npes * OSU_MAX);
    static const size_t sizes[] = { 8, 1024 };
    int all = bench_opt_want(&opt, "osu");
    for (int c = 0; c < OSU_COUNT; c++)
        if (all || bench_opt_want(&opt, osu_name[c]))
            for (int k = 0; k < 2; k++) osu_row((enum osu)c, sizes[k]);
    shmem_barrier_all();
    shmem_free(opwrk);
    shmem_free(odst);
    shmem_free(osrc);
}

int main(int argc, char **argv)
{
    int rc = bench_opt_parse(&opt, argc, argv,
                             "waits,osu,osubcast,osucollect,osufcollect,osureduce,osualltoall,"
                             "halo");
    if (rc) return rc < 0 ? 2 : 0;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    W = shmem_calloc(1, sizeof *W);
    if (!W) {
        fprintf(stderr, "bench_waits: shmem_calloc failed\n");
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    if (bench_opt_want(&opt, "waits")) waits();
    osu();
    if (bench_opt_want(&opt, "halo")) halo();
    shmem_barrier_all();
    shmem_free(W);
    shmem_finalize();
    return 0;
}
