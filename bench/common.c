/* Option parser, clock, median and result printing shared by bench.c and limits.c.
 * See common.h for the output format; compare.sh and docs/performance.md rely on it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f, const char *prog, const char *names)
{
    fprintf(f,
            "usage: %s [--quick] [--trials N] [--target-ms MS] [--only NAME[,NAME...]] [--idle-wait]\n"
            "  --quick        7 trials of ~20 ms each instead of 21 of ~40 ms\n"
            "  --trials N     timed trials per metric (median reported), 1..%d\n"
            "  --target-ms MS wall time of one trial; iterations are calibrated to it\n"
            "  --only NAMES   run only these benchmarks: %s\n"
            "  --idle-wait    PEs a benchmark leaves idle block in shmem_long_wait_until\n"
            "                 instead of polling shmem_long_test with 0.2 ms naps (for\n"
            "                 libraries that progress a network only inside blocking calls)\n"
            "output: 'bench <name> <pes> <metric> <median> <unit>' lines\n",
            prog, BENCH_MAX_TRIALS, names);
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : 0.0;
    if (!s || end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "bench: %s needs a number in [%g, %g], got '%s'\n", opt, lo, hi,
                s ? s : "(nothing)");
        return -1;
    }
    *out = v;
    return 0;
}

int bench_opt_parse(struct bench_opt *o, int argc, char **argv, const char *names)
{
    o->trials = 21;
    o->target_s = 0.040;
    o->only = NULL;
    o->idle_wait = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (strcmp(a, "--quick") == 0) {
            o->trials = 7;
            o->target_s = 0.020;
        } else if (strcmp(a, "--trials") == 0) {
            if (parse_num(a, i + 1 < argc ? argv[++i] : NULL, 1, BENCH_MAX_TRIALS, &v))
                return -1;
            o->trials = (int)v;
        } else if (strcmp(a, "--target-ms") == 0) {
            if (parse_num(a, i + 1 < argc ? argv[++i] : NULL, 0.1, 10000, &v))
                return -1;
            o->target_s = v / 1000.0;
        } else if (strcmp(a, "--idle-wait") == 0) {
            o->idle_wait = 1;
        } else if (strcmp(a, "--only") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "bench: --only needs a name list, one of: %s\n", names);
                return -1;
            }
            o->only = argv[++i];
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, argv[0], names);
            return 1;
        } else {
            fprintf(stderr, "bench: unknown option '%s'\n", a);
            usage(stderr, argv[0], names);
            return -1;
        }
    }
    return 0;
}

int bench_opt_want(const struct bench_opt *o, const char *name)
{
    if (!o->only)
        return 1;
    size_t n = strlen(name);
    for (const char *p = o->only; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

long bench_scale(long n, double elapsed, double target)
{
    if (elapsed <= 0)
        return n * 8;
    double want = (double)n * target / elapsed;
    if (want < 1)
        return 1;
    if (want > 1e9)
        return 1000000000L;
    return (long)want;
}

void bench_report(const char *name, int pes, const char *metric, double sec_per_iter,
                  size_t bytes, const char *unit)
{
    double v = strcmp(unit, "GB/s") == 0 ? (double)bytes / sec_per_iter / 1e9
                                          : sec_per_iter * 1e6;
    /* Fixed notation (no exponents) with ~4 significant digits for the usual ranges. */
    const char *fmt = v >= 100 ? "%.1f" : v >= 1 ? "%.3f" : "%.4f";
    char num[64];
    snprintf(num, sizeof num, fmt, v);
    printf("bench %s %d %s %s %s\n", name, pes, metric, num, unit);
    fflush(stdout);
}
