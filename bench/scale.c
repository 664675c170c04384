/* scale.c: start, barrier and finalize at large PE counts (issue 17, item 8);
 * bench/scale.sh runs it at 128..1024 PEs.  Each PE records the wall clock
 * (CLOCK_REALTIME, comparable with the script's `date +%s%N`, passed in
 * SCALE_T0_NS) on entering main, after shmem_init, after the first barrier
 * and after BARRIERS more; PE 0 prints the latest PE's time of each, relative
 * to the launch, then its own shmem_finalize time; then (issue 15) an
 * allocation of ALLOC bytes written by every PE, and a broadcast of it from
 * PE 0, each timed as the slowest PE's seconds, and the memory of a PE after
 * them from /proc/self/status (VmRSS: resident; VmPTE: page tables), largest
 * and mean over the PEs, in MiB:
 *   scale: pes 1024 main 3.21 init 9.80 barrier1 10.02 barriers(10) 0.51 finalize 0.30
 *          alloc 0.004 bcast 0.012 rss_max 9.1 rss_mean 8.7 pte_max 0.41 pte_mean 0.40 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BARRIERS = 10 };
#define ALLOC ((size_t)1 << 20)

/* kB of a /proc/self/status line ("VmRSS:", "VmPTE:"), or -1 */
static double status_kb(const char *key)
{
    char line[256];
    double v = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) v = strtod(line + strlen(key), NULL);
    if (f) fclose(f);
    return v;
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* symmetric: main, init, first barrier, more barriers; then alloc and bcast
 * durations (max), and memory (max in mem_max, sums in mem_sum) */
static double at[4], latest[4], dur[2], dur_max[2], mem[2], mem_max[2], mem_sum[2];

int main(void)
{
    const char *s = getenv("SCALE_T0_NS");
    double t0 = s ? (double)strtoll(s, NULL, 10) * 1e-9 : wall();
    at[0] = wall();
    shmem_init();
    at[1] = wall();
    shmem_barrier_all();
    at[2] = wall();
    for (int i = 0; i < BARRIERS; i++) shmem_barrier_all();
    at[3] = wall();
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, latest, at, 4);
    double a0 = wall();
    char *buf = shmem_malloc(ALLOC);
    memset(buf, shmem_my_pe() & 0xff, ALLOC); /* every page touched */
    shmem_barrier_all();
    double a1 = wall();
    shmem_broadcastmem(SHMEM_TEAM_WORLD, buf, buf, ALLOC, 0);
    double a2 = wall();
    dur[0] = a1 - a0;
    dur[1] = a2 - a1;
    mem[0] = status_kb("VmRSS:") / 1024;
    mem[1] = status_kb("VmPTE:") / 1024;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, dur_max, dur, 2);
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, mem_max, mem, 2);
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, mem_sum, mem, 2);
    shmem_free(buf);
    double f0 = wall();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize();
    double f1 = wall();
    if (me == 0)
        printf("scale: pes %d main %.2f init %.2f barrier1 %.2f barriers(%d) %.3f finalize %.2f "
               "alloc %.4f bcast %.4f rss_max %.1f rss_mean %.1f pte_max %.2f pte_mean %.2f\n",
               n, latest[0] - t0, latest[1] - t0, latest[2] - t0, BARRIERS,
               latest[3] - latest[2], f1 - f0, dur_max[0], dur_max[1], mem_max[0],
               mem_sum[0] / n, mem_max[1], mem_sum[1] / n);
    return 0;
}
