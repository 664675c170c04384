/* pe_ctx_threads.c - SHMEM_THREAD_MULTIPLE with contexts: every thread creates
 * and destroys private contexts, runs AMOs (blocking and _nbi) on its own
 * and on one shared context, and exchanges put-with-signal messages with its
 * twin thread on the next PE, each thread waiting on its own signal word
 * (several threads asleep on one PE's doorbell at once). */
#include "pe_test.h"
#include <pthread.h>

#define THREADS 4
#define ROUNDS 300
static int me, n;
static shmem_ctx_t shared;
static long counter;
static uint64_t sig[THREADS], ack[THREADS];
static long box[THREADS][8];

static void *worker(void *arg)
{
    int t = (int)(long)arg, to = (me + 1) % n, from = (me + n - 1) % n;
    long msg[8];
    for (int r = 1; r <= ROUNDS; r++) {
        shmem_ctx_t c;
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0);
        long old;
        shmem_ctx_long_atomic_fetch_add_nbi(c, &old, &counter, 1, r % n);
        shmem_ctx_long_atomic_inc(shared, &counter, (r + 1) % n);
        for (int i = 0; i < 8; i++) msg[i] = (long)r * 100 + t * 10 + i;
        if (r > 1) shmem_signal_wait_until(&ack[t], SHMEM_CMP_GE, (uint64_t)(r - 1));
        shmem_ctx_long_put_signal(c, box[t], msg, 8, &sig[t], (uint64_t)r, SHMEM_SIGNAL_SET, to);
        shmem_signal_wait_until(&sig[t], SHMEM_CMP_EQ, (uint64_t)r);
        for (int i = 0; i < 8; i++)
            CHECKF(box[t][i] == (long)r * 100 + t * 10 + i, "thread %d round %d: box[%d]=%ld", t,
                   r, i, box[t][i]);
        shmem_ctx_signal_add(c, &ack[t], 1, from);
        shmem_ctx_quiet(c);
        shmem_ctx_destroy(c);
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
    CHECK(shmem_ctx_create(0, &shared) == 0);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    shmem_ctx_quiet(shared);
    shmem_barrier_all();
    /* each thread of each PE added 1 for r % n == me and 1 for (r+1) % n == me */
    long want = 0;
    for (int r = 1; r <= ROUNDS; r++) want += (r % n == me) + ((r + 1) % n == me);
    want *= (long)n * THREADS;
    CHECKF(counter == want, "counter %ld want %ld", counter, want);
    shmem_ctx_destroy(shared);
    shmem_barrier_all();
    if (me == 0) printf("pe_ctx_threads: ok with %d PEs x %d threads\n", n, THREADS);
    shmem_finalize();
    return 0;
}
