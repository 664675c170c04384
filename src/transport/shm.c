/* shm.c - the load/store transport for PEs of one node: map every peer's
 * segments, given their memfds through the bootstrap (SCM_RIGHTS).  PEs of
 * other nodes (not in the bootstrap's local_pes) get no mapping: they are
 * the UCX transport's (ucx.c), started from here when the job spans nodes. */
#include "transport/tp.h"
#include "transport/ucx.h"
#include "util/err.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void seg_free(struct shmi_tp_seg *s, int npes, int me)
{
    if (s->peer)
        for (int pe = 0; pe < npes; pe++)
            if (pe != me && s->peer[pe]) munmap(s->peer[pe], s->size);
    free(s->peer);
    free(s->delta);
    if (s->none) munmap(s->none, s->size);
    s->peer = NULL;
    s->delta = NULL;
    s->none = NULL;
}

static int check_sizes(shmi_boot_t *b, struct shmi_seg *segs, int nseg, char *err, size_t errlen)
{
    size_t mine[SHMI_TP_MAX_SEGS] = { 0 };
    for (int s = 0; s < nseg; s++) mine[s] = segs[s].size;
    size_t *all = calloc((size_t)b->size, sizeof mine);
    if (!all) return SHMI_ENOMEM;
    int rc = shmi_boot_allgather(b, mine, all, sizeof mine);
    for (int pe = 0; rc == SHMI_OK && pe < b->size; pe++)
        for (int s = 0; s < nseg; s++)
            if (all[pe * SHMI_TP_MAX_SEGS + s] != mine[s]) {
                snprintf(err, errlen, "PE %d's %s segment is %zu bytes, ours %zu: every PE "
                         "must run the same executable with the same SHMEM_SYMMETRIC_SIZE",
                         pe, segs[s].name, all[pe * SHMI_TP_MAX_SEGS + s], mine[s]);
                rc = SHMI_EINVAL;
            }
    free(all);
    return rc;
}

static int map_peers(struct shmi_tp *tp, struct shmi_seg *segs, int nseg, const int *fds,
                     char *err, size_t errlen)
{
    for (int s = 0; s < nseg; s++) {
        struct shmi_tp_seg *ts = &tp->seg[s];
        ts->base = (uintptr_t)segs[s].base;
        ts->size = segs[s].size;
        ts->delta = calloc((size_t)tp->npes, sizeof *ts->delta);
        ts->peer = calloc((size_t)tp->npes, sizeof *ts->peer);
        if (!ts->delta || !ts->peer) return SHMI_ENOMEM;
        tp->nseg = s + 1;
        if (tp->nremote) {
            /* remote PEs translate into this: touching it faults (tp.h) */
            ts->none = mmap(NULL, ts->size, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (ts->none == MAP_FAILED) {
                ts->none = NULL;
                snprintf(err, errlen, "cannot reserve address space for the remote PEs' %s: %s",
                         segs[s].name, strerror(errno));
                return SHMI_ESYS;
            }
        }
        for (int pe = 0; pe < tp->npes; pe++) {
            void *at = segs[s].base;
            if (tp->remote && tp->remote[pe]) {
                ts->delta[pe] = (intptr_t)((uintptr_t)ts->none - ts->base);
                continue;
            }
            if (pe != tp->me &&
                shmi_mkind_host.map(fds[pe * nseg + s], ts->size, NULL, 0, &at) != SHMI_OK) {
                char sz[32];
                snprintf(err, errlen, "cannot map PE %d's %s (%s): %s; with many PEs lower "
                         "SHMEM_SYMMETRIC_SIZE (each PE maps every peer's heap)", pe,
                         segs[s].name, shmi_fmt_size(ts->size, sz, sizeof sz), strerror(errno));
                return SHMI_ESYS;
            }
            ts->peer[pe] = at;
            ts->delta[pe] = (intptr_t)((uintptr_t)at - ts->base);
        }
    }
    return SHMI_OK;
}

/* PEs of other nodes: tp->remote, or a refusal when UCX is not built in. */
static int find_remote(struct shmi_tp *tp, shmi_boot_t *b, char *err, size_t errlen)
{
    if (b->local_size == b->size) return SHMI_OK;
    if (!shmi_ucx_built) {
        char pes[64] = "";
        for (int i = 0, at = 0; i < b->local_size && at < (int)sizeof pes - 12; i++)
            at += snprintf(pes + at, sizeof pes - (size_t)at, "%s%d", i ? "," : "",
                           b->local_pes[i]);
        snprintf(err, errlen, "the job's %d PEs run on more than one node (this node, %.64s, "
                 "has %d of them: PEs %s%s); multi-node needs the UCX transport, and this "
                 "symheap was built without it: install libucx-dev and rebuild, or start all "
                 "PEs on one node (mpirun --host %.64s:%d, srun -N 1)", b->size,
                 b->hostname[0] ? b->hostname : "?", b->local_size, pes,
                 b->local_size > 8 ? ",..." : "", b->hostname[0] ? b->hostname : "HOST",
                 b->size);
        return SHMI_ENOTSUP;
    }
    tp->remote = malloc((size_t)b->size);
    if (!tp->remote) return SHMI_ENOMEM;
    memset(tp->remote, 1, (size_t)b->size);
    for (int i = 0; i < b->local_size; i++) tp->remote[b->local_pes[i]] = 0;
    tp->nremote = b->size - b->local_size;
    return SHMI_OK;
}

int shmi_tp_init(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg,
                 struct shmi_bell *bell, char *err, size_t errlen)
{
    memset(tp, 0, sizeof *tp);
    tp->me = b->rank;
    tp->npes = b->size;
    int rc = check_sizes(b, segs, nseg, err, errlen);
    if (rc == SHMI_OK) rc = find_remote(tp, b, err, errlen);
    if (rc != SHMI_OK) {
        shmi_tp_fini(tp);
        return rc;
    }
    int mine[SHMI_TP_MAX_SEGS], *all = malloc((size_t)b->size * (size_t)nseg * sizeof(int));
    if (!all) return SHMI_ENOMEM;
    for (int s = 0; s < nseg; s++) mine[s] = segs[s].fd;
    if (!b->ops->exchange_fds) {
        snprintf(err, errlen, "bootstrap '%s' cannot pass memory handles between PEs",
                 b->ops->name);
        free(all);
        shmi_tp_fini(tp);
        return SHMI_ENOTSUP;
    }
    rc = b->ops->exchange_fds(b, mine, nseg, all);
    if (rc != SHMI_OK) {
        snprintf(err, errlen, "exchanging memory handles with the other PEs failed (%s)",
                 shmi_strerror(rc));
        free(all);
        shmi_tp_fini(tp);
        return rc;
    }
    rc = map_peers(tp, segs, nseg, all, err, errlen);
    for (int i = 0; i < b->size * nseg; i++)
        if (all[i] >= 0) close(all[i]);
    free(all);
    if (rc == SHMI_OK && tp->remote)
        rc = shmi_ucx_init(b, segs, nseg, tp->remote, bell, err, errlen);
    if (rc != SHMI_OK) shmi_tp_fini(tp);
    return rc;
}

void shmi_tp_fini(struct shmi_tp *tp)
{
    if (tp->remote) shmi_ucx_fini();
    for (int s = 0; s < tp->nseg; s++) seg_free(&tp->seg[s], tp->npes, tp->me);
    tp->nseg = 0;
    free(tp->remote);
    tp->remote = NULL;
    tp->nremote = 0;
}
