/* bench_init.c - cost per byte of each initialization strategy (issue 4)
 * against a plain loop writing the same values.
 *
 *   symrun -n N build/bench/bench_init [--quick] [--only NAMES]
 *
 * Every PE initializes SIZE bytes (doubles, value i * 0.5 + pe).  Each
 * iteration is: untimed preparation (e.g. punch the pages out again), barrier,
 * timed operation, barrier; so collective strategies pay their barriers like
 * the plain loop pays its closing one.  Output: one 'bench init_<name> <pes>
 * fill <GB/s> GB/s' line per strategy (bytes initialized per PE per second,
 * median of the trials), then '#' lines with ns per byte and the ratio to the
 * plain loop on the same kind of memory (already-touched pages for the eager
 * strategies, fresh pages for lazy).  Names:
 *   plain        a[i] = f(i) loop on touched memory (the baseline)
 *   plain_fresh  the same loop on fresh pages (page faults included)
 *   local_elem   shmemx_init_local, element function
 *   local_range  shmemx_init_local, range function
 *   local_value  shmemx_init_local, constant
 *   root         shmemx_init_root (root fills, the others copy)
 *   dist         shmemx_dist_init, BLOCK layout, each PE owns SIZE bytes
 *   dist_gather  the same plus all-gather (bytes: the whole array, per PE)
 *   lazy         first touch of every element of a lazy array (vs plain_fresh)
 *   lazy_64k     the same with 64 KiB blocks (one fault per 16 pages)
 *   lazy_get     shmemx_lazy_get of a neighbour's untouched copy (fill-on-read)
 * Uses common.c's options and output format (see bench/common.h). */
#include "common.h"

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SIZE ((size_t)32 << 20)
#define NEL (SIZE / sizeof(double))
#define NAMES "plain,plain_fresh,local_elem,local_range,local_value,root,dist,dist_gather,lazy,lazy_64k,lazy_get"

static int me, npes;
static double *arr;          /* symmetric, SIZE bytes */
static double *gathered;     /* private, SIZE * npes bytes */
static shmemx_dist_t dist;
static double *lazy;
static double sink;

static inline double f(size_t i, int pe) { return (double)i * 0.5 + pe; }
static void elem_fn(void *out, size_t i, int pe, void *ctx)
{
    (void)ctx;
    *(double *)out = f(i, pe);
}
static void range_fn(void *out, size_t first, size_t count, int pe, void *ctx)
{
    (void)ctx;
    double *o = out;
    for (size_t k = 0; k < count; k++) o[k] = f(first + k, pe);
}

/* Give the pages back: the next write takes a fresh (zeroed) page. */
static void punch(void *p, size_t n)
{
    if (madvise(p, n, MADV_REMOVE) != 0) {
        perror("bench_init: madvise(MADV_REMOVE)");
        shmem_global_exit(1);
    }
}

static void op_plain(void)
{
    for (size_t i = 0; i < NEL; i++) arr[i] = f(i, me);
}
static void op_local_elem(void) { shmemx_init_local(arr, NEL, 8, SHMEMX_FILL_ELEM(elem_fn, NULL)); }
static void op_local_range(void) { shmemx_init_local(arr, NEL, 8, SHMEMX_FILL_RANGE(range_fn, NULL)); }
static void op_local_value(void)
{
    double v = 1.5;
    shmemx_init_local(arr, NEL, 8, SHMEMX_FILL_VALUE(&v));
}
static void op_root(void) { shmemx_init_root(arr, NEL, 8, SHMEMX_FILL_RANGE(range_fn, NULL), 0); }
static void op_dist(void) { shmemx_dist_init(dist, SHMEMX_FILL_RANGE(range_fn, NULL), NULL); }
static void op_dist_gather(void) { shmemx_dist_init(dist, SHMEMX_FILL_RANGE(range_fn, NULL), gathered); }
static void prep_fresh(void) { punch(arr, SIZE); }
static void prep_lazy(void) { lazy = shmemx_lazy_alloc(NEL, 8, 0, SHMEMX_FILL_RANGE(range_fn, NULL)); }
static void prep_lazy64(void)
{
    lazy = shmemx_lazy_alloc(NEL, 8, 64 << 10, SHMEMX_FILL_RANGE(range_fn, NULL));
}
static void done_lazy(void) { shmemx_lazy_free(lazy); }
static void op_lazy(void)
{
    double s = 0;
    for (size_t i = 0; i < NEL; i++) s += lazy[i];
    sink += s;
}
static void op_lazy_get(void) { shmemx_lazy_get(gathered, lazy, SIZE, (me + 1) % npes); }

struct bench {
    const char *name;
    void (*prep)(void), (*op)(void), (*done)(void);
    int per_pe_bytes_times_npes; /* bytes = SIZE * npes (all-gather) */
    const char *baseline;        /* ratio against this one */
};

static const struct bench benches[] = {
    { "plain", NULL, op_plain, NULL, 0, NULL },
    { "plain_fresh", prep_fresh, op_plain, NULL, 0, NULL },
    { "local_elem", NULL, op_local_elem, NULL, 0, "plain" },
    { "local_range", NULL, op_local_range, NULL, 0, "plain" },
    { "local_value", NULL, op_local_value, NULL, 0, "plain" },
    { "root", NULL, op_root, NULL, 0, "plain" },
    { "dist", NULL, op_dist, NULL, 0, "plain" },
    { "dist_gather", NULL, op_dist_gather, NULL, 1, "plain" },
    { "lazy", prep_lazy, op_lazy, done_lazy, 0, "plain_fresh" },
    { "lazy_64k", prep_lazy64, op_lazy, done_lazy, 0, "plain_fresh" },
    { "lazy_get", prep_lazy, op_lazy_get, done_lazy, 0, "plain" },
};
#define NB (sizeof benches / sizeof *benches)

/* Seconds of n timed iterations (preparation untimed). */
static double run_n(const struct bench *b, long n)
{
    double t = 0;
    for (long k = 0; k < n; k++) {
        if (b->prep) b->prep();
        shmem_barrier_all();
        double t0 = bench_now();
        b->op();
        shmem_barrier_all();
        t += bench_now() - t0;
        if (b->done) b->done();
    }
    return t;
}

/* PE 0's value, on every PE (iteration counts must agree: collectives). */
static long agree(long v)
{
    static long slot;
    if (me == 0) slot = v;
    shmem_barrier_all();
    long r = shmem_long_g(&slot, 0);
    shmem_barrier_all();
    return r;
}

int main(int argc, char **argv)
{
    struct bench_opt o;
    int rc = bench_opt_parse(&o, argc, argv, NAMES);
    if (rc) return rc < 0 ? 2 : 0;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    arr = shmem_align(4096, SIZE); /* page-aligned: punch() works on whole pages */
    gathered = malloc(SIZE * (size_t)npes);
    dist = shmemx_dist_create(NEL * (size_t)npes, 8, SHMEMX_LAYOUT_BLOCK);
    if (!arr || !gathered || !dist) {
        if (me == 0) fprintf(stderr, "bench_init: needs %zu MiB of symmetric heap per PE\n", 2 * SIZE >> 20);
        shmem_global_exit(1);
    }
    memset(arr, 0, SIZE);
    memset(gathered, 0, SIZE * (size_t)npes);
    double nsb[NB] = { 0 };
    if (me == 0) printf("# bench_init: %zu MiB per PE, %d PEs\n", SIZE >> 20, npes);
    for (size_t k = 0; k < NB; k++) {
        const struct bench *b = &benches[k];
        if (!bench_opt_want(&o, b->name)) continue;
        long n = agree(bench_scale(1, run_n(b, 1), o.target_s)); /* also a warm-up */
        double per[BENCH_MAX_TRIALS];
        for (int t = 0; t < o.trials; t++) per[t] = run_n(b, n) / (double)n;
        double med = bench_median(per, o.trials);
        size_t bytes = SIZE * (b->per_pe_bytes_times_npes ? (size_t)npes : 1);
        nsb[k] = med / (double)bytes * 1e9;
        if (me != 0) continue;
        char name[64];
        snprintf(name, sizeof name, "init_%s", b->name);
        bench_report(name, npes, "fill", med, bytes, "GB/s");
        double base = 0;
        for (size_t j = 0; b->baseline && j < NB; j++)
            if (!strcmp(benches[j].name, b->baseline)) base = nsb[j];
        if (base > 0)
            printf("# init_%s: %.4f ns/B, %.2fx the %s loop\n", b->name, nsb[k], nsb[k] / base,
                   b->baseline);
        else
            printf("# init_%s: %.4f ns/B\n", b->name, nsb[k]);
    }
    if (sink == 12345.0) printf("#\n");
    shmemx_dist_destroy(dist);
    free(gathered);
    shmem_free(arr);
    shmem_finalize();
    return 0;
}
