/* scale.c: start, barrier and finalize at large PE counts (issue 17, item 8);
 * bench/scale.sh runs it at 128..1024 PEs.  Each PE records the wall clock
 * (CLOCK_REALTIME, comparable with the script's `date +%s%N`, passed in
 * SCALE_T0_NS) on entering main, after shmem_init, after the first barrier
 * and after BARRIERS more; PE 0 prints the latest PE's time of each, relative
 * to the launch, then its own shmem_finalize time:
 *   scale: pes 1024 main 3.21 init 9.80 barrier1 10.02 barriers(10) 0.51 finalize 0.30 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { BARRIERS = 10 };

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double at[4], latest[4]; /* symmetric: main, init, first barrier, more barriers */

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
    double f0 = wall();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_finalize();
    double f1 = wall();
    if (me == 0)
        printf("scale: pes %d main %.2f init %.2f barrier1 %.2f barriers(%d) %.3f finalize %.2f\n",
               n, latest[0] - t0, latest[1] - t0, latest[2] - t0, BARRIERS,
               latest[3] - latest[2], f1 - f0);
    return 0;
}
