/* bench.c: latency and bandwidth of one OpenSHMEM implementation.  The same source builds
 * against symheap (CMake target bench_symheap, or symcc) and against Open MPI's OSHMEM
 * (oshcc), so compare.sh can put the two side by side.  Only the standard C API is used;
 * the one 1.5-only call (team broadcast) is guarded, see bcast().
 *
 * Roles.  Point-to-point tests go from PE 0 to PE 1.  The PEs not taking part ("passive")
 * sleep until PE 0 releases them instead of spinning in a barrier: on an oversubscribed
 * node (4 or 8 PEs on 2 CPUs) a spinning bystander would steal the CPU of a timed PE and
 * we would measure the scheduler.  Collective tests run on all PEs and PE 0's clock is
 * reported.
 *
 * Timing.  Each metric: one untimed warm-up iteration, then the iteration count is
 * calibrated by PE 0 (growing 8x until a loop takes a tenth of --target-ms) and shared,
 * then --trials timed loops; the median of the per-iteration times is printed as
 *     bench <name> <pes> <metric> <median> <unit>
 * (format in common.h).  Bandwidth is bytes moved per second, 1 GB = 1e9 bytes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

/* The team broadcast is OpenSHMEM 1.5; OSHMEM 4.1 implements 1.4, where the broadcast
 * takes an active set and a pSync array instead.  An undefined macro reads as 0 here. */
#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define BENCH_TEAMS 1
#else
#define BENCH_TEAMS 0
#endif

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

/* Indices into ctx.cell, one cache line apart so the tests don't share a line. */
enum { CELL_PUT = 0, CELL_FADD = 8, CELL_PING = 16, CELL_PONG = 24, CELL_LONGS = 32 };

enum who { ORIGIN, PAIR, ALL };              /* which PEs run the timed loop */
enum { USE_BIG = 1, USE_BCAST = 2, USE_COLL = 4, USE_PSYNC = 8 }; /* buffers a test needs */

struct ctx {
    const struct bench_opt *o;
    int    me, npes;
    size_t big_len;     /* bytes of big and priv, 0 if no test needs them */
    char  *big;         /* symmetric: remote side of the put/get bandwidth tests */
    char  *priv;        /* private: local side of the put/get bandwidth tests */
    char  *bsrc, *bdst; /* symmetric, 1 MiB each: broadcast source and destination */
    char  *csrc, *cdst; /* symmetric, npes MiB each: fcollect/alltoall/reduce buffers */
    long  *pwrk;        /* symmetric: pWrk of the 1.4 reduction, NULL with teams */
    long  *cell;        /* symmetric, CELL_LONGS longs: p/g/fadd targets, ping-pong flags */
    long  *share;       /* symmetric: PE 0 -> all PEs, calibrated iteration counts */
    long  *done;        /* symmetric: PE 0 releases passive PEs by raising it to seq */
    long  *psync;       /* symmetric: pSync of the 1.4 collectives (bcast14 and OSHMEM) */
    long   seq;         /* trials started so far, equal on all PEs */
    long   pp;          /* ping-pong iterations so far, equal on PEs 0 and 1 */
};

struct test {
    const char *name, *metric, *unit;
    enum who    who;
    int         min_pes;
    size_t      bytes;  /* payload per iteration (bandwidth, malloc and broadcast size) */
    int         msgs;   /* one-way messages per iteration; the time is divided by it */
    int         uses;   /* USE_* */
    long        live;   /* malloc tests: live blocks (with holes between) held meanwhile */
    void (*body)(struct ctx *c, long iters, size_t bytes);
};

static volatile long sink; /* keeps fetched values alive */

static void die(const struct ctx *c, const char *what, size_t bytes)
{
    fprintf(stderr,
            "[pe %d] bench: %s of %zu bytes failed; the symmetric heap may be too small,"
            " try SHMEM_SYMMETRIC_SIZE=512M\n",
            c->me, what, bytes);
    shmem_global_exit(1);
}

static void put_lat(struct ctx *c, long n, size_t bytes)
{
    (void)bytes;
    for (long i = 0; i < n; i++) {
        shmem_long_p(&c->cell[CELL_PUT], i, 1);
        shmem_quiet();
    }
}

static void get_lat(struct ctx *c, long n, size_t bytes)
{
    long s = 0;
    (void)bytes;
    for (long i = 0; i < n; i++)
        s += shmem_long_g(&c->cell[CELL_PUT], 1);
    sink = s;
}

static void fadd_lat(struct ctx *c, long n, size_t bytes)
{
    long s = 0;
    (void)bytes;
    for (long i = 0; i < n; i++)
        s += shmem_long_atomic_fetch_add(&c->cell[CELL_FADD], 1, 1);
    sink = s;
}

/* PE 0 writes v into PE 1's PING cell, PE 1 answers with v in PE 0's PONG cell.  Values
 * keep growing across trials (c->pp), so no cell has to be reset between trials. */
static void pingpong(struct ctx *c, long n, size_t bytes)
{
    (void)bytes;
    for (long i = 1; i <= n; i++) {
        long v = c->pp + i;
        if (c->me == 0) {
            shmem_long_p(&c->cell[CELL_PING], v, 1);
            shmem_long_wait_until(&c->cell[CELL_PONG], SHMEM_CMP_GE, v);
        } else {
            shmem_long_wait_until(&c->cell[CELL_PING], SHMEM_CMP_GE, v);
            shmem_long_p(&c->cell[CELL_PONG], v, 0);
        }
    }
    c->pp += n;
}

static void barrier(struct ctx *c, long n, size_t bytes)
{
    (void)c;
    (void)bytes;
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
}

/* Many puts, one quiet: the usual streaming pattern. */
static void put_bw(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++)
        shmem_putmem(c->big, c->priv, bytes, 1);
    shmem_quiet();
}

static void get_bw(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++)
        shmem_getmem(c->priv, c->big, bytes, 1);
}

static void malloc_free(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
        void *p = shmem_malloc(bytes);
        if (!p)
            die(c, "shmem_malloc", bytes);
        shmem_free(p);
    }
}

/* Broadcast from PE 0, then barrier_all.  The barrier is there because the 1.4 API may
 * reuse pSync only after every PE has left the previous call; the 1.5 path keeps it too
 * so both implementations are timed doing the same thing.  Subtract the barrier line for
 * the broadcast alone. */
static void bcast(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
#if BENCH_TEAMS
        if (shmem_broadcastmem(SHMEM_TEAM_WORLD, c->bdst, c->bsrc, bytes, 0) != 0)
            die(c, "shmem_broadcastmem", bytes);
#else
        shmem_broadcast64(c->bdst, c->bsrc, bytes / 8, 0, 0, 0, c->npes, c->psync);
#endif
        shmem_barrier_all();
    }
}

/* The 1.4 broadcast (an active set and pSync) in both libraries, as OpenSHMEM 1.4
 * programs call it, then barrier_all (pSync reuse): symheap's deprecated path. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static void bcast14(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
        shmem_broadcast64(c->bdst, c->bsrc, bytes / 8, 0, 0, 0, c->npes, c->psync);
        shmem_barrier_all();
    }
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Per-PE block of `bytes`: dest gets every PE's block (npes * bytes). */
static void fcollect(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
#if BENCH_TEAMS
        if (shmem_fcollectmem(SHMEM_TEAM_WORLD, c->cdst, c->csrc, bytes) != 0)
            die(c, "shmem_fcollectmem", bytes);
#else
        shmem_fcollect64(c->cdst, c->csrc, bytes / 8, 0, 0, c->npes, c->psync);
#endif
        shmem_barrier_all();
    }
}

/* Block of `bytes` from every PE to every PE (source and dest npes * bytes). */
static void alltoall(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
#if BENCH_TEAMS
        if (shmem_alltoallmem(SHMEM_TEAM_WORLD, c->cdst, c->csrc, bytes) != 0)
            die(c, "shmem_alltoallmem", bytes);
#else
        shmem_alltoall64(c->cdst, c->csrc, bytes / 8, 0, 0, c->npes, c->psync);
#endif
        shmem_barrier_all();
    }
}

/* Sum of `bytes / 8` longs over all PEs, result on all PEs. */
static void reduce(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
#if BENCH_TEAMS
        if (shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)c->cdst, (const long *)c->csrc,
                                  bytes / 8) != 0)
            die(c, "shmem_long_sum_reduce", bytes);
#else
        shmem_long_sum_to_all((long *)c->cdst, (long *)c->csrc, (int)(bytes / 8), 0, 0,
                              c->npes, c->pwrk, c->psync);
#endif
        shmem_barrier_all();
    }
}

/* One message of `bytes` and its completion: latency against message size (the plot). */
static void put_size(struct ctx *c, long n, size_t bytes)
{
    for (long i = 0; i < n; i++) {
        shmem_putmem(c->big, c->priv, bytes, 1);
        shmem_quiet();
    }
}

static const struct test tests[] = {
    /* name       metric       unit    who     pes bytes      msgs uses       live body */
    { "put",      "lat_8B",    "us",   ORIGIN, 2, 8,         1, 0,         0, put_lat },
    { "get",      "lat_8B",    "us",   ORIGIN, 2, 8,         1, 0,         0, get_lat },
    { "fadd",     "lat_8B",    "us",   ORIGIN, 2, 8,         1, 0,         0, fadd_lat },
    { "pingpong", "oneway_8B", "us",   PAIR,   2, 8,         2, 0,         0, pingpong },
    { "barrier",  "lat",       "us",   ALL,    1, 0,         1, 0,         0, barrier },
    { "put",      "bw_1MiB",   "GB/s", ORIGIN, 2, MiB,       1, USE_BIG,   0, put_bw },
    { "get",      "bw_1MiB",   "GB/s", ORIGIN, 2, MiB,       1, USE_BIG,   0, get_bw },
    { "put",      "bw_64MiB",  "GB/s", ORIGIN, 2, 64 * MiB,  1, USE_BIG,   0, put_bw },
    { "get",      "bw_64MiB",  "GB/s", ORIGIN, 2, 64 * MiB,  1, USE_BIG,   0, get_bw },
    { "malloc",   "lat_64B",   "us",   ALL,    1, 64,        1, 0,         0, malloc_free },
    { "malloc",   "lat_4KiB",  "us",   ALL,    1, 4 * KiB,   1, 0,         0, malloc_free },
    { "malloc",   "lat_1MiB",  "us",   ALL,    1, MiB,       1, 0,         0, malloc_free },
    { "mlive",    "live10",    "us",   ALL,    1, 4 * KiB,   1, 0,        10, malloc_free },
    { "mlive",    "live1000",  "us",   ALL,    1, 4 * KiB,   1, 0,      1000, malloc_free },
    { "mlive",    "live100000","us",   ALL,    1, 4 * KiB,   1, 0,    100000, malloc_free },
    { "bcast",    "lat_8B",    "us",   ALL,    1, 8,         1, USE_BCAST, 0, bcast },
    { "bcast",    "lat_1MiB",  "us",   ALL,    1, MiB,       1, USE_BCAST, 0, bcast },
    { "bcast14",  "lat_8B",    "us",   ALL,    1, 8,         1, USE_BCAST | USE_PSYNC, 0, bcast14 },
    { "fcollect", "lat_8B",    "us",   ALL,    1, 8,         1, USE_COLL,  0, fcollect },
    { "fcollect", "lat_1MiB",  "us",   ALL,    1, MiB,       1, USE_COLL,  0, fcollect },
    { "alltoall", "lat_8B",    "us",   ALL,    1, 8,         1, USE_COLL,  0, alltoall },
    { "alltoall", "lat_1MiB",  "us",   ALL,    1, MiB,       1, USE_COLL,  0, alltoall },
    { "reduce",   "lat_8B",    "us",   ALL,    1, 8,         1, USE_COLL,  0, reduce },
    { "reduce",   "lat_1MiB",  "us",   ALL,    1, MiB,       1, USE_COLL,  0, reduce },
    /* sizes for the plot (compare.sh asks for these by name) */
    { "putsize",  "lat_8B",    "us",   ORIGIN, 2, 8,         1, USE_BIG,   0, put_size },
    { "putsize",  "lat_64B",   "us",   ORIGIN, 2, 64,        1, USE_BIG,   0, put_size },
    { "putsize",  "lat_512B",  "us",   ORIGIN, 2, 512,       1, USE_BIG,   0, put_size },
    { "putsize",  "lat_4KiB",  "us",   ORIGIN, 2, 4 * KiB,   1, USE_BIG,   0, put_size },
    { "putsize",  "lat_32KiB", "us",   ORIGIN, 2, 32 * KiB,  1, USE_BIG,   0, put_size },
    { "putsize",  "lat_256KiB","us",   ORIGIN, 2, 256 * KiB, 1, USE_BIG,   0, put_size },
    { "putsize",  "lat_1MiB",  "us",   ORIGIN, 2, MiB,       1, USE_BIG,   0, put_size },
    { "putsize",  "lat_4MiB",  "us",   ORIGIN, 2, 4 * MiB,   1, USE_BIG,   0, put_size },
    { "bcastsize","lat_8B",    "us",   ALL,    1, 8,         1, USE_BCAST, 0, bcast },
    { "bcastsize","lat_64B",   "us",   ALL,    1, 64,        1, USE_BCAST, 0, bcast },
    { "bcastsize","lat_512B",  "us",   ALL,    1, 512,       1, USE_BCAST, 0, bcast },
    { "bcastsize","lat_4KiB",  "us",   ALL,    1, 4 * KiB,   1, USE_BCAST, 0, bcast },
    { "bcastsize","lat_32KiB", "us",   ALL,    1, 32 * KiB,  1, USE_BCAST, 0, bcast },
    { "bcastsize","lat_256KiB","us",   ALL,    1, 256 * KiB, 1, USE_BCAST, 0, bcast },
    { "bcastsize","lat_1MiB",  "us",   ALL,    1, MiB,       1, USE_BCAST, 0, bcast },
};
#define NTESTS (sizeof tests / sizeof tests[0])
#define NAMES \
    "put,get,fadd,pingpong,barrier,malloc,mlive,bcast,bcast14,fcollect,alltoall,reduce,putsize," \
    "bcastsize"

static int active(const struct test *t, int me)
{
    return t->who == ALL || me == 0 || (t->who == PAIR && me == 1);
}

/* One loop of n iterations on the active PEs, between barriers; returns PE 0's time. */
static double trial(struct ctx *c, const struct test *t, long n)
{
    long seq = ++c->seq;
    double el = 0;
    shmem_barrier_all();
    if (active(t, c->me)) {
        double t0 = bench_now();
        t->body(c, n, t->bytes);
        el = bench_now() - t0;
        if (c->me == 0 && t->who != ALL) {
            for (int pe = t->who == PAIR ? 2 : 1; pe < c->npes; pe++)
                shmem_long_p(c->done, seq, pe);
            shmem_quiet();
        }
    } else if (c->o->idle_wait) {
        /* Across hosts, OSHMEM over UCX/TCP moves PE 0's bytes into this PE only while
         * this PE is inside a blocking call: shmem_long_test does not progress, and PE 0's
         * shmem_quiet would wait forever for the acknowledgement (mn_test.sh bench). */
        shmem_long_wait_until(c->done, SHMEM_CMP_GE, seq);
    } else {
        const struct timespec nap = { 0, 200000 }; /* 0.2 ms: rare enough not to disturb */
        while (!shmem_long_test(c->done, SHMEM_CMP_GE, seq))
            nanosleep(&nap, NULL);
    }
    shmem_barrier_all();
    return el;
}

/* PE 0's v, seen by every PE.  Readers read before their next barrier and PE 0 writes
 * again only after a later one, so one cell suffices. */
static long share(struct ctx *c, long v)
{
    if (c->me == 0) {
        for (int pe = 0; pe < c->npes; pe++)
            shmem_long_p(c->share, v, pe);
        shmem_quiet();
    }
    shmem_barrier_all();
    return *(volatile long *)c->share;
}

static long calibrate(struct ctx *c, const struct test *t)
{
    double goal = c->o->target_s;
    trial(c, t, 1); /* warm-up: first touch, lazy connection setup */
    for (long n = 1;; n *= 8) {
        double el = trial(c, t, n);
        long next = 0;
        if (c->me == 0 && (el >= goal / 10 || n >= (1L << 30)))
            next = bench_scale(n, el, goal);
        next = share(c, next);
        if (next)
            return next;
    }
}

/* `count` live 64-byte blocks with a 64-byte hole after each (allocate 2 * count, free
 * every second one, last first), so a first-fit search for a bigger block would have to
 * walk past every hole.  Collective. */
static void **hold_live(struct ctx *c, long count)
{
    void **keep = malloc((size_t)count * sizeof *keep), **gap = malloc((size_t)count * sizeof *gap);
    if (!keep || !gap)
        die(c, "malloc (live block table)", (size_t)count * sizeof *keep);
    for (long i = 0; i < count; i++) {
        keep[i] = shmem_malloc(64);
        gap[i] = shmem_malloc(64);
        if (!keep[i] || !gap[i])
            die(c, "shmem_malloc (live blocks)", 64);
    }
    for (long i = count; i-- > 0;)
        shmem_free(gap[i]);
    free(gap);
    return keep;
}

static void run_test(struct ctx *c, const struct test *t)
{
    if (c->npes < t->min_pes) {
        if (c->me == 0)
            printf("# %s %s skipped: needs %d PEs\n", t->name, t->metric, t->min_pes);
        return;
    }
    void **live = t->live ? hold_live(c, t->live) : NULL;
    long n = calibrate(c, t);
    double v[BENCH_MAX_TRIALS];
    for (int k = 0; k < c->o->trials; k++)
        v[k] = trial(c, t, n) / (double)n / (double)t->msgs;
    if (c->me == 0)
        bench_report(t->name, c->npes, t->metric, bench_median(v, c->o->trials), t->bytes,
                     t->unit);
    if (live) {
        for (long i = t->live; i-- > 0;)
            shmem_free(live[i]);
        free(live);
    }
}

static void *sym_alloc(struct ctx *c, size_t bytes)
{
    void *p = shmem_malloc(bytes);
    if (!p)
        die(c, "shmem_malloc", bytes);
    memset(p, 0, bytes); /* first touch outside the timed loops */
    return p;
}

static void setup(struct ctx *c)
{
    int uses = 0;
    for (size_t i = 0; i < NTESTS; i++) {
        if (!bench_opt_want(c->o, tests[i].name) || c->npes < tests[i].min_pes)
            continue;
        uses |= tests[i].uses;
        if ((tests[i].uses & USE_BIG) && tests[i].bytes > c->big_len)
            c->big_len = tests[i].bytes;
    }
    c->cell = sym_alloc(c, CELL_LONGS * sizeof(long));
    c->share = sym_alloc(c, sizeof(long));
    c->done = sym_alloc(c, sizeof(long));
    if (uses & USE_BIG) {
        c->big = sym_alloc(c, c->big_len);
        c->priv = aligned_alloc(4096, c->big_len);
        if (!c->priv)
            die(c, "aligned_alloc (private buffer)", c->big_len);
        memset(c->priv, 1, c->big_len);
    }
    if (uses & USE_BCAST) {
        c->bsrc = sym_alloc(c, MiB);
        c->bdst = sym_alloc(c, MiB);
    }
    if (uses & USE_COLL) {
        c->csrc = sym_alloc(c, (size_t)c->npes * MiB);
        c->cdst = sym_alloc(c, (size_t)c->npes * MiB);
    }
    if ((uses & USE_PSYNC) || (!BENCH_TEAMS && (uses & (USE_BCAST | USE_COLL)))) {
        /* One pSync serves every 1.4 collective here: each call is followed by a
         * barrier_all, after which the pSync is back to SHMEM_SYNC_VALUE. */
        size_t ns = SHMEM_BCAST_SYNC_SIZE;
        ns = ns < SHMEM_COLLECT_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE : ns;
        ns = ns < SHMEM_REDUCE_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE : ns;
        ns = ns < SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_ALLTOALL_SYNC_SIZE : ns;
        c->psync = sym_alloc(c, ns * sizeof(long));
        for (size_t i = 0; i < ns; i++)
            c->psync[i] = SHMEM_SYNC_VALUE;
        size_t nw = MiB / 8 / 2 + 1;
        nw = nw < SHMEM_REDUCE_MIN_WRKDATA_SIZE ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : nw;
        c->pwrk = sym_alloc(c, nw * sizeof(long));
        shmem_barrier_all();
    }
    shmem_barrier_all();
}

static void teardown(struct ctx *c)
{
    shmem_barrier_all();
    if (c->pwrk)
        shmem_free(c->pwrk);
    if (c->psync)
        shmem_free(c->psync);
    if (c->cdst) {
        shmem_free(c->cdst);
        shmem_free(c->csrc);
    }
    if (c->bsrc) {
        shmem_free(c->bdst);
        shmem_free(c->bsrc);
    }
    if (c->big) {
        free(c->priv);
        shmem_free(c->big);
    }
    shmem_free(c->done);
    shmem_free(c->share);
    shmem_free(c->cell);
}

static void header(const struct ctx *c)
{
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    int major = 0, minor = 0;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    printf("# bench: %s, OpenSHMEM %d.%d, %d PEs, %d trials of ~%.0f ms, broadcast via %s\n",
           name, major, minor, c->npes, c->o->trials, c->o->target_s * 1e3,
           BENCH_TEAMS ? "shmem_broadcastmem (1.5)" : "shmem_broadcast64 (1.4)");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct bench_opt o;
    int rc = bench_opt_parse(&o, argc, argv, NAMES);
    if (rc)
        return rc < 0 ? 2 : 0;

    shmem_init();
    struct ctx c = { .o = &o, .me = shmem_my_pe(), .npes = shmem_n_pes() };
    setup(&c);
    if (c.me == 0)
        header(&c);
    for (size_t i = 0; i < NTESTS; i++)
        if (bench_opt_want(&o, tests[i].name))
            run_test(&c, &tests[i]);
    teardown(&c);
    shmem_finalize();
    return 0;
}
