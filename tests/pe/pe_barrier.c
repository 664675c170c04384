#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* pe_barrier.c - thousands of barriers with more PEs than cores must finish
 * in seconds (waits spin briefly, then sleep), and every barrier really
 * separates phases: a counter incremented by everyone is checked after it. */
#include "pe_test.h"
#include <time.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *count = shmem_calloc(1, sizeof(long));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int iters = 3000;
    for (int i = 1; i <= iters; i++) {
        shmem_long_atomic_inc(count, i % n);
        shmem_barrier_all();
        /* after barrier i, PE p's counter holds every inc aimed at it so far */
        if (i % 500 == 0) {
            long want = 0;
            for (int k = 1; k <= i; k++) want += (k % n == me) ? n : 0;
            CHECKF(*count == want, "barrier %d: count %ld want %ld", i, *count, want);
        }
        shmem_barrier_all();
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / (2 * iters);
    if (me == 0) printf("pe_barrier: ok with %d PEs, %.1f us per barrier\n", n, us);
    for (int i = 0; i < 200; i++) shmem_sync_all();
    shmem_free(count);
    shmem_finalize();
    return 0;
}
