/* wait.c - spin, then yield, then sleep: waits that survive oversubscription.
 *
 * With 8 PEs on 2 cores a spinning waiter steals the core from the PE it waits
 * for, so after a short spin we yield, and then sleep in the kernel on our
 * doorbell (futex on the shared page: the key is the memfd page, so it works
 * across processes that map it at different addresses).  Sleeps are timed
 * (50 us growing to 1 ms) because a peer may store into our memory through
 * shmem_ptr without ringing.
 *
 * Calm CPUs.  More PEs than CPUs does not mean our CPU is contended: in a
 * ping-pong between two PEs while the others sleep, the partner runs on the
 * other CPU and answers within a cache-line transfer, but a yield-only wait
 * (SHMEM_WAIT_SPIN=0, the default when oversubscribed) sees the answer only
 * after a system call, or a futex wake-up.  So every yield is timed: one that
 * returns within CALM_NS gave the CPU to nobody, i.e. no other thread wanted
 * it, and then spinning costs nobody anything; we poll CALM_SPIN times before
 * the next yield, and the next wait of this thread starts that way too.  A
 * yield that took longer (another PE ran) switches this back to yield-first.
 * A wait for many PEs at once (the central barrier, used when the members
 * outnumber the CPUs: shmi_wait_many) never spins on a calm CPU: all the
 * others must run first, and a spinning CPU is not idle, so the scheduler
 * queues the woken PEs behind us instead of running them.
 * Measured with bench/ on 2 vCPUs, medians of 5 interleaved launches
 * (docs/performance.md): one-way latency with 4 PEs 1.96 -> 0.15 us, with 8
 * PEs 1.87 -> 0.16 us; calm spins in the 8-PE barrier cost 3.4 -> 6.0 us, hence
 * shmi_wait_many. */
#include "util/tls.h"
#include "transport/wait.h"
#include "util/clock.h"

#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long spin_limit = 200;
/* How long a wait yields before it sleeps (after at least 16 yields).
 * Measured (issue 19: the OSU-shaped 8-byte broadcast timed alone, 4 and 8
 * PEs on 2 CPUs, 8 launches each, alternating, machine loaded by other
 * jobs): medians 7.7 / 7.3 / 6.8 / 7.8 us at 4 PEs and 17 / 22 / 23 / 24 us
 * at 8 PEs for 0 / 0.2 / 1 / 3 ms.  Longer yielding does not help: the PEs
 * wait for each other's turns on the CPU, not for wake-ups, and at 8 PEs the
 * yielders only add contention.  So 16 yields, then sleep; what made a
 * put into a sleeping PE cost a system call was the shared doorbell
 * (wait.h), not the sleep. */
#ifndef YIELD_NS
#define YIELD_NS 0
#endif
static double yield_s = YIELD_NS * 1e-9;
/* How long a data wait woken by a write that did not end it polls before it
 * yields and sleeps again: -1, as a fresh wait (spin_s: SHMEM_WAIT_SPIN_US
 * when the PEs fit the CPUs, else 0), or at most this many microseconds.
 * Measured (2 PEs on 2 CPUs, PE 0 writing PE 1's word every 1 us .. 10 ms
 * for 1 s, 2026-12-04): as a fresh wait, 60-150 futex wakes a second at
 * every rate, the waiter's CPU 24-69 % of its wait (it polls 5 ms after each
 * wake); at most 100 us, 700-3,500 wakes a second at gaps of 1 us - 1 ms
 * (100 at 10 ms) and the waiter's CPU 4-71 %; the halo exchange under load
 * alike (median 467 vs 478 us per iteration).  One setting for both, so
 * SHMEM_WAIT_SPIN_US lowers both (-1). */
#ifndef AGAIN_SPIN_US
#define AGAIN_SPIN_US -1
#endif
/* Whether a barrier or collective wait, woken by a partner's flag that did
 * not end it (a leader counting arrivals), is awake again before it sleeps
 * again, as a data wait is (wait_impl).  Measured (bench/waits.sh --only
 * osu, 4 and 8 PEs on 2 CPUs, 7 launches each, alternating, 2026-12-04):
 * medians with / without 0.84-1.31 per row (median 0.99), the 4-PE
 * broadcast, whose members wait on the root's push, 1.17 (8 B) and 1.31
 * (1 KiB).  Such waits are woken a few times per collective, not by streams
 * of writes, so they sleep on as before (0).  1 for A/B. */
#ifndef RESPIN_SYNC
#define RESPIN_SYNC 0
#endif
#ifndef CALM_SPIN
#define CALM_SPIN 100    /* polls after a calm yield (~1 us of PAUSE here) */
#endif
static SHMI_TLS int calm;             /* our last yield was calm */
static SHMI_TLS double yield_min = 1; /* fastest yield seen, seconds */
void (*shmi_wait_hook)(int event, double waited_s);

void shmi_wait_set_spin(unsigned long spins) { spin_limit = spins; }
/* After the polls, poll on for this long (SHMEM_WAIT_SPIN_US) before the
 * first yield.  Measured (issue 15, bench/waits.sh --load --only halo: the
 * halo exchange with 2 PEs on 2 CPUs while 2 other processes keep both CPUs
 * busy): a wait that yields or sleeps after 200 polls gives the rest of the
 * scheduler tick (4 ms here) to the other process, every iteration: 341
 * MFlop/s in every launch, against 4,300-4,800 for OSHMEM, which never
 * stops spinning at one PE per CPU; polling on for 5 ms: 4,300.  Not used
 * when the PEs outnumber the CPUs (the wait must let its partner run). */
static double spin_s;
void shmi_wait_set_spin_time(double seconds) { spin_s = seconds; }

int shmi_ring_fence = 1;

int shmi_wait_asymmetric(void)
{
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) != 0)
        return -1;
    shmi_ring_fence = 0;
    return 0;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void futex_wait(uint32_t *addr, uint32_t val, long ns)
{
    struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
    syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* ---- Doorbell keys: bytes named by (segment, offset) ------------------------ */
static int nsegs;
static uintptr_t seg_base[4];
static size_t seg_size[4];

void shmi_bell_segments(int n, const uintptr_t *base, const size_t *size)
{
    nsegs = n < 4 ? n : 4;
    for (int s = 0; s < nsegs; s++) {
        seg_base[s] = base[s];
        seg_size[s] = size[s];
    }
}

/* Our address a as a key that every PE computes alike for the same byte:
 * segment s at offset o is (s + 1) << 56 | o, above any user address. */
static uint64_t bell_key(const void *a)
{
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < nsegs; s++)
        if (x - seg_base[s] < seg_size[s]) return (uint64_t)(s + 1) << 56 | (x - seg_base[s]);
    return x;
}

static void wake(struct shmi_bell *bell, uint64_t *count)
{
    __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bell->seq, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &bell->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void shmi_ring_slow(struct shmi_bell *bell) { wake(bell, &bell->wakes_all); }

/* (after a load of sleepers or sync that saw a sleeper: the acquire fence
 * makes what it published before it raised the count visible here) */
void shmi_ring_sync_slow(struct shmi_bell *bell)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&bell->sync, __ATOMIC_RELAXED) ||
        __atomic_load_n(&bell->any, __ATOMIC_RELAXED))
        wake(bell, &bell->wakes_sync);
}

void shmi_ring_data_slow(struct shmi_bell *bell, const void *addr, size_t len)
{
    /* a count for tests, not a locked add (measured: that made every write
     * into a PE asleep in a data wait 5-6 ns slower); exact with one writer */
    __atomic_store_n(&bell->checks_data, __atomic_load_n(&bell->checks_data, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&bell->any, __ATOMIC_RELAXED)) {
        wake(bell, &bell->wakes_data);
        return;
    }
    /* A slot our bytes overlap: disarm it (its hi to 0) and uncount its
     * sleeper; only the writer that disarmed it wakes it.  The sleeper,
     * woken, is awake again (wait_impl) before it sleeps again, so the writes
     * that reach it meanwhile find one sleeper less (none, usually: the fast
     * path) and pay nothing.  It re-arms (enlist) and looks at its condition
     * before it sleeps again: a writer that found the slot disarmed wrote
     * before that look (the fences of shmi_bell_sleepers and enlist). */
    uint64_t lo = bell_key(addr), hi = lo + (len ? len : 1);
    for (int i = 0; i < SHMI_BELL_SLOTS; i++) {
        struct shmi_bell_slot *s = &bell->slot[i];
        uint64_t h = __atomic_load_n(&s->hi, __ATOMIC_RELAXED);
        while (h > lo && __atomic_load_n(&s->lo, __ATOMIC_RELAXED) < hi)
            if (__atomic_compare_exchange_n(&s->hi, &h, 0, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED)) {
                __atomic_fetch_sub(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
                wake(bell, &bell->wakes_data);
                return;
            }
    }
}

static inline int spin(int (*ready)(const void *arg), const void *arg, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        if (ready(arg)) return 1;
        cpu_relax();
    }
    return 0;
}

const struct shmi_net_poll *shmi_wait_net;

#ifndef NET_POLL_NS
/* How long a wait progresses the network itself before it sleeps: a few
 * round trips over TCP (15-30 us between the test's namespaces).  Measured
 * there, 2 PEs on 2 CPUs, with the progress thread parked meanwhile (ucx.c):
 * one-way ping-pong 16 -> 5.4 us, barrier 12 -> 8 us (docs/performance.md,
 * "Across two hosts"). */
#define NET_POLL_NS 200000
#endif

/* Poll ready(arg), progressing the network and yielding between polls, for
 * NET_POLL_NS; 1 when ready. */
static int net_poll(int (*ready)(const void *arg), const void *arg,
                    const struct shmi_net_poll *net)
{
    double end = shmi_clock_s() + NET_POLL_NS * 1e-9;
    int done;
    net->begin();
    for (;;) {
        if ((done = ready(arg))) break;
        net->check();
        net->progress();
        if ((done = ready(arg)) || shmi_clock_s() > end) break;
        sched_yield();
    }
    net->end(!done);
    return done;
}

/* What a sleeper waits for (wait.h): the kind, and for a data wait its keys. */
enum { WAIT_ANY, WAIT_SYNC, WAIT_DATA };
struct want {
    int kind;
    uint64_t lo, hi;
};

/* Publish what we wait for and count ourselves among the sleepers of our
 * kind (sync, or sleepers for data and catch-all waits; the seq_cst
 * increment orders the rest before it: a writer that sees it sees the slot
 * or the catch-all count).  A data slot is armed (its hi stored) after the
 * increment, then a full fence: a writer that disarms it (uncounting us,
 * shmi_ring_data_slow) finds us counted already, and one that looked before
 * the slot was armed wrote before our next look at the condition.  Returns
 * the data slot taken, or -1. */
static int enlist(struct shmi_bell *bell, const struct want *w)
{
    int slot = -1;
    for (int i = 0; w->kind == WAIT_DATA && i < SHMI_BELL_SLOTS && slot < 0; i++) {
        uint32_t free_ = 0;
        if (__atomic_compare_exchange_n(&bell->slot[i].busy, &free_, 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
            slot = i;
    }
    if (slot >= 0)
        __atomic_store_n(&bell->slot[slot].lo, w->lo, __ATOMIC_RELAXED);
    else if (w->kind != WAIT_SYNC)
        __atomic_fetch_add(&bell->any, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(w->kind == WAIT_SYNC ? &bell->sync : &bell->sleepers, 1, __ATOMIC_SEQ_CST);
    if (slot >= 0) {
        __atomic_store_n(&bell->slot[slot].hi, w->hi, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    return slot;
}

/* The slot's sleeper count goes with its hi: whoever takes a nonzero hi
 * (we here, or the writer that disarmed it) uncounts us. */
static void delist(struct shmi_bell *bell, const struct want *w, int slot)
{
    if (slot >= 0) {
        if (__atomic_exchange_n(&bell->slot[slot].hi, 0, __ATOMIC_ACQ_REL))
            __atomic_fetch_sub(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
        __atomic_store_n(&bell->slot[slot].busy, 0, __ATOMIC_RELEASE);
    } else if (w->kind == WAIT_SYNC) {
        __atomic_fetch_sub(&bell->sync, 1, __ATOMIC_SEQ_CST);
    } else {
        __atomic_fetch_sub(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_sub(&bell->any, 1, __ATOMIC_RELAXED);
    }
}

/* The waking part of a wait: poll (or progress the network), poll on for
 * spin_s, then yield; 1 when ready.  calm_ok: polls after a calm yield. */
static int awake(int (*ready)(const void *arg), const void *arg, int calm_ok, double spin_for)
{
    unsigned long first = calm_ok && calm && spin_limit < CALM_SPIN ? CALM_SPIN : spin_limit;
    const struct shmi_net_poll *net = shmi_wait_net;
    /* with a network, no spin without progress: what we wait for may be
     * sitting in our socket */
    if (net ? net_poll(ready, arg, net) : spin(ready, arg, first)) return 1;
    double t0 = shmi_clock_s(), t = t0;
    if (spin_for > 0 && !net) {
        for (double end = t0 + spin_for; t < end; t = shmi_clock_s())
            if (spin(ready, arg, 256)) return 1;
        t0 = t;
    }
    for (int i = 0; i < 16 || t - t0 < yield_s; i++) {
        if (ready(arg)) return 1;
        double ty = t;
        sched_yield();
        t = shmi_clock_s();
        double dt = t - ty;
        if (dt < yield_min) yield_min = dt;
        calm = dt < 2 * yield_min + 200e-9; /* no context switch in it */
        if (calm_ok && calm && spin(ready, arg, CALM_SPIN)) return 1;
        if (calm_ok && calm) t = shmi_clock_s();
    }
    calm = 0;
    return 0;
}

/* The observer of long waits, about once a second of the wait (its sleeps
 * and the polls between them). */
static void still(void (*hook)(int, double), double start, double *next)
{
    double waited = shmi_clock_s() - start;
    if (waited >= *next) {
        hook(SHMI_WAIT_STILL, waited);
        *next = waited + 1.0;
    }
}

/* Then sleep on the bell until ready, or, for a data wait (and a catch-all
 * one), until a ring (the bell's seq moved since we counted ourselves in, or
 * a writer disarmed our slot) that did not make us ready: then the wait is
 * awake again (awake(): the policy of a fresh wait, SHMEM_WAIT_SPIN_US of
 * polling when the PEs fit the CPUs, yields when they outnumber them) before
 * it sleeps again.  A writer pays a futex wake only while we are counted
 * among the sleepers, so a stream of writes into the bytes we wait on, none
 * ending the wait, costs one wake per sleep, not one per write (issue 15's
 * 'same' row: 0.4-0.9 us per write before, docs/performance.md).
 * A sleep that timed out with no ring sleeps on (the timer is there for
 * stores through shmem_ptr, which ring nothing). */
static void wait_impl(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg,
                      int calm_ok, const struct want *w)
{
    if (awake(ready, arg, calm_ok, spin_s)) return;
    const struct shmi_net_poll *net = shmi_wait_net;
    long ns = 50000;
    void (*hook)(int, double) = shmi_wait_hook;
    double start = hook ? shmi_clock_s() : 0, next = 1.0;
    if (hook) hook(SHMI_WAIT_SLEEP, 0);
    int again = w->kind != WAIT_SYNC || RESPIN_SYNC; /* awake again after a ring */
    for (;;) {
        int slot = enlist(bell, w), done;
        /* writers that do not fence (asymmetric mode): make their stores
         * visible, or their next look at sleepers see ours */
        if (!shmi_ring_fence) syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
        uint32_t seq0 = __atomic_load_n(&bell->seq, __ATOMIC_ACQUIRE);
        for (;;) {
            uint32_t seen = __atomic_load_n(&bell->seq, __ATOMIC_ACQUIRE);
            if ((done = ready(arg)) ||
                (again && (seen != seq0 || (slot >= 0 && !__atomic_load_n(&bell->slot[slot].hi,
                                                                           __ATOMIC_ACQUIRE)))))
                break;
            futex_wait(&bell->seq, seen, ns);
            if (net) net->check();
            if (ns < 1000000) ns *= 2;
            if (hook) still(hook, start, &next);
        }
        delist(bell, w, slot);
        if (done || awake(ready, arg, calm_ok,
                          AGAIN_SPIN_US < 0 || spin_s < AGAIN_SPIN_US * 1e-6 ? spin_s
                                                                         : AGAIN_SPIN_US * 1e-6))
            break;
        if (hook) still(hook, start, &next);
    }
    if (hook) hook(SHMI_WAIT_DONE, shmi_clock_s() - start);
}

void shmi_wait(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg)
{
    struct want w = { WAIT_ANY, 0, 0 };
    wait_impl(bell, ready, arg, 1, &w);
}

void shmi_wait_sync(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg)
{
    struct want w = { WAIT_SYNC, 0, 0 };
    wait_impl(bell, ready, arg, 1, &w);
}

void shmi_wait_many(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg)
{
    struct want w = { WAIT_SYNC, 0, 0 };
    wait_impl(bell, ready, arg, 0, &w);
}

void shmi_wait_data(struct shmi_bell *bell, const void *addr, size_t len,
                    int (*ready)(const void *arg), const void *arg)
{
    uint64_t lo = bell_key(addr);
    struct want w = { WAIT_DATA, lo, lo + (len ? len : 1) };
    wait_impl(bell, ready, arg, 1, &w);
}
