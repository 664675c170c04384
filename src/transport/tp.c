/* tp.c - the transport table: which rows this build has, and the choice of
 * a row per PE and memory kind (tp.h).  The only file of the library where
 * a transport's presence is an #if.
 *
 * Host memory (heap, globals): PEs of this node are mapped by the shm row
 * (a NULL route: loads and stores); a PE of another node gets the first
 * network row of this build, or the job is refused at shmem_init with a
 * line saying what to install.  GPU memory: the cuda row for PEs of this
 * node, the "none" row (a clear error at the first operation) for others. */
#include "transport/tp.h"
#include "util/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void (*shmi_tp_lost_hook)(int pe, const char *why, int waiting);

/* Rows that reach PEs on other nodes, in order of preference. */
static const struct shmi_tp_ops *const net_rows[] = {
#if SHMI_HAVE_UCX
    &shmi_tp_ucx,
#endif
    NULL,
};

static void use(struct shmi_tp *tp, const struct shmi_tp_ops *ops)
{
    for (int i = 0; i < tp->nused; i++)
        if (tp->used[i] == ops) return;
    if (tp->nused < (int)(sizeof tp->used / sizeof tp->used[0])) tp->used[tp->nused++] = ops;
}

static int no_net_row(shmi_boot_t *b, char *err, size_t errlen)
{
    char pes[64] = "";
    for (int i = 0, at = 0; i < b->local_size && at < (int)sizeof pes - 12; i++)
        at += snprintf(pes + at, sizeof pes - (size_t)at, "%s%d", i ? "," : "", b->local_pes[i]);
    snprintf(err, errlen, "the job's %d PEs run on more than one node (this node, %.64s, "
             "has %d of them: PEs %s%s); multi-node needs the UCX transport, and this "
             "symheap was built without it: install libucx-dev and rebuild, or start all "
             "PEs on one node (mpirun --host %.64s:%d, srun -N 1)", b->size,
             b->hostname[0] ? b->hostname : "?", b->local_size, pes,
             b->local_size > 8 ? ",..." : "", b->hostname[0] ? b->hostname : "HOST", b->size);
    return SHMI_ENOTSUP;
}

/* PEs of other nodes (not in the bootstrap's local_pes), and every PE's
 * node as its lowest world PE (one allgather, only when the job spans
 * nodes). */
static int find_remote(struct shmi_tp *tp, shmi_boot_t *b)
{
    if (b->local_size == b->size) return SHMI_OK;
    tp->remote = malloc((size_t)b->size);
    tp->node = calloc((size_t)b->size, sizeof *tp->node);
    if (!tp->remote || !tp->node) return SHMI_ENOMEM;
    memset(tp->remote, 1, (size_t)b->size);
    int lowest = b->rank;
    for (int i = 0; i < b->local_size; i++) {
        tp->remote[b->local_pes[i]] = 0;
        if (b->local_pes[i] < lowest) lowest = b->local_pes[i];
    }
    tp->nremote = b->size - b->local_size;
    return shmi_boot_allgather(b, &lowest, tp->node, sizeof lowest);
}

int shmi_tp_init(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg,
                 struct shmi_bell *bell, char *err, size_t errlen)
{
    double net_timeout = tp->net_timeout; /* the caller's setting */
    memset(tp, 0, sizeof *tp);
    tp->net_timeout = net_timeout;
    tp->me = b->rank;
    tp->npes = b->size;
    tp->bell = bell;
    int rc = find_remote(tp, b);
    if (rc != SHMI_OK) {
        snprintf(err, errlen, "finding the PEs of other nodes failed (%s)", shmi_strerror(rc));
        shmi_tp_fini(tp);
        return rc;
    }
    const struct shmi_tp_ops *net = net_rows[0];
    if (tp->nremote && !net) rc = no_net_row(b, err, errlen);
    if (rc == SHMI_OK) rc = shmi_tp_shm.init(tp, b, segs, nseg, err, errlen);
    if (rc == SHMI_OK) use(tp, &shmi_tp_shm);
    if (rc == SHMI_OK && tp->nremote) {
        tp->via_host = calloc((size_t)tp->npes, sizeof *tp->via_host);
        if (!tp->via_host) rc = SHMI_ENOMEM;
        for (int pe = 0; rc == SHMI_OK && pe < tp->npes; pe++)
            if (tp->remote[pe]) tp->via_host[pe] = net;
        if (rc == SHMI_OK) rc = net->init(tp, b, segs, nseg, err, errlen);
        if (rc == SHMI_OK) use(tp, net);
    }
    if (rc != SHMI_OK) shmi_tp_fini(tp);
    return rc;
}

void shmi_tp_fini(struct shmi_tp *tp)
{
    shmi_tp_dev_detach(tp);
    for (int i = tp->nused - 1; i >= 0; i--)
        if (tp->used[i]->fini) tp->used[i]->fini(tp);
    if (!tp->nused) shmi_tp_shm.fini(tp); /* a failed init may have mapped some */
    tp->nused = 0;
    free(tp->via_host);
    free(tp->remote);
    free(tp->node);
    tp->via_host = NULL;
    tp->remote = NULL;
    tp->node = NULL;
    tp->nremote = 0;
}

int shmi_tp_dev_attach(struct shmi_tp *tp, const struct shmi_tp_dev *dev)
{
    const struct shmi_tp_ops **via = calloc((size_t)tp->npes, sizeof *via);
    if (!via) return SHMI_ENOMEM;
    for (int pe = 0; pe < tp->npes; pe++)
        via[pe] = tp->remote && tp->remote[pe] ? &shmi_tp_none : &shmi_tp_cuda;
    tp->dev = *dev;
    tp->via_dev = via;
    use(tp, &shmi_tp_cuda);
    return SHMI_OK;
}

void shmi_tp_dev_detach(struct shmi_tp *tp)
{
    free(tp->via_dev);
    tp->via_dev = NULL;
    memset(&tp->dev, 0, sizeof tp->dev);
    for (int i = 0; i < tp->nused; i++)
        if (tp->used[i] == &shmi_tp_cuda) tp->used[i] = tp->used[--tp->nused];
}

int shmi_tp_quiet_all(struct shmi_tp *tp, const struct shmi_tp_ops **who)
{
    for (int i = 0; i < tp->nused; i++) {
        int rc = tp->used[i]->quiet(tp);
        if (rc) return *who = tp->used[i], rc;
    }
    return SHMI_OK;
}

int shmi_tp_fence_all(struct shmi_tp *tp, const struct shmi_tp_ops **who)
{
    for (int i = 0; i < tp->nused; i++) {
        int rc = tp->used[i]->fence(tp);
        if (rc) return *who = tp->used[i], rc;
    }
    return SHMI_OK;
}

int shmi_tp_node(const struct shmi_tp *tp, int pe) { return tp->node ? tp->node[pe] : 0; }

const char *shmi_tp_names(const struct shmi_tp *tp, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < tp->nused && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "+" : "", tp->used[i]->name);
    return buf;
}

/* ---- the missing route ---------------------------------------------------------
 * GPU memory of a PE on another node: no row of this build reaches it. */

static int none_xfer(struct shmi_tp *tp, void *d, const void *s, size_t n, int pe, int mode)
{
    (void)tp, (void)d, (void)s, (void)n, (void)pe, (void)mode;
    return SHMI_ENOTSUP;
}

static int none_amo(struct shmi_tp *tp, void *dest, size_t size, enum shmi_amo_op op, uint64_t v,
                    uint64_t c, uint64_t *old, int pe)
{
    (void)tp, (void)dest, (void)size, (void)op, (void)v, (void)c, (void)old, (void)pe;
    return SHMI_ENOTSUP;
}

static int none_flag(struct shmi_tp *tp, uint64_t *flag, uint64_t w, int pe)
{
    (void)tp, (void)flag, (void)w, (void)pe;
    return SHMI_ENOTSUP;
}

static int none_done(struct shmi_tp *tp)
{
    (void)tp;
    return SHMI_OK;
}

static void none_progress(struct shmi_tp *tp) { (void)tp; }

static const char *none_why(struct shmi_tp *tp, int pe, int rc, char *buf, size_t len)
{
    (void)tp, (void)rc;
    snprintf(buf, len, "PE %d is on another node, and GPU memory is reached only on this node "
             "(host memory works across nodes; see docs/cluster.md)", pe);
    return buf;
}

const struct shmi_tp_ops shmi_tp_none = {
    .name = "none", .put = none_xfer, .get = none_xfer, .amo = none_amo, .flag = none_flag,
    .fence = none_done, .quiet = none_done, .progress = none_progress, .why = none_why,
};
