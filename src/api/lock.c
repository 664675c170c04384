/* lock.c - distributed locks (shmem_set_lock, _test_lock, _clear_lock): an
 * MCS queue lock kept in the symmetric long itself, the scheme SOS uses.
 *
 * The long (8 bytes, 0 on every PE before first use) is two 32-bit words:
 *   word[0] on PE 0: the queue's tail, 1 + the PE that asked last, 0 = free;
 *   word[1] on each PE: that PE's queue node: its successor (1 + PE) in
 *           bits 0-29, GRANTED (bit 30: the lock was handed to this PE),
 *           QUEUED (bit 31: this PE is waiting for or holding the lock).
 * set_lock swaps itself into the tail; if there was a predecessor it links
 * itself into the predecessor's node and waits on its own node for GRANTED.
 * clear_lock (after a quiet) swaps the tail back to 0 if it is still the
 * last; otherwise it waits for its successor's link and sets GRANTED in the
 * successor's node.  First come, first served (the tail swap's order); every
 * waiter spins on its own PE's memory and sleeps through shmi_wait, woken by
 * the doorbell the linker/granter rings, so 8 PEs on 2 cores make progress.
 * Ordering: tail swap/cas are acq_rel, the link and the grant are release /
 * acquire: the critical section's writes are visible to the next holder.
 *
 * QUEUED in our own node lets us report misuse: a set/test_lock while this
 * PE holds or awaits the lock (not reentrant), a clear_lock without holding
 * it, and a lock word that was not 0 before first use.  Only this PE and its
 * successor write its node, and the successor only while we are queued. */
#include "api/ctx.h"
#include "core/mem_device.h" /* shmi_sym_any */

#define NEXT_MASK 0x3fffffffu
#define GRANTED 0x40000000u
#define QUEUED 0x80000000u

_Static_assert(sizeof(long) == 2 * sizeof(uint32_t), "lock words need an 8-byte long");

struct bits_wait {
    const uint32_t *word;
    uint32_t mask;
};

static int bits_set(const void *arg)
{
    const struct bits_wait *w = arg;
    return (__atomic_load_n(w->word, __ATOMIC_ACQUIRE) & w->mask) != 0;
}

/* Wait until *word (ours) has a bit of mask; returns its value.  what names
 * the wait for the watchdog. */
static uint32_t wait_bits(const char *what, long *lock, const uint32_t *word, uint32_t mask)
{
    struct bits_wait w = { word, mask };
    if (!bits_set(&w)) {
        struct shmi_wait_desc d = { what, lock, -1, 0, 0, 0 };
        shmi_wait_cur = &d;
        shmi_wait_data(&shmi_g.ctl->bell, word, sizeof *word, bits_set, &w);
    }
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

/* word i of PE pe's copy of the lock (checked; pe on this node). */
static uint32_t *word_of(const char *fn, long *lock, int i, int pe)
{
    return (uint32_t *)shmi_sym(fn, "lock", lock, sizeof *lock, pe) + i;
}

/* One atomic on word i of PE pe's copy: a CPU atomic through the mapping, or
 * by another route (tp.h; another node, issue 9) the transport's atomic,
 * which the target's progress thread follows with a ring of its doorbell.
 * Returns the old value (op: swap, or, or cswap of v for c); the local
 * orders are those the header states. */
static uint32_t lock_amo(const char *fn, long *lock, int i, int pe, enum shmi_amo_op op,
                         uint32_t v, uint32_t c)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, lock, NULL, pe);
    if (!SHMI_TP_DIRECT(via)) {
        shmi_sym_any(fn, "lock", lock, sizeof *lock, pe); /* checked like the local path */
        return (uint32_t)shmi_peer_amo(fn, "lock", via, (uint32_t *)lock + i, sizeof(uint32_t),
                                       op, v, c, pe);
    }
    uint32_t *w = word_of(fn, lock, i, pe), old = c;
    switch (op) {
    case SHMI_AMO_SWAP: old = __atomic_exchange_n(w, v, __ATOMIC_ACQ_REL); break;
    case SHMI_AMO_OR: old = __atomic_fetch_or(w, v, __ATOMIC_RELEASE); break;
    default: __atomic_compare_exchange_n(w, &old, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    if (pe != shmi_g.me && op == SHMI_AMO_OR)
        shmi_ring_data(shmi_tp_bell(&shmi_g.tp, pe), (uint32_t *)lock + i, sizeof(uint32_t));
    return old;
}

/* Our node, checked idle (we neither hold nor await this lock). */
static uint32_t *idle_node(const char *fn, long *lock)
{
    shmi_check_running(fn);
    if ((uintptr_t)lock % sizeof *lock)
        shmi_fatal("%s: lock=%p is not aligned to 8 bytes: use a symmetric long", fn,
                   (void *)lock);
    uint32_t *mine = word_of(fn, lock, 1, shmi_g.me);
    uint32_t v = __atomic_load_n(mine, __ATOMIC_ACQUIRE);
    if (v & QUEUED)
        shmi_fatal("%s(lock=%p): this PE already %s the lock: OpenSHMEM locks are not "
                   "reentrant; clear it first (threads of one PE must take turns)", fn,
                   (void *)lock, v & GRANTED ? "holds" : "waits for");
    if (v)
        shmi_fatal("%s(lock=%p): the lock word holds 0x%lx, not 0: set the lock to 0 on every "
                   "PE before its first use, and touch it only with the lock calls", fn,
                   (void *)lock, (unsigned long)*lock);
    return mine;
}

void shmem_set_lock(long *lock)
{
    uint32_t *mine = idle_node(__func__, lock), me1 = (uint32_t)shmi_g.me + 1;
    __atomic_store_n(mine, QUEUED, __ATOMIC_RELAXED);
    uint32_t prev = lock_amo(__func__, lock, 0, 0, SHMI_AMO_SWAP, me1, 0);
    if (prev == 0) {
        __atomic_fetch_or(mine, GRANTED, __ATOMIC_RELAXED);
        return;
    }
    lock_amo(__func__, lock, 1, (int)prev - 1, SHMI_AMO_OR, me1, 0);
    wait_bits("shmem_set_lock (queued behind another PE)", lock, mine, GRANTED);
}

int shmem_test_lock(long *lock)
{
    uint32_t *mine = idle_node(__func__, lock), free_tail = 0;
    __atomic_store_n(mine, QUEUED | GRANTED, __ATOMIC_RELAXED);
    if (lock_amo(__func__, lock, 0, 0, SHMI_AMO_CSWAP, (uint32_t)shmi_g.me + 1, free_tail) ==
        free_tail)
        return 0;
    __atomic_store_n(mine, 0, __ATOMIC_RELAXED); /* not queued: nobody links to us */
    return 1;
}

void shmem_clear_lock(long *lock)
{
    shmi_check_running(__func__);
    uint32_t *mine = word_of(__func__, lock, 1, shmi_g.me), me1 = (uint32_t)shmi_g.me + 1;
    uint32_t v = __atomic_load_n(mine, __ATOMIC_ACQUIRE);
    if ((v & (QUEUED | GRANTED)) != (QUEUED | GRANTED))
        shmi_fatal("shmem_clear_lock(lock=%p): this PE does not hold the lock%s: clear only a "
                   "lock taken with shmem_set_lock or shmem_test_lock", (void *)lock,
                   v & QUEUED ? " (it is still waiting for it)" : "");
    shmi_quiet();
    if (lock_amo(__func__, lock, 0, 0, SHMI_AMO_CSWAP, 0, me1) != me1) {
        /* Someone swapped in after us: wait for its link, then hand over. */
        uint32_t v1 = wait_bits("shmem_clear_lock (the next PE is linking in)", lock, mine, NEXT_MASK);
        int next = (int)(v1 & NEXT_MASK) - 1;
        lock_amo(__func__, lock, 1, next, SHMI_AMO_OR, GRANTED, 0);
    }
    __atomic_store_n(mine, 0, __ATOMIC_RELAXED);
}
