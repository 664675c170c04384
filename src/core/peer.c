/* peer.c - the core's side of the transport interface (transport/tp.h):
 * moving bytes to and from any PE whatever the route, and the one fatal
 * message when a transport fails.
 *
 * Entry points write the mapped case inline (shmi_tp_route gives NULL: a
 * plain load or store) and call here otherwise; collectives, whose members
 * may sit anywhere, call shmi_peer_read/_write for every access to a
 * member's memory.  Addresses on the peer's side are our symmetric ones,
 * already checked by the caller. */
#include "core/state.h"

#include <string.h>

_Noreturn void shmi_tp_fail(const char *fn, const struct shmi_tp_ops *via, int pe, int rc)
{
    char why[512];
    shmi_fatal("%s: %s", fn, via->why(&shmi_g.tp, pe, rc, why, sizeof why));
}

_Noreturn void shmi_tp_fail_at(const char *fn, const char *what, const void *addr,
                               const struct shmi_tp_ops *via, int pe, int rc)
{
    char why[512];
    shmi_fatal("%s: %s=%p (pe=%d) %s", fn, what, addr, pe,
               via->why(&shmi_g.tp, pe, rc, why, sizeof why));
}

/* tp.h: a connection to another node failed while the job runs.  Once the
 * finalize barrier is passed, peers that leave close their connections:
 * that is no failure. */
static void peer_lost(int pe, const char *why, int waiting)
{
    (void)pe;
    if (shmi_g.phase != SHMI_RUNNING || shmi_g.leaving) return;
    const struct shmi_wait_desc *d = waiting ? shmi_wait_cur : NULL;
    /* Not through the launcher's abort: it may need the lost network (Slurm's
     * PMIx plugin waits ~10 s for srun); every PE finds the loss itself, and
     * the launcher sees each exit. */
    shmi_log_set_abort_hook(NULL);
    shmi_fatal("lost the connection to %s, while %s%s; the network between the nodes is down or "
               "that node's PEs stopped, so the job ends (check the link and the other node, "
               "then run it again)", why, d && d->what ? "waiting in " : "",
               d && d->what ? d->what : "in a transfer or outside symheap");
}

void shmi_peer_init(void) { shmi_tp_lost_hook = peer_lost; }

/* What a transfer through a transport waits for, while it runs: a network
 * operation that does not complete soon reports a sleep to the waits' hook
 * (transport/wait.h), and the watchdog then says "in FN, a network operation
 * with PE N" for this PE instead of "not waiting in symheap".  One
 * thread-local store each way, off the mapped fast path.  pe1: 1 + the PE,
 * or -1 for every PE (quiet). */
#define PEER_OP(fn_, pe1_, call)                                              \
    do {                                                                      \
        const struct shmi_wait_desc *prev_ = shmi_wait_cur;                   \
        struct shmi_wait_desc d_ = { fn_, NULL, -1, 0, 0, pe1_ };             \
        shmi_wait_cur = &d_;                                                  \
        call;                                                                 \
        shmi_wait_cur = prev_;                                                \
    } while (0)

void shmi_peer_put(const char *fn, const struct shmi_tp_ops *via, void *dest, const void *src,
                   size_t n, int pe, int mode)
{
    int rc;
    PEER_OP(fn, pe + 1, rc = via->put(&shmi_g.tp, dest, src, n, pe, mode));
    if (rc) shmi_tp_fail(fn, via, pe, rc);
}

void shmi_peer_get(const char *fn, const struct shmi_tp_ops *via, void *dest, const void *src,
                   size_t n, int pe, int mode)
{
    int rc;
    PEER_OP(fn, pe + 1, rc = via->get(&shmi_g.tp, dest, src, n, pe, mode));
    if (rc) shmi_tp_fail(fn, via, pe, rc);
}

uint64_t shmi_peer_amo(const char *fn, const char *what, const struct shmi_tp_ops *via,
                       void *dest, size_t size, enum shmi_amo_op op, uint64_t v, uint64_t c,
                       int pe)
{
    uint64_t old = 0;
    int rc;
    PEER_OP(fn, pe + 1, rc = via->amo(&shmi_g.tp, dest, size, op, v, c, &old, pe));
    if (rc) shmi_tp_fail_at(fn, what, dest, via, pe, rc);
    return old;
}

void shmi_peer_read(const char *fn, void *dst, const void *sym, size_t n, int pe)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, sym, dst, pe);
    if (SHMI_TP_DIRECT(via)) memcpy(dst, shmi_tp_ptr(&shmi_g.tp, sym, pe), n);
    else shmi_peer_get(fn, via, dst, sym, n, pe, SHMI_TP_BLOCKING);
}

void shmi_peer_write(const char *fn, void *sym, const void *src, size_t n, int pe, int mode)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, sym, src, pe);
    if (SHMI_TP_DIRECT(via)) memcpy(shmi_tp_ptr(&shmi_g.tp, sym, pe), src, n);
    else shmi_peer_put(fn, via, sym, src, n, pe, mode);
}

uint64_t shmi_peer_atomic(const char *fn, void *sym, size_t size, enum shmi_amo_op op, uint64_t v,
                          uint64_t c, int pe)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, sym, NULL, pe);
    if (SHMI_TP_DIRECT(via)) return shmi_tp_atomic(shmi_tp_ptr(&shmi_g.tp, sym, pe), size, op, v, c);
    return shmi_peer_amo(fn, "dest", via, sym, size, op, v, c, pe);
}

void shmi_quiet(void)
{
    const struct shmi_tp_ops *who = NULL;
    int rc;
    if (SHMI_LIKELY(shmi_g.tp.nused <= 1)) rc = shmi_tp_quiet(&shmi_g.tp, &who); /* a fence */
    else PEER_OP("shmem_quiet", -1, rc = shmi_tp_quiet_all(&shmi_g.tp, &who));
    if (rc) shmi_tp_fail("shmem_quiet", who, -1, rc);
}

void shmi_fence(void)
{
    const struct shmi_tp_ops *who;
    int rc = shmi_tp_fence(&shmi_g.tp, &who);
    if (rc) shmi_tp_fail("shmem_fence", who, -1, rc);
}
