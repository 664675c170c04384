/* wait.c - spin, then yield, then sleep: waits that survive oversubscription.
 *
 * With 8 PEs on 2 cores a spinning waiter steals the core from the PE it waits
 * for, so after a short spin we yield, and then sleep in the kernel on our
 * doorbell (futex on the shared page: the key is the memfd page, so it works
 * across processes that map it at different addresses).  Sleeps are timed
 * (50 us growing to 1 ms) because a peer may store into our memory through
 * shmem_ptr without ringing. */
#include "transport/tp.h"

#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long spin_limit = 200;
void (*shmi_wait_hook)(int event, double waited_s);

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void shmi_wait_set_spin(unsigned long spins) { spin_limit = spins; }

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

void shmi_wait(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg)
{
    for (unsigned long i = 0; i < spin_limit; i++) {
        if (ready(arg)) return;
        cpu_relax();
    }
    for (int i = 0; i < 16; i++) {
        if (ready(arg)) return;
        sched_yield();
    }
    long ns = 50000;
    void (*hook)(int, double) = shmi_wait_hook;
    double start = hook ? now_s() : 0, next = 1.0;
    if (hook) hook(SHMI_WAIT_SLEEP, 0);
    for (;;) {
        uint32_t seen = __atomic_load_n(&bell->seq, __ATOMIC_ACQUIRE);
        __atomic_fetch_add(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
        int done = ready(arg);
        if (!done) futex_wait(&bell->seq, seen, ns);
        __atomic_fetch_sub(&bell->sleepers, 1, __ATOMIC_SEQ_CST);
        if (done || ready(arg)) break;
        if (ns < 1000000) ns *= 2;
        if (hook && ns >= 1000000) {
            double waited = now_s() - start;
            if (waited >= next) {
                hook(SHMI_WAIT_STILL, waited);
                next = waited + 1.0;
            }
        }
    }
    if (hook) hook(SHMI_WAIT_DONE, now_s() - start);
}
