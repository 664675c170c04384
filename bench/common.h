/* Shared by every program in bench/: one option parser, one clock, medians and the one
 * output format.  No OpenSHMEM here, so limits.c can use it without a library.
 *
 * Every result is one line on stdout:
 *     bench <name> <pes> <metric> <median> <unit>
 * where <median> is the median over --trials trials of the per-iteration value; each
 * trial is a timed loop whose iteration count was calibrated to last about --target-ms.
 * Anything else a program prints starts with '#' (notes) or goes to stderr. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>

#define BENCH_MAX_TRIALS 101

struct bench_opt {
    int         trials;     /* timed trials per metric; the median is reported */
    double      target_s;   /* wall time one trial should take */
    const char *only;       /* comma-separated benchmark names, NULL = all */
    int         idle_wait;  /* idle PEs wait in shmem_long_wait_until, not test + nap */
};

/* Parses argv into *o.  names: the benchmark names this program knows, for --help.
 * Returns 0 to run, 1 when --help was printed (exit 0), -1 on a bad option (the message
 * is already on stderr; exit non-zero). */
int bench_opt_parse(struct bench_opt *o, int argc, char **argv, const char *names);

/* 1 when benchmark `name` was selected by --only (or --only was not given). */
int bench_opt_want(const struct bench_opt *o, const char *name);

/* Monotonic wall clock in seconds. */
double bench_now(void);

/* Median of v[0..n-1]; sorts v in place.  n >= 1. */
double bench_median(double *v, int n);

/* Iteration count for one trial: n iterations took `elapsed` seconds, aim for `target`.
 * Always >= 1. */
long bench_scale(long n, double elapsed, double target);

/* The one result line.  unit "us" takes seconds per iteration and prints microseconds;
 * unit "GB/s" takes seconds per iteration of `bytes` bytes and prints 1e9 bytes/s. */
void bench_report(const char *name, int pes, const char *metric, double sec_per_iter,
                  size_t bytes, const char *unit);

#endif
