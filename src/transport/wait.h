/* wait.h - how a PE waits for memory that peers write, and how writers wake it.
 *
 * Every PE has a doorbell in its control block.  A waiter polls its
 * condition (SHMEM_WAIT_SPIN times), then yields a few times, then sleeps on
 * the doorbell with a futex (timed, so a store made directly through
 * shmem_ptr, which rings no bell, is still seen within about a millisecond).
 * A writer that changed a peer's memory rings the peer's bell, which costs a
 * system call only when someone sleeps there. */
#ifndef SHMI_WAIT_H
#define SHMI_WAIT_H

#include <stdint.h>

struct shmi_bell {
    _Alignas(64) uint32_t seq;      /* futex word */
    uint32_t sleepers;              /* threads of this PE asleep on seq */
};

void shmi_wait_set_spin(unsigned long spins);
/* Asymmetric doorbell: writers stop fencing before they look at a peer's
 * doorbell (shmi_ring); a waiter about to sleep runs membarrier(2) instead,
 * a few microseconds, paid only when it sleeps.  For jobs whose waits rarely
 * sleep (no more PEs than CPUs).  Every PE calls it (it registers the
 * process).  0 when on, -1 when the kernel cannot (writers keep fencing). */
int shmi_wait_asymmetric(void);
/* Optional observer of long waits (the API layer's watchdog): called when a
 * wait starts sleeping (SHMI_WAIT_SLEEP), about once a second while it sleeps
 * (SHMI_WAIT_STILL, with the seconds waited) and when a wait that slept ends
 * (SHMI_WAIT_DONE).  Never called on the spinning fast path. */
enum { SHMI_WAIT_SLEEP, SHMI_WAIT_STILL, SHMI_WAIT_DONE };
extern void (*shmi_wait_hook)(int event, double waited_s);
/* Set by the UCX transport while it is up (the job spans nodes).  A remote
 * write into our memory lands only when someone progresses our UCX worker;
 * the progress thread does when nobody else does, but a message that wakes
 * it (and then us) costs two thread wake-ups.  So a wait first progresses
 * the network itself, between yields, for NET_POLL_NS (wait.c), between
 * begin() and end(), during which the progress thread stands aside. */
struct shmi_net_poll {
    void (*begin)(void);
    void (*progress)(void);
    void (*end)(int sleeping); /* sleeping: the wait goes on, asleep */
};
extern const struct shmi_net_poll *shmi_wait_net;
/* Wait until ready(arg) is true; sleeps on bell (ours). */
void shmi_wait(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg);
/* The same for a condition that needs many other PEs to run first (a barrier
 * with more members than CPUs): never spins after a yield (wait.c). */
void shmi_wait_many(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg);
/* Wake whoever sleeps on a bell after a sequentially consistent atomic
 * (read-modify-write or store) on the peer's data: that atomic is already
 * the full fence of the Dekker below (a locked instruction on x86), and a
 * seq_cst load of sleepers stays after it.  Saves a fence per AMO. */
static inline void shmi_ring_after_sc(struct shmi_bell *bell)
{
    extern void shmi_ring_slow(struct shmi_bell *bell);
    if (__atomic_load_n(&bell->sleepers, __ATOMIC_SEQ_CST)) shmi_ring_slow(bell);
}
/* Wake whoever sleeps on a bell (a peer's, through its mapping). */
extern int shmi_ring_fence;
static inline void shmi_ring(struct shmi_bell *bell)
{
    extern void shmi_ring_slow(struct shmi_bell *bell);
    /* Dekker with the waiter: our data store, then a full fence, then read
     * sleepers; the waiter increments sleepers, fences, then re-checks.
     * Asymmetric mode (shmi_wait_asymmetric): no fence here; a waiter about
     * to sleep makes every PE's CPU run one instead (membarrier). */
    if (shmi_ring_fence) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else __asm__ volatile("" ::: "memory");
    if (__atomic_load_n(&bell->sleepers, __ATOMIC_RELAXED)) shmi_ring_slow(bell);
}

#endif
