/* pe_waits_doorbell.c - the doorbell rule (issues 15 and 19): a put, AMO or
 * put-with-signal makes a futex wake only when its target sleeps in a wait
 * that this write can end.  Not timed: PE 0 waits until every other PE is
 * asleep (shmemx_wait_stats), then writes to them and compares the wake
 * counters of their doorbells before and after.  A sleeper stays counted
 * until its wait ends, and nobody else writes to a sleeping PE meanwhile, so
 * every count below is exact whatever the load on the machine.
 *
 *   A. the others sleep in shmem_barrier_all: puts, fetch-adds, put-signals,
 *      incs and p's into them make no wake at all, and never leave the
 *      writer's fast path (barrier sleepers are counted apart: data_checks);
 *   B. the others sleep in shmem_long_wait_until on another word: the same;
 *   C. the others sleep in a wait on the written word (wait_until, then
 *      signal_wait_until): a write that does not end it still wakes it
 *      (the control: without it A and B could pass with a bell that never
 *      rings);
 *   D. the others wait on the written word while PE 0 writes it STREAM times
 *      without ending the wait: a wait woken by a write that does not end it
 *      polls (or yields) again before it sleeps again, so the stream makes far
 *      fewer than STREAM data wakes (before: one per write, each a FUTEX_WAKE
 *      for PE 0); asleep again, it is woken by the next write, and it sees
 *      the write that ends its wait. */
#include "pe_test.h"

#include <sched.h>
#include <shmemx.h>
#include <stdint.h>

#define ROUNDS 200
#define END 1000000
#define STREAM 4000

struct words {
    long data[8];
    uint64_t sig;     /* right after data: a put-signal's ring spans data[2]..sig */
    long pad[7];
    long flag;        /* B waits here */
    long target;      /* C waits here */
    uint64_t tsig;    /* C's signal wait */
    long arrived;     /* A: the others passed the barrier before A's */
    long pad2[7];
    long same;        /* D waits here */
};

static int me, npes;

static shmemx_wait_stats_t stats(int pe)
{
    shmemx_wait_stats_t s;
    CHECK(shmemx_wait_stats(pe, &s) == 0);
    return s;
}

/* Until PE pe sleeps (sync: in its barrier, counted as a sync sleeper or,
 * should a change make barriers sleep as catch-alls again, as any sleeper:
 * then the counts below fail instead of this loop hanging; else in a data
 * wait). */
static void until_asleep(int pe, int sync)
{
    for (;;) {
        shmemx_wait_stats_t s = stats(pe);
        if (s.sleeping >= 1 && (sync || s.sleeping_sync == 0)) return;
        sched_yield();
    }
}

static unsigned long long wakes(const shmemx_wait_stats_t *s)
{
    return s->data_wakes + s->sync_wakes + s->other_wakes;
}

/* PE 0: every kind of data write into the others, none ending their wait. */
static void write_all(struct words *w)
{
    long one = 1;
    for (int r = 0; r < ROUNDS; r++)
        for (int pe = 1; pe < npes; pe++) {
            shmem_putmem(&w->data[0], &one, sizeof one, pe);
            shmem_quiet();
            (void)shmem_long_atomic_fetch_add(&w->data[1], 1, pe);
            shmem_putmem_signal(&w->data[2], &one, sizeof one, &w->sig, (uint64_t)r,
                                SHMEM_SIGNAL_SET, pe);
            shmem_long_atomic_inc(&w->data[3], pe);
            shmem_long_p(&w->data[4], r, pe);
            shmem_long_iput(&w->data[5], &one, 1, 1, 1, pe);
        }
    shmem_quiet();
}

/* PE 0: the others sleep in waits of that kind; our writes must not wake them. */
static void no_wakes(struct words *w, int sync, const char *where)
{
    shmemx_wait_stats_t before[64], after;
    for (int pe = 1; pe < npes; pe++) until_asleep(pe, sync);
    for (int pe = 1; pe < npes; pe++) before[pe] = stats(pe);
    write_all(w);
    for (int pe = 1; pe < npes; pe++) {
        after = stats(pe);
        CHECKF(after.sleeping >= 1, "PE %d left its wait (%s)", pe, where);
        /* asleep in a barrier only: data writes keep to their fast path */
        CHECKF(!sync || after.data_checks == before[pe].data_checks,
               "PE %d asleep in %s: %d data writes took the slow path %llu times (want 0: "
               "barrier sleepers are counted apart)", pe, where, ROUNDS * 6,
               after.data_checks - before[pe].data_checks);
        CHECKF(wakes(&after) == wakes(&before[pe]),
               "PE %d asleep in %s: %d writes to other words made %llu data, %llu sync, "
               "%llu other futex wakes on its doorbell (want 0)", pe, where, ROUNDS * 6,
               after.data_wakes - before[pe].data_wakes, after.sync_wakes - before[pe].sync_wakes,
               after.other_wakes - before[pe].other_wakes);
    }
}

/* PE 0: a write to the word PE pe sleeps on, which does not end its wait,
 * wakes it (a data wake).  kind 0: p, 1: fetch-add, 2: put-signal. */
static void wakes_it(struct words *w, int pe, int kind)
{
    until_asleep(pe, 0);
    shmemx_wait_stats_t b = stats(pe), a;
    long v = 1;
    if (kind == 0) shmem_long_p(&w->target, v, pe);
    else if (kind == 1) (void)shmem_long_atomic_fetch_add(&w->target, 1, pe);
    else shmem_putmem_signal(&w->data[6], &v, sizeof v, &w->tsig, 1, SHMEM_SIGNAL_ADD, pe);
    a = stats(pe);
    CHECKF(a.data_wakes > b.data_wakes,
           "PE %d asleep on the written word: the write (kind %d) made no data wake", pe, kind);
}

/* PE 0: a stream of writes to the word PE pe waits on, none ending the wait;
 * then the one that ends it. */
static void stream(struct words *w, int pe)
{
    until_asleep(pe, 0);
    shmemx_wait_stats_t b = stats(pe), a;
    for (long i = 0; i < STREAM; i++) {
        switch (i & 3) {
        case 0: shmem_long_p(&w->same, i, pe); break;
        case 1: shmem_putmem(&w->same, &i, sizeof i, pe); shmem_quiet(); break;
        case 2: (void)shmem_long_atomic_fetch_add(&w->same, 1, pe); break;
        default: shmem_long_atomic_add(&w->same, 1, pe);
        }
    }
    shmem_quiet();
    a = stats(pe);
    unsigned long long n = a.data_wakes - b.data_wakes;
    CHECKF(n >= 1, "PE %d asleep on the written word: %d writes made no data wake", pe, STREAM);
    CHECKF(n <= STREAM / 20, "PE %d waits on the written word: %d writes that do not end its "
           "wait made %llu data wakes (want at most %d: after a wake it polls again before "
           "it sleeps)", pe, STREAM, n, STREAM / 20);
    printf("pe_waits_doorbell: %d writes into the word PE %d waits on: %llu data wakes\n",
           STREAM, pe, n);
    /* asleep again (armed anew), the next write wakes it */
    until_asleep(pe, 0);
    b = stats(pe);
    shmem_long_p(&w->same, -1, pe);
    a = stats(pe);
    CHECKF(a.data_wakes == b.data_wakes + 1, "PE %d asleep again on the written word: a write "
           "made %llu data wakes (want 1)", pe, a.data_wakes - b.data_wakes);
    shmem_long_p(&w->same, END, pe);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 64);
    struct words *w = shmem_calloc(1, sizeof *w);
    CHECK(w);
    shmemx_wait_stats_t s;
    CHECK(shmemx_wait_stats(npes, &s) == -1);
    CHECK(shmemx_wait_stats(me, NULL) == -1);
    shmem_barrier_all();

    /* A: asleep in a barrier.  Each other PE says it left the barrier above
     * first, so that PE 0 does not take a PE still asleep in that one (about
     * to wake and enter the next) for a sleeper of A's. */
    if (me == 0) {
        shmem_long_wait_until(&w->arrived, SHMEM_CMP_EQ, npes - 1);
        no_wakes(w, 1, "shmem_barrier_all");
    } else {
        shmem_long_atomic_inc(&w->arrived, 0);
    }
    shmem_barrier_all();

    /* B: asleep in a wait on another word */
    if (me == 0) {
        no_wakes(w, 0, "shmem_long_wait_until on another word");
        for (int pe = 1; pe < npes; pe++) shmem_long_p(&w->flag, 1, pe);
    } else {
        shmem_long_wait_until(&w->flag, SHMEM_CMP_EQ, 1);
    }
    shmem_barrier_all();

    /* C: asleep on the written word: the write rings (then END ends the wait) */
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++) {
            wakes_it(w, pe, 0);
            wakes_it(w, pe, 1);
            shmem_long_p(&w->target, END, pe);
        }
    } else {
        shmem_long_wait_until(&w->target, SHMEM_CMP_EQ, END);
    }
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++) {
            wakes_it(w, pe, 2);
            shmem_signal_add(&w->tsig, END, pe);
        }
    } else {
        CHECK(shmem_signal_wait_until(&w->tsig, SHMEM_CMP_GE, END) == END + 1);
    }
    shmem_barrier_all();

    /* D: a stream of writes into the word a PE waits on */
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++) stream(w, pe);
    } else {
        shmem_long_wait_until(&w->same, SHMEM_CMP_EQ, END);
        CHECK(w->same == END);
    }
    shmem_barrier_all();
    if (me == 1) CHECK(w->data[3] == 2 * ROUNDS && w->data[1] == 2 * ROUNDS); /* A and B */
    shmem_free(w);
    if (me == 0) printf("pe_waits_doorbell: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
