/* tp.h - how bytes reach a peer.
 *
 * On one node every PE maps every peer's segments (heap, globals) into its own
 * address space, so a peer's copy of a symmetric object is an ordinary
 * pointer: shmi_tp_ptr translates, puts/gets are memcpy and atomics are CPU
 * atomics on the shared line.  A PE on another node has no mapping
 * (tp->remote[pe] != 0): the UCX transport (ucx.h) carries its operations,
 * and the API layer must ask shmi_tp_remote before it dereferences a peer
 * pointer.  For such a PE the translation points into an inaccessible
 * (PROT_NONE) reservation, so a path that forgets to ask faults at once
 * instead of silently using our own copy.
 *
 * Translation: for segment s, peer pe's copy of address a is
 * a + delta[s][pe], where delta is the peer mapping's base minus ours (0 for
 * ourselves).  Two compares and an add; no lookup structure. */
#ifndef SHMI_TP_H
#define SHMI_TP_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/boot.h"
#include "heap/heap.h"

#define SHMI_TP_MAX_SEGS 2

struct shmi_bell;

struct shmi_tp_seg {
    uintptr_t base;     /* our mapping */
    size_t size;
    intptr_t *delta;    /* [npes]; peer address = a + delta[pe] */
    void **peer;        /* [npes]; the peer's mapping in our address space, NULL
                           for remote PEs */
    void *none;         /* PROT_NONE reservation remote PEs translate into */
};

struct shmi_tp {
    int me, npes;
    int nseg;
    struct shmi_tp_seg seg[SHMI_TP_MAX_SEGS];
    /* [npes]: 1 for a PE on another node (reached through UCX); NULL when
     * every PE is on this node, so the local path tests one pointer. */
    uint8_t *remote;
    int nremote;
};

/* PE pe is on another node: no load/store, use the UCX transport. */
static inline int shmi_tp_remote(const struct shmi_tp *tp, int pe)
{
    return __builtin_expect(tp->remote != NULL, 0) && tp->remote[pe];
}

/* Collective: exchange the segments' fds through the bootstrap and map every
 * node-local peer's segments (closing the fds afterwards: once every PE has
 * mapped, the memory lives exactly as long as the mappings); when the job
 * spans nodes, start the UCX transport for the others (bell: our doorbell,
 * for its progress thread).  Segments must be given in the same order on
 * every PE, with equal sizes (checked).  Error: one line in err, negative
 * code. */
int shmi_tp_init(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg,
                 struct shmi_bell *bell, char *err, size_t errlen);
void shmi_tp_fini(struct shmi_tp *tp);

/* Index of the segment containing [a, a+n) (n may be 0), or -1. */
static inline int shmi_tp_seg_of(const struct shmi_tp *tp, const void *a, size_t n)
{
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < tp->nseg; s++)
        if (x - tp->seg[s].base < tp->seg[s].size && n <= tp->seg[s].size - (x - tp->seg[s].base))
            return s;
    return -1;
}

/* Peer pe's copy of symmetric address a, as a pointer we can load/store, or
 * NULL when a is not symmetric. pe must be valid and not remote (a remote
 * PE's pointer is inaccessible: check shmi_tp_remote first). */
static inline void *shmi_tp_ptr(const struct shmi_tp *tp, const void *a, int pe)
{
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < tp->nseg; s++)
        if (x - tp->seg[s].base < tp->seg[s].size)
            return (void *)(x + (uintptr_t)tp->seg[s].delta[pe]);
    return NULL;
}

/* ---- Waiting -------------------------------------------------------------
 * Every PE has a doorbell in its control block.  A waiter polls its
 * condition (SHMEM_WAIT_SPIN times), then yields a few times, then sleeps on
 * the doorbell with a futex (timed, so a store made directly through
 * shmem_ptr, which rings no bell, is still seen within about a millisecond).
 * A writer that changed a peer's memory rings the peer's bell, which costs a
 * system call only when someone sleeps there. */
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
