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
#ifndef CALM_SPIN
#define CALM_SPIN 100    /* polls after a calm yield (~1 us of PAUSE here) */
#endif
static _Thread_local int calm;             /* our last yield was calm */
static _Thread_local double yield_min = 1; /* fastest yield seen, seconds */
void (*shmi_wait_hook)(int event, double waited_s);

void shmi_wait_set_spin(unsigned long spins) { spin_limit = spins; }

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

void shmi_ring_slow(struct shmi_bell *bell)
{
    __atomic_fetch_add(&bell->seq, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &bell->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
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
        net->progress();
        if ((done = ready(arg)) || shmi_clock_s() > end) break;
        sched_yield();
    }
    net->end(!done);
    return done;
}

static void wait_impl(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg,
                      int calm_ok)
{
    unsigned long first = calm_ok && calm && spin_limit < CALM_SPIN ? CALM_SPIN : spin_limit;
    const struct shmi_net_poll *net = shmi_wait_net;
    /* with a network, no spin without progress: what we wait for may be
     * sitting in our socket */
    if (net ? net_poll(ready, arg, net) : spin(ready, arg, first)) return;
    for (int i = 0; i < 16; i++) {
        if (ready(arg)) return;
        double t0 = shmi_clock_s();
        sched_yield();
        double dt = shmi_clock_s() - t0;
        if (dt < yield_min) yield_min = dt;
        calm = dt < 2 * yield_min + 200e-9; /* no context switch in it */
        if (calm_ok && calm && spin(ready, arg, CALM_SPIN)) return;
    }
    calm = 0;
    long ns = 50000;
    void (*hook)(int, double) = shmi_wait_hook;
    double start = hook ? shmi_clock_s() : 0, next = 1.0;
    if (hook) hook(SHMI_WAIT_SLEEP, 0);
    for (;;) {
        uint32_t seen = __atomic_load_n(&bell->seq, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
        /* writers that do not fence (asymmetric mode): make their stores
         * visible, or their next look at sleepers see ours */
        if (!shmi_ring_fence) syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
        int done = ready(arg);
        if (!done) futex_wait(&bell->seq, seen, ns);
        __atomic_fetch_sub(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
        if (done || ready(arg)) break;
        if (ns < 1000000) ns *= 2;
        if (hook && ns >= 1000000) {
            double waited = shmi_clock_s() - start;
            if (waited >= next) {
                hook(SHMI_WAIT_STILL, waited);
                next = waited + 1.0;
            }
        }
    }
    if (hook) hook(SHMI_WAIT_DONE, shmi_clock_s() - start);
}

void shmi_wait(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg)
{
    wait_impl(bell, ready, arg, 1);
}

void shmi_wait_many(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg)
{
    wait_impl(bell, ready, arg, 0);
}
