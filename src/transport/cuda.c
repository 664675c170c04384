/* cuda.c - the GPU segment (see cuda.h): address agreement, chunked growth,
 * fd export/import between PEs.
 *
 * Agreement: as for the host heap (heap.c), but with the CUDA driver's
 * reservations: every PE proposes a free range (reserve anywhere, note the
 * address, free it); in round r every PE asks cuMemAddressReserve for the
 * proposal of PE r % npes as a fixed hint and checks it got exactly that
 * address (the driver takes the address as a hint only); an allgather
 * decides; on any refusal everyone frees and the next PE's proposal is
 * tried.  PEs of one program started by symrun (no address randomization)
 * have the same layout, so the first round succeeds.
 *
 * Growth: a chunk is created on every PE (cuMemCreate, exported as a POSIX
 * fd), mapped at base+off; the results are allgathered (all-or-nothing: a PE
 * whose GPU is full makes every PE undo); the fds travel through the
 * bootstrap (SCM_RIGHTS); every PE maps every peer's chunk into that peer's
 * slot; a second allgather confirms, and only then is the creating handle
 * released and the fd closed (the mappings keep the memory alive, so a PE
 * that exits cannot pull memory from under its peers' mappings). */
#include "transport/cuda.h"
#include "transport/tp.h"
#include "heap/mkind_cuda.h"
#include "util/err.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ROUNDS 8
#define BASE_ALIGN ((size_t)1 << 30) /* as the host heap: shmem_align up to 1 GiB */

static const struct shmi_mkind_ops *const kind = &shmi_mkind_cuda;

static uintptr_t propose(size_t size)
{
    uintptr_t p = 0;
    if (shmi_cuda_reserve(size, BASE_ALIGN, 0, &p) != SHMI_OK) return 0;
    shmi_cuda_unreserve(p, size);
    return p;
}

struct round_msg {
    uintptr_t cand;
    int ok;
    int pad;
};

static int agree(struct shmi_cuda_seg *s, shmi_boot_t *b, char *err, size_t errlen)
{
    struct round_msg *all = calloc((size_t)b->size, sizeof *all);
    if (!all) return SHMI_ENOMEM;
    uintptr_t base = 0;
    int rc = SHMI_ENOMEM;
    /* round -1 only collects the proposals; round r tries PE r's */
    for (int round = -1; round < MAX_ROUNDS; round++) {
        struct round_msg me = { propose(s->size), 0, 0 };
        uintptr_t got = 0;
        if (base && shmi_cuda_reserve(s->size, BASE_ALIGN, base, &got) == SHMI_OK) {
            me.ok = got == base;
            if (!me.ok) shmi_cuda_unreserve(got, s->size);
        }
        if ((rc = shmi_boot_allgather(b, &me, all, sizeof me)) != SHMI_OK) break;
        int bad = base ? -1 : 0;
        for (int i = 0; i < b->size && bad < 0; i++)
            if (!all[i].ok) bad = i;
        if (bad < 0) {
            s->base = base;
            free(all);
            return SHMI_OK;
        }
        if (me.ok) shmi_cuda_unreserve(base, s->size);
        if (round >= 0)
            shmi_log_debug("GPU heap base %#lx refused by PE %d; trying PE %d's proposal",
                           (unsigned long)base, bad, (round + 1) % b->size);
        base = all[(round + 1) % b->size].cand;
        rc = SHMI_ENOMEM;
    }
    free(all);
    char sz[32];
    if (rc == SHMI_ENOMEM)
        snprintf(err, errlen, "could not find a GPU address range of %s free in every PE "
                 "after %d tries: lower SHMEM_GPU_HEAP_SIZE, or start the PEs with symrun "
                 "(same address layout in every PE)", shmi_fmt_size(s->size, sz, sizeof sz),
                 MAX_ROUNDS);
    else
        snprintf(err, errlen, "lost contact with the other PEs while placing the GPU heap (%s)",
                 shmi_strerror(rc));
    return rc;
}

static char *slot(const struct shmi_cuda_seg *s, int pe, size_t off)
{
    return pe == s->me ? (char *)(s->base + off) : (char *)(s->slots + (size_t)pe * s->size + off);
}

static void unmap_chunk(struct shmi_cuda_seg *s, size_t off, size_t len, const int *mapped)
{
    for (int pe = 0; pe < s->npes; pe++)
        if (!mapped || mapped[pe]) kind->unmap(slot(s, pe, off), len);
}

/* Create our part of chunk [off, off+len) (or adopt the program's memory at
 * `adopt`) and map it; 0 or a code. */
static int create_own(struct shmi_cuda_seg *s, size_t off, size_t len, int zero, void *adopt,
                      int *fd)
{
    void *at;
    int rc = adopt ? shmi_cuda_adopt(adopt, len, fd) : kind->create("gpu-heap", len, fd);
    if (rc != SHMI_OK) return rc;
    rc = kind->map(*fd, len, slot(s, s->me, off), 1, &at);
    if (rc == SHMI_OK && zero && (rc = shmi_cuda_zero(at, len)) != SHMI_OK)
        kind->unmap(at, len);
    if (rc != SHMI_OK) {
        shmi_cuda_drop(*fd);
        *fd = -1;
    }
    return rc;
}

/* Allgather one status per PE; returns the first PE that failed, or -1. */
static int gather_status(shmi_boot_t *b, int mine, int *all, int *code)
{
    if (shmi_boot_allgather(b, &mine, all, sizeof mine) != SHMI_OK) {
        *code = SHMI_EBOOT;
        return b->rank;
    }
    for (int pe = 0; pe < b->size; pe++)
        if (all[pe] != SHMI_OK) {
            *code = all[pe];
            return pe;
        }
    return -1;
}

static int map_peers(struct shmi_cuda_seg *s, const int *fds, size_t off, size_t len, int *mapped)
{
    int rc = SHMI_OK;
    for (int pe = 0; pe < s->npes; pe++) {
        void *at;
        if (pe == s->me) { mapped[pe] = 1; continue; }
        if (rc == SHMI_OK && (rc = kind->map(fds[pe], len, slot(s, pe, off), 1, &at)) == SHMI_OK)
            mapped[pe] = 1;
    }
    return rc;
}

static int add_chunk(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t off, size_t len, int zero,
                     void *adopt, char *err, size_t errlen)
{
    char sz[32];
    int n = s->npes, fd = -1, code = SHMI_OK, bad;
    int *st = calloc((size_t)n, sizeof *st), *fds = calloc((size_t)n, sizeof *fds),
        *mapped = calloc((size_t)n, sizeof *mapped);
    if (!st || !fds || !mapped || (s->nchunk == s->cap && !(s->chunk = realloc(s->chunk,
                                   (size_t)(s->cap = s->cap * 2 + 8) * sizeof *s->chunk)))) {
        free(st); free(fds); free(mapped);
        snprintf(err, errlen, "out of host memory");
        return SHMI_ENOMEM; /* PEs may disagree here; the caller's barrier check notices */
    }
    int rc = create_own(s, off, len, zero, adopt, &fd);
    if (rc != SHMI_OK)
        shmi_log_debug("GPU heap chunk of %s: %s", shmi_fmt_size(len, sz, sizeof sz),
                       shmi_cuda_errstr());
    if ((bad = gather_status(b, rc, st, &code)) >= 0) {
        if (rc == SHMI_OK) { kind->unmap(slot(s, s->me, off), len); shmi_cuda_drop(fd); }
        if (adopt)
            snprintf(err, errlen, "PE %d could not share its buffer of %s (%s)", bad,
                     shmi_fmt_size(len, sz, sizeof sz),
                     bad == s->me ? shmi_cuda_errstr() : shmi_strerror(code));
        else
            snprintf(err, errlen, "PE %d could not get %s more GPU memory (%s)", bad,
                     shmi_fmt_size(len, sz, sizeof sz),
                     bad == s->me ? shmi_cuda_errstr() : shmi_strerror(code));
        rc = code;
        goto out;
    }
    if ((rc = b->ops->exchange_fds(b, &fd, 1, fds)) != SHMI_OK) {
        snprintf(err, errlen, "exchanging GPU memory handles failed (%s)", shmi_strerror(rc));
        goto out; /* the bootstrap is gone: the launcher ends the job */
    }
    rc = map_peers(s, fds, off, len, mapped);
    for (int pe = 0; pe < n; pe++) close(fds[pe]);
    if ((bad = gather_status(b, rc, st, &code)) >= 0) {
        unmap_chunk(s, off, len, mapped);
        snprintf(err, errlen, "PE %d could not map a peer's GPU memory (%s): are the PEs on "
                 "GPUs without peer access? run them on one GPU or on NVLink-connected GPUs",
                 bad, bad == s->me ? shmi_cuda_errstr() : shmi_strerror(code));
        shmi_cuda_drop(fd);
        rc = code;
        goto out;
    }
    shmi_cuda_drop(fd); /* every peer mapped it: the mappings hold the memory now */
    s->chunk[s->nchunk++] = (struct shmi_cuda_chunk){ off, len };
out:
    free(st); free(fds); free(mapped);
    return rc;
}

int shmi_cuda_seg_create(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t size,
                         size_t ctl_size, size_t gran, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->me = b->rank;
    s->npes = b->size;
    s->gran = gran;
    s->size = (size + gran - 1) / gran * gran;
    ctl_size = (ctl_size + gran - 1) / gran * gran;
    int rc = agree(s, b, err, errlen);
    if (rc != SHMI_OK) return rc;
    if (s->npes > 1 &&
        shmi_cuda_reserve(s->size * (size_t)s->npes, gran, 0, &s->slots) != SHMI_OK) {
        char sz[32];
        snprintf(err, errlen, "cannot reserve %s of GPU addresses for the peers' heaps (%s): "
                 "lower SHMEM_GPU_HEAP_SIZE", shmi_fmt_size(s->size * (size_t)s->npes, sz,
                 sizeof sz), shmi_cuda_errstr());
        s->slots = 0; /* every PE fails alike here, or the next collective stops */
        shmi_cuda_seg_destroy(s);
        return SHMI_ENOMEM;
    }
    s->high = s->size;
    if ((rc = add_chunk(s, b, s->size - ctl_size, ctl_size, 1, NULL, err, errlen)) != SHMI_OK) {
        shmi_cuda_seg_destroy(s);
        return rc;
    }
    s->high = s->size - ctl_size;
    return SHMI_OK;
}

int shmi_cuda_seg_grow(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t need, size_t chunk,
                       char *err, size_t errlen)
{
    if (need <= s->low) return SHMI_OK;
    size_t len = need - s->low < chunk ? chunk : need - s->low;
    len = (len + s->gran - 1) / s->gran * s->gran;
    if (len > s->high - s->low) len = s->high - s->low;
    int rc = add_chunk(s, b, s->low, len, 0, NULL, err, errlen);
    if (rc == SHMI_OK) s->low += len;
    return rc;
}

int shmi_cuda_seg_adopt(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t off, size_t len,
                        void *ptr, char *err, size_t errlen)
{
    return add_chunk(s, b, off, len, 0, ptr, err, errlen);
}

int shmi_cuda_seg_remove(struct shmi_cuda_seg *s, size_t off, size_t len)
{
    for (int i = 0; i < s->nchunk; i++)
        if (s->chunk[i].off == off && s->chunk[i].len == len) {
            unmap_chunk(s, off, len, NULL);
            s->chunk[i] = s->chunk[--s->nchunk];
            return SHMI_OK;
        }
    return SHMI_EINVAL;
}

void shmi_cuda_seg_destroy(struct shmi_cuda_seg *s)
{
    for (int i = 0; i < s->nchunk; i++) unmap_chunk(s, s->chunk[i].off, s->chunk[i].len, NULL);
    if (s->slots) shmi_cuda_unreserve(s->slots, s->size * (size_t)s->npes);
    if (s->base) shmi_cuda_unreserve(s->base, s->size);
    free(s->chunk);
    memset(s, 0, sizeof *s);
}

/* ---- the transport table's row (tp.h) -----------------------------------------
 * Host-initiated operations on GPU memory: the CPU cannot load or store it,
 * so puts and gets are copies by the GPU's copy engines (cuMemcpy on the
 * peer's mapping in our GPU address space; with unified addressing either
 * side may be host or GPU memory).  They wait for the copy, so on return it
 * is complete and visible to every PE: quiet and fence have nothing left to
 * do.  Host atomics cannot reach GPU memory: kernels use the device API. */

/* pe's copy of symmetric address a, GPU or mapped host memory. */
static void *peer_of(const struct shmi_tp *tp, const void *a, int pe)
{
    return shmi_tp_dev_has(tp, a) ? shmi_tp_dev_ptr(tp, a, pe) : shmi_tp_ptr(tp, a, pe);
}

/* A copy into n bytes of host memory may end a wait on them (wait.h): ring. */
static int rung(const struct shmi_tp *tp, const void *dest, size_t n, int pe, int rc)
{
    if (rc == SHMI_OK && !shmi_tp_dev_has(tp, dest)) shmi_ring_data(shmi_tp_bell(tp, pe), dest, n);
    return rc;
}

static int cu_put(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)mode;
    return rung(tp, dest, n, pe, shmi_cuda_copy(peer_of(tp, dest, pe), src, n));
}

static int cu_get(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)mode;
    return shmi_cuda_copy(dest, peer_of(tp, src, pe), n);
}

static int cu_strided(struct shmi_tp *tp, char *dest, size_t dstep, const char *src, size_t sstep,
                      size_t width, size_t nblocks, int pe, int is_put)
{
    if (is_put)
        return rung(tp, dest, dstep * (nblocks - 1) + width, pe,
                    shmi_cuda_copy2d(peer_of(tp, dest, pe), dstep, src, sstep, width, nblocks));
    return shmi_cuda_copy2d(dest, dstep, peer_of(tp, src, pe), sstep, width, nblocks);
}

static int cu_amo(struct shmi_tp *tp, void *dest, size_t size, enum shmi_amo_op op, uint64_t v,
                  uint64_t c, uint64_t *old, int pe)
{
    (void)tp, (void)dest, (void)size, (void)op, (void)v, (void)c, (void)old, (void)pe;
    return SHMI_ENOTSUP;
}

static int cu_flag(struct shmi_tp *tp, uint64_t *flag, uint64_t w, int pe)
{
    int rc = shmi_cuda_copy(peer_of(tp, flag, pe), &w, sizeof w);
    if (rc == SHMI_OK && !shmi_tp_dev_has(tp, flag)) shmi_ring_sync(shmi_tp_bell(tp, pe));
    return rc;
}

static int cu_done(struct shmi_tp *tp)
{
    (void)tp;
    return SHMI_OK;
}

static void cu_progress(struct shmi_tp *tp) { (void)tp; }

static const char *cu_why(struct shmi_tp *tp, int pe, int rc, char *buf, size_t len)
{
    (void)tp;
    if (rc == SHMI_ENOTSUP)
        snprintf(buf, len, "is GPU memory, which host atomics and waits cannot reach: do it in "
                 "a kernel with the device API (nvshmem.h in CUDA code, e.g. "
                 "nvshmem_int_atomic_add, nvshmem_int_wait_until), or wait with "
                 "nvshmemx_..._wait_until_on_stream");
    else
        snprintf(buf, len, "copying to or from PE %d's memory with the GPU's copy engines "
                 "failed: %s: is the local buffer valid GPU or host memory?", pe,
                 shmi_cuda_errstr());
    return buf;
}

static int cu_put_stream(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe,
                         void *stream)
{
    return shmi_cuda_copy_async(peer_of(tp, dest, pe), src, n, stream);
}

static int cu_get_stream(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe,
                         void *stream)
{
    return shmi_cuda_copy_async(dest, peer_of(tp, src, pe), n, stream);
}

const struct shmi_tp_ops shmi_tp_cuda = {
    .name = "cuda", .mapped = 1, .put = cu_put, .get = cu_get, .amo = cu_amo, .flag = cu_flag,
    .fence = cu_done, .quiet = cu_done, .progress = cu_progress, .why = cu_why,
    .strided = cu_strided, .put_stream = cu_put_stream, .get_stream = cu_get_stream,
};
