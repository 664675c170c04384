/* net.c - the API layer's side of PEs on other nodes (issue 9): the calls
 * rma.c, amo.c, signal.c and sync.c make once shmi_tp_remote(pe) said the PE
 * has no mapping, and the fatal message when the network fails.
 *
 * Dispatch: every entry point translates a symmetric address for a PE with
 * shmi_sym (which checks bounds); the operation then tests
 * shmi_tp_remote(&shmi_g.tp, pe): a NULL test when the job runs on one node,
 * so the local path pays one predictable branch.  Remote operations never
 * ring the peer's doorbell: its UCX progress thread rings it (ucx.h).
 *
 * Team collectives and splits on teams spanning nodes use shmi_peer_read
 * and shmi_peer_write (coll.c, reduce.c, team.c).  Not routed yet (refused
 * with one line, or listed in docs/cluster.md): locks on a lock word whose
 * queue lives on another node, GPU memory, shmem_ptr (NULL for remote PEs). */
#include "core/state.h"
#include "core/team.h"
#include "transport/ucx.h"

#include <string.h>

_Noreturn void shmi_net_fail(const char *fn, int pe, int rc)
{
    char why[256];
    shmi_fatal("%s: the network operation with %s failed: the PE (or its node) is gone, or "
               "UCX cannot reach it (check UCX_TLS, UCX_NET_DEVICES)", fn,
               shmi_ucx_why(pe, rc, why, sizeof why));
}

void shmi_net_put(const char *fn, void *dest, const void *src, size_t n, int pe, int nbi)
{
    int rc = shmi_ucx_put(dest, src, n, pe, nbi);
    if (rc) shmi_net_fail(fn, pe, rc);
}

void shmi_net_get(const char *fn, void *dest, const void *src, size_t n, int pe, int nbi)
{
    int rc = shmi_ucx_get(dest, src, n, pe, nbi);
    if (rc) shmi_net_fail(fn, pe, rc);
}

uint64_t shmi_net_amo(const char *fn, void *dest, size_t size, int op, uint64_t v, uint64_t c,
                      int pe)
{
    uint64_t old = 0;
    int rc = shmi_ucx_amo(dest, size, (enum shmi_ucx_amo)op, v, c, &old, pe);
    if (rc) shmi_net_fail(fn, pe, rc);
    return old;
}

void shmi_net_quiet(void)
{
    int rc = shmi_ucx_quiet();
    if (rc) shmi_net_fail("shmem_quiet", -1, rc);
}

void shmi_net_fence(void)
{
    int rc = shmi_ucx_fence();
    if (rc) shmi_net_fail("shmem_fence", -1, rc);
}

void shmi_peer_read(const char *fn, void *dst, const void *sym, size_t n, int pe)
{
    if (shmi_tp_remote(&shmi_g.tp, pe)) shmi_net_get(fn, dst, sym, n, pe, 0);
    else memcpy(dst, shmi_tp_ptr(&shmi_g.tp, sym, pe), n);
}

void shmi_peer_write(const char *fn, void *sym, const void *src, size_t n, int pe)
{
    if (shmi_tp_remote(&shmi_g.tp, pe)) shmi_net_put(fn, sym, src, n, pe, 0);
    else memcpy(shmi_tp_ptr(&shmi_g.tp, sym, pe), src, n);
}

/* A barrier flag into pe's control block: an 8-byte aligned put (a single
 * store at the target: UCX's TCP transport copies it with one 8-byte move,
 * and RDMA writes of aligned 8 bytes are not torn), fire and forget: the
 * barrier's own waits order it, and quiet/fini flush it. */
void shmi_net_flag(uint64_t *flag, uint64_t w, int pe)
{
    int rc = shmi_ucx_put(flag, &w, sizeof w, pe, SHMI_UCX_UNTRACKED);
    if (rc) shmi_net_fail("a barrier", pe, rc);
}

int shmi_net_node(int pe) { return shmi_ucx_node(pe); }
