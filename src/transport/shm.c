/* shm.c - the load/store transport for PEs of one node: map every peer's
 * segments, given their memfds through the bootstrap (SCM_RIGHTS).  PEs of
 * other nodes (tp->remote) get no mapping, only an inaccessible reservation
 * to translate into: another row of the table reaches them (tp.c).
 *
 * Callers normally do not call this row's operations: a NULL route means
 * "mapped", and they load and store inline (tp.h).  The row serves code that
 * takes whatever route comes (core's peer reads and writes), and it is the
 * reference for what the others must do: a put or a non-fetching atomic
 * rings the target's doorbell, whose waiters may sleep (wait.h). */
#include "transport/tp.h"
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

static int shm_init(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg,
                    char *err, size_t errlen)
{
    int rc = check_sizes(b, segs, nseg, err, errlen);
    if (rc != SHMI_OK) return rc;
    int mine[SHMI_TP_MAX_SEGS], *all = malloc((size_t)b->size * (size_t)nseg * sizeof(int));
    if (!all) return SHMI_ENOMEM;
    for (int s = 0; s < nseg; s++) mine[s] = segs[s].fd;
    if (!b->ops->exchange_fds) {
        snprintf(err, errlen, "bootstrap '%s' cannot pass memory handles between PEs",
                 b->ops->name);
        free(all);
        return SHMI_ENOTSUP;
    }
    rc = b->ops->exchange_fds(b, mine, nseg, all);
    if (rc != SHMI_OK) {
        snprintf(err, errlen, "exchanging memory handles with the other PEs failed (%s)",
                 shmi_strerror(rc));
        free(all);
        return rc;
    }
    rc = map_peers(tp, segs, nseg, all, err, errlen);
    for (int i = 0; i < b->size * nseg; i++)
        if (all[i] >= 0) close(all[i]);
    free(all);
    return rc;
}

static void shm_fini(struct shmi_tp *tp)
{
    for (int s = 0; s < tp->nseg; s++) seg_free(&tp->seg[s], tp->npes, tp->me);
    tp->nseg = 0;
}

static int shm_put(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)mode;
    memmove(shmi_tp_ptr(tp, dest, pe), src, n); /* memmove: pe may be ourselves */
    shmi_ring_data(shmi_tp_bell(tp, pe), dest, n);
    return SHMI_OK;
}

static int shm_get(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)mode;
    memmove(dest, shmi_tp_ptr(tp, src, pe), n);
    return SHMI_OK;
}

static int shm_amo(struct shmi_tp *tp, void *dest, size_t size, enum shmi_amo_op op, uint64_t v,
                   uint64_t c, uint64_t *old, int pe)
{
    uint64_t r = shmi_tp_atomic(shmi_tp_ptr(tp, dest, pe), size, op, v, c);
    if (old) *old = r;
    if (op != SHMI_AMO_FETCH) /* seq_cst above */
        shmi_ring_data_after_sc(shmi_tp_bell(tp, pe), dest, size);
    return SHMI_OK;
}

static int shm_flag(struct shmi_tp *tp, uint64_t *flag, uint64_t w, int pe)
{
    __atomic_store_n((uint64_t *)shmi_tp_ptr(tp, flag, pe), w, __ATOMIC_RELEASE);
    shmi_ring_sync(shmi_tp_bell(tp, pe));
    return SHMI_OK;
}

/* Stores reach a mapped peer in program order (TSO; release fences below for
 * the compiler and weaker CPUs); quiet makes them visible to every PE. */
static int shm_fence(struct shmi_tp *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return SHMI_OK;
}

static int shm_quiet(struct shmi_tp *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return SHMI_OK;
}

static void shm_progress(struct shmi_tp *tp) { (void)tp; }

static const char *shm_why(struct shmi_tp *tp, int pe, int rc, char *buf, size_t len)
{
    (void)tp;
    snprintf(buf, len, "shared memory with PE %d: %s", pe, shmi_strerror(rc));
    return buf;
}

const struct shmi_tp_ops shmi_tp_shm = {
    .name = "shm", .mapped = 1, .init = shm_init, .fini = shm_fini, .put = shm_put,
    .get = shm_get, .amo = shm_amo, .flag = shm_flag, .fence = shm_fence, .quiet = shm_quiet,
    .progress = shm_progress, .why = shm_why,
};
