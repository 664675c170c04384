/* wait.h - how a PE waits for memory that peers write, and how writers wake it.
 *
 * Every PE has a doorbell in its control block.  A waiter polls its
 * condition (SHMEM_WAIT_SPIN times), then yields for a bounded time, then
 * sleeps on the doorbell with a futex (timed, so a store made directly
 * through shmem_ptr, which rings no bell, is still seen within about a
 * millisecond).  A writer that changed a peer's memory rings the peer's
 * bell, which costs a system call only when a thread of the peer sleeps in a
 * wait that this write can end:
 *
 *   - a data wait (wait_until, test loops through shmi_wait_data, signal
 *     waits, lock hand-overs) says which bytes of its PE's memory it waits
 *     on; puts, AMOs and signals ring with the bytes they wrote
 *     (shmi_ring_data), and wake it only when the two ranges overlap; the
 *     writer that wakes it also disarms it (no longer a sleeper), so the
 *     writes that follow pay nothing until it sleeps again;
 *   - a sync wait (barriers and collectives: shmi_wait_sync, shmi_wait_many)
 *     is woken only by the flags of its partners (shmi_ring_sync), never by
 *     data puts into its PE;
 *   - shmi_wait and shmi_ring are the catch-alls (a wait woken by any ring, a
 *     ring that wakes every kind): the network progress thread, which cannot
 *     tell what arrived, rings that way.
 *
 * A data wait woken by a ring that did not make it ready is awake again
 * (polls and yields as a fresh wait does) before it sleeps again, so a
 * stream of writes into the bytes it waits on costs a futex wake per sleep,
 * not per write (wait.c, wait_impl).  Barrier and collective waits sleep on
 * (RESPIN_SYNC in wait.c).
 *
 * All sleepers of a PE sleep on the same futex word; only the decision to
 * make the system call looks at what they wait on.  Sync sleepers are
 * counted apart (`sync`) from data and catch-all ones (`sleepers`), so the
 * fast path of a data write is one load of `sleepers`, 0 while the target
 * only sleeps in a barrier or collective; a flag or catch-all ring loads
 * both. */
#ifndef SHMI_WAIT_H
#define SHMI_WAIT_H

#include <stddef.h>
#include <stdint.h>

#define SHMI_BELL_SLOTS 4 /* data waits described exactly; more sleep as catch-alls */

struct shmi_bell {
    _Alignas(64) uint32_t seq;      /* futex word */
    uint32_t sleepers;              /* threads of this PE asleep on seq in data and
                                       catch-all waits (a data wait a writer disarmed no
                                       longer counts) */
    uint32_t sync;                  /* threads asleep in a barrier or collective */
    uint32_t any;                   /* of `sleepers`: woken by every ring (shmi_wait, or
                                       a data wait without a slot) */
    struct shmi_bell_slot {         /* a data wait: keys [lo, hi) (shmi_bell_key); hi 0:
                                       free, or disarmed by the writer that woke it */
        uint32_t busy;
        uint64_t lo, hi;
    } slot[SHMI_BELL_SLOTS];
    /* futex wakes made on this bell, by the kind of ring, and data rings that
     * found a sleeper and looked at what it waits on (tests, shmemx_wait_stats) */
    _Alignas(64) uint64_t wakes_data, wakes_sync, wakes_all, checks_data;
};

void shmi_wait_set_spin(unsigned long spins);
/* Then poll for up to this long (seconds) before yielding (0: not at all). */
void shmi_wait_set_spin_time(double seconds);
/* Asymmetric doorbell: writers stop fencing before they look at a peer's
 * doorbell (shmi_ring); a waiter about to sleep runs membarrier(2) instead,
 * a few microseconds, paid only when it sleeps.  For jobs whose waits rarely
 * sleep (no more PEs than CPUs).  Every PE calls it (it registers the
 * process).  0 when on, -1 when the kernel cannot (writers keep fencing). */
int shmi_wait_asymmetric(void);
/* The segments every PE maps at its own address, in the same order on every
 * PE: a data wait and a data ring name bytes by (segment, offset), so they
 * match even where a segment's address differs between PEs.  Addresses
 * outside them are compared as they are. */
void shmi_bell_segments(int n, const uintptr_t *base, const size_t *size);
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
    /* A connection to a peer failed while we wait: report it (tp.h,
     * shmi_tp_lost_hook), which ends the job unless it is leaving.  Called
     * by every wait between polls and sleeps: one load when all is well. */
    void (*check)(void);
};
extern const struct shmi_net_poll *shmi_wait_net;
/* Wait until ready(arg) is true; sleeps on bell (ours), woken by every ring. */
void shmi_wait(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg);
/* A barrier or collective flag: woken only by shmi_ring_sync (and shmi_ring). */
void shmi_wait_sync(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg);
/* The same for a condition that needs many other PEs to run first (a barrier
 * with more members than CPUs): never spins after a yield (wait.c). */
void shmi_wait_many(struct shmi_bell *bell, int (*ready)(const void *arg), const void *arg);
/* Our memory [addr, addr + len): woken only by a data ring on bytes that
 * overlap it (and by shmi_ring). */
void shmi_wait_data(struct shmi_bell *bell, const void *addr, size_t len,
                    int (*ready)(const void *arg), const void *arg);

/* The slow paths: someone of that PE sleeps; wake it if this ring concerns it. */
void shmi_ring_slow(struct shmi_bell *bell);
void shmi_ring_sync_slow(struct shmi_bell *bell);
void shmi_ring_data_slow(struct shmi_bell *bell, const void *addr, size_t len);

/* Dekker with the waiter: our store, then a full fence, then read its
 * counter (sleepers, or sync for a flag); the waiter increments it (seq_cst),
 * then re-checks.  Asymmetric mode
 * (shmi_wait_asymmetric): no fence here; a waiter about to sleep makes every
 * PE's CPU run one instead (membarrier).  After a sequentially consistent
 * atomic (read-modify-write or store) on the peer's data (the _after_sc
 * forms) that atomic already is the full fence (a locked instruction on
 * x86), and a seq_cst load of sleepers stays after it. */
extern int shmi_ring_fence;
static inline int shmi_bell_sleepers(struct shmi_bell *bell)
{
    if (shmi_ring_fence) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else __asm__ volatile("" ::: "memory");
    return __atomic_load_n(&bell->sleepers, __ATOMIC_RELAXED) != 0;
}
static inline int shmi_bell_sleepers_after_sc(struct shmi_bell *bell)
{
    return __atomic_load_n(&bell->sleepers, __ATOMIC_SEQ_CST) != 0;
}
/* Any sleeper: of data and catch-all waits, or of barriers and collectives. */
static inline int shmi_bell_any(struct shmi_bell *bell)
{
    if (shmi_ring_fence) __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else __asm__ volatile("" ::: "memory");
    return (__atomic_load_n(&bell->sleepers, __ATOMIC_RELAXED) |
            __atomic_load_n(&bell->sync, __ATOMIC_RELAXED)) != 0;
}
static inline int shmi_bell_any_after_sc(struct shmi_bell *bell)
{
    return (__atomic_load_n(&bell->sleepers, __ATOMIC_SEQ_CST) |
            __atomic_load_n(&bell->sync, __ATOMIC_SEQ_CST)) != 0;
}

/* After a write we cannot describe: wake every sleeper of that PE. */
static inline void shmi_ring(struct shmi_bell *bell)
{
    if (shmi_bell_any(bell)) shmi_ring_slow(bell);
}
static inline void shmi_ring_after_sc(struct shmi_bell *bell)
{
    if (shmi_bell_any_after_sc(bell)) shmi_ring_slow(bell);
}
/* After a barrier or collective flag (a peer's, through its mapping). */
static inline void shmi_ring_sync(struct shmi_bell *bell)
{
    if (shmi_bell_any(bell)) shmi_ring_sync_slow(bell);
}
static inline void shmi_ring_sync_after_sc(struct shmi_bell *bell)
{
    if (shmi_bell_any_after_sc(bell)) shmi_ring_sync_slow(bell);
}
/* After a put, AMO or signal into the peer's copy of [addr, addr + len)
 * (addr: our own symmetric address of the same bytes). */
static inline void shmi_ring_data(struct shmi_bell *bell, const void *addr, size_t len)
{
    if (shmi_bell_sleepers(bell)) shmi_ring_data_slow(bell, addr, len);
}
static inline void shmi_ring_data_after_sc(struct shmi_bell *bell, const void *addr, size_t len)
{
    if (shmi_bell_sleepers_after_sc(bell)) shmi_ring_data_slow(bell, addr, len);
}

#endif
