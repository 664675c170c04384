/* pe_threads.c - SHMEM_THREAD_MULTIPLE: several threads per PE doing puts,
 * atomics and quiet at once. */
#include "pe_test.h"
#include <pthread.h>

#define THREADS 4
#define ITERS 2000
static long *counter, *slots;
static int me, n;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < ITERS; i++) {
        shmem_long_atomic_inc(counter, i % n);
        shmem_long_p(&slots[me * THREADS + t], i, (i + t) % n);
        shmem_quiet();
    }
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    n = shmem_n_pes();
    counter = shmem_calloc(1, sizeof(long));
    slots = shmem_calloc((size_t)n * THREADS, sizeof(long));
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    shmem_barrier_all();
    long want = 0;
    for (int i = 0; i < ITERS; i++) want += (i % n == me) ? (long)n * THREADS : 0;
    CHECKF(*counter == want, "counter %ld want %ld", *counter, want);
    shmem_barrier_all();
    if (me == 0) printf("pe_threads: ok with %d PEs x %d threads\n", n, THREADS);
    shmem_free(slots);
    shmem_free(counter);
    shmem_finalize();
    return 0;
}
