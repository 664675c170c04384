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
#include "transport/wait.h"

#define SHMI_TP_MAX_SEGS 2

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

#endif
