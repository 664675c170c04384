/* limits.c: what this machine can do at best, measured the way bench.c measures an
 * OpenSHMEM library, so compare.sh can print "fraction of the hardware" next to each
 * library number.  No OpenSHMEM here.
 *
 *   memcpy    single-thread memcpy bandwidth for 1 MiB (cache-resident on most CPUs) and
 *             64 MiB (DRAM), bytes copied per second: the ceiling of a shared-memory put
 *             or get of that size.
 *   cacheline one-way latency of a cache line bounced between two processes through a
 *             MAP_SHARED mapping made before fork, pinned to two different CPUs when
 *             sched_setaffinity allows: the floor of a put + wait_until ping-pong.
 *
 * Same options and output format as bench.c (common.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define MiB ((size_t)1 << 20)
#define NAMES "memcpy,cacheline"

/* Runs fn(arg, n) for calibrated n, --trials times; returns the median seconds per
 * iteration, or a negative value if fn failed. */
typedef int (*loop_fn)(void *arg, long n);

static double measure(const struct bench_opt *o, loop_fn fn, void *arg)
{
    double v[BENCH_MAX_TRIALS], t0, el;
    long n = 1;
    if (fn(arg, 1)) /* warm-up: page faults, first transfer of the line */
        return -1;
    for (;; n *= 8) {
        t0 = bench_now();
        if (fn(arg, n))
            return -1;
        el = bench_now() - t0;
        if (el >= o->target_s / 10 || n >= (1L << 30))
            break;
    }
    n = bench_scale(n, el, o->target_s);
    for (int k = 0; k < o->trials; k++) {
        t0 = bench_now();
        if (fn(arg, n))
            return -1;
        v[k] = (bench_now() - t0) / (double)n;
    }
    return bench_median(v, o->trials);
}

/* ---- memcpy ---------------------------------------------------------------------- */

struct copy {
    char  *dst, *src;
    size_t len;
};

void *volatile bench_sink; /* the copies escape through it, so they are not elided */

static int copy_loop(void *arg, long n)
{
    struct copy *c = arg;
    for (long i = 0; i < n; i++) {
        memcpy(c->dst, c->src, c->len);
        bench_sink = c->dst;
    }
    return 0;
}

static int run_memcpy(const struct bench_opt *o, size_t len, const char *metric)
{
    struct copy c = { aligned_alloc(4096, len), aligned_alloc(4096, len), len };
    int rc = -1;
    if (!c.dst || !c.src) {
        fprintf(stderr, "limits: cannot allocate 2 x %zu bytes for the memcpy test\n", len);
        goto out;
    }
    memset(c.dst, 0, len);
    memset(c.src, 1, len);
    double s = measure(o, copy_loop, &c);
    bench_report("memcpy", 1, metric, s, len, "GB/s");
    rc = 0;
out:
    free(c.dst);
    free(c.src);
    return rc;
}

/* ---- cache-line ping-pong ------------------------------------------------------- */

/* The parent stores an odd value, the child answers with value + 1; a negative value
 * tells the child to exit.  The line is alone on its page. */
struct bounce {
    _Atomic long *line;
    pid_t         child;
};

static int bounce_loop(void *arg, long n)
{
    struct bounce *b = arg;
    long v = atomic_load_explicit(b->line, memory_order_relaxed); /* even: child idle */
    for (long i = 0; i < n; i++) {
        long want = v + 2;
        unsigned long spins = 0;
        atomic_store_explicit(b->line, v + 1, memory_order_release);
        while ((v = atomic_load_explicit(b->line, memory_order_acquire)) != want) {
            if (++spins % (1UL << 24) == 0 && waitpid(b->child, NULL, WNOHANG) != 0) {
                fprintf(stderr, "limits: the ping-pong child process died\n");
                return -1;
            }
        }
    }
    return 0;
}

static void child_serve(_Atomic long *line, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a killed parent */
    if (getppid() != parent)
        _exit(0);
    for (;;) {
        long v = atomic_load_explicit(line, memory_order_acquire);
        if (v < 0)
            _exit(0);
        if (v & 1)
            atomic_store_explicit(line, v + 1, memory_order_release);
    }
}

/* Picks the first two CPUs we may run on.  Returns 0 and sets cpu[0..1], or -1. */
static int two_cpus(int cpu[2])
{
    cpu_set_t set;
    int k = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int i = 0; i < CPU_SETSIZE && k < 2; i++)
        if (CPU_ISSET(i, &set))
            cpu[k++] = i;
    return k == 2 ? 0 : -1;
}

/* Pins process pid (0: this one) to one CPU. */
static int pin(pid_t pid, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(pid, sizeof set, &set);
}

static int run_cacheline(const struct bench_opt *o)
{
    int cpu[2], pinned = two_cpus(cpu) == 0;
    pid_t parent = getpid();
    struct bounce b = { NULL, -1 };
    cpu_set_t saved;
    int rc = -1;

    sched_getaffinity(0, sizeof saved, &saved);
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        fprintf(stderr, "limits: mmap(MAP_SHARED|MAP_ANONYMOUS) failed: %s\n", strerror(errno));
        return -1;
    }
    b.line = page;
    atomic_init(b.line, 0);
    if (!atomic_is_lock_free(b.line))
        fprintf(stderr, "limits: atomic long is not lock-free; the cacheline number is off\n");

    b.child = fork();
    if (b.child < 0) {
        fprintf(stderr, "limits: fork failed: %s\n", strerror(errno));
        goto out;
    }
    if (b.child == 0)
        child_serve(b.line, parent);
    if (pinned && (pin(0, cpu[0]) != 0 || pin(b.child, cpu[1]) != 0))
        pinned = 0;
    printf("# cacheline: %s\n", pinned ? "two processes pinned to different CPUs"
                                       : "two processes, not pinned (fewer than 2 CPUs "
                                         "allowed or sched_setaffinity failed)");
    if (pinned)
        printf("# cacheline: cpus %d and %d\n", cpu[0], cpu[1]);
    double s = measure(o, bounce_loop, &b);
    if (s >= 0) {
        bench_report("cacheline", 2, "oneway", s / 2, 0, "us");
        rc = 0;
    }
    atomic_store_explicit(b.line, -1, memory_order_release);
    waitpid(b.child, NULL, 0);
out:
    sched_setaffinity(0, sizeof saved, &saved);
    munmap(page, 4096);
    return rc;
}

int main(int argc, char **argv)
{
    struct bench_opt o;
    int rc = bench_opt_parse(&o, argc, argv, NAMES);
    if (rc)
        return rc < 0 ? 2 : 0;
    printf("# limits: %d trials of ~%.0f ms\n", o.trials, o.target_s * 1e3);
    if (bench_opt_want(&o, "memcpy"))
        rc |= run_memcpy(&o, MiB, "bw_1MiB") | run_memcpy(&o, 64 * MiB, "bw_64MiB");
    if (bench_opt_want(&o, "cacheline"))
        rc |= run_cacheline(&o);
    return rc ? 1 : 0;
}
