/* pe_lock.c - distributed locks: mutual exclusion (a counter incremented
 * non-atomically, get then put, under the lock, by every PE; set_lock and
 * test_lock loops mixed), many locks at once, first-come-first-served order,
 * and SHMEM_THREAD_MULTIPLE with threads of a PE taking turns through a
 * pthread mutex (the spec leaves in-PE exclusion to the program). */
#include "pe_test.h"
#include <pthread.h>
#include <sched.h>

#define ITERS 200
#define THREADS 3
static int me, n;
static long lock, locks[8], counter, counters[8], order[64], next_slot;

static void critical(long *c, int pe, int i)
{
    long v = shmem_long_g(c, pe);
    if (i % 7 == 0) sched_yield(); /* widen the window a race would need */
    shmem_long_p(c, v + 1, pe);
}

static void mutual_exclusion(void)
{
    for (int i = 0; i < ITERS; i++) {
        if ((me + i) % 3 == 0)
            while (shmem_test_lock(&lock)) sched_yield();
        else
            shmem_set_lock(&lock);
        critical(&counter, 0, i);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECKF(counter == (long)n * ITERS, "counter %ld want %ld", counter, (long)n * ITERS);
    shmem_barrier_all();
}

/* Every PE takes every lock in turn, starting at a different one. */
static void many_locks(void)
{
    for (int r = 0; r < ITERS / 4; r++)
        for (int k = 0; k < 8; k++) {
            int l = (me + k) % 8;
            shmem_set_lock(&locks[l]);
            critical(&counters[l], l % n, r);
            shmem_clear_lock(&locks[l]);
        }
    shmem_barrier_all();
    for (int l = 0; l < 8; l++)
        if (l % n == me) CHECKF(counters[l] == (long)n * (ITERS / 4), "counters[%d] = %ld", l, counters[l]);
    shmem_barrier_all();
}

/* PE 0 holds the lock; PEs 1..n-1 queue up one after the other; on release
 * the lock must pass in queue order.  White box: to queue in a known order,
 * PE i waits until PE i-1 is the queue's tail, which lock.c keeps in the low
 * 32 bits of PE 0's lock word (1 + PE number). */
static void fifo(void)
{
    static long fl;
    next_slot = 0;
    shmem_barrier_all();
    if (me == 0) shmem_set_lock(&fl);
    shmem_barrier_all();
    if (me > 0)
        while ((uint32_t)shmem_long_atomic_fetch(&fl, 0) != (uint32_t)me) sched_yield();
    else
        while ((uint32_t)shmem_long_atomic_fetch(&fl, 0) != (uint32_t)n) sched_yield();
    if (me > 0) shmem_set_lock(&fl);
    shmem_long_p(&order[shmem_long_atomic_fetch_inc(&next_slot, 0)], me, 0);
    shmem_clear_lock(&fl);
    shmem_barrier_all();
    if (me == 0) {
        long got[64];
        shmem_long_get(got, order, (size_t)n, 0);
        for (int i = 0; i < n; i++) CHECKF(got[i] == i, "position %d went to PE %ld", i, got[i]);
    }
    shmem_barrier_all();
}

static pthread_mutex_t in_pe = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS / 2; i++) {
        pthread_mutex_lock(&in_pe);
        shmem_set_lock(&lock);
        critical(&counter, n - 1, i);
        shmem_clear_lock(&lock);
        pthread_mutex_unlock(&in_pe);
    }
    return NULL;
}

static void threads(void)
{
    counter = 0;
    shmem_barrier_all();
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, worker, NULL) == 0);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    shmem_barrier_all();
    if (me == n - 1) CHECKF(counter == (long)n * THREADS * (ITERS / 2), "counter %ld", counter);
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    n = shmem_n_pes();
    CHECK(n <= 64);
    mutual_exclusion();
    many_locks();
    fifo();
    fifo();
    threads();
    if (me == 0) printf("pe_lock: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
