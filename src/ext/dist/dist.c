/* dist.c - distributed arrays: a layout (block, cyclic, block-cyclic, user
 * owner map) over one symmetric allocation; owner/offset lookup, each PE's
 * part, owner-computes iteration, and get/put by global index range.
 *
 * The index arithmetic of every layout is layout.c's (pure, tested alone).
 * Invariant that everything here relies on: on every layout a PE stores its
 * elements in increasing global order.  So the elements of a global range
 * [lo, hi) owned by PE p are p's local range [before(p, lo), before(p, hi)):
 * one contiguous transfer per owner, whatever the layout.
 *
 * Storage: the largest part, allocated on every PE (allocation is collective
 * and must be the same size everywhere); the smaller parts leave a tail
 * unused.  USER maps, built here, cost 20 bytes per element on every PE
 * (owner, local index and each PE's global index list): O(1) lookups. */
#include "ext/dist/dist_impl.h"
#include "core/state.h"
#include "util/num.h"

#include <stdlib.h>
#include <string.h>

/* Run transfers shorter than this go through one staged transfer per owner
 * instead of one transfer per run (cyclic layouts: runs of one element). */
#define STAGE_RUN_BYTES 256
#define STAGE_BYTES ((size_t)256 << 10)

static void check_dist(const char *fn, shmemx_dist_t d)
{
    shmi_check_running(fn);
    if (!d) shmi_fatal("%s: d is NULL: pass the handle shmemx_dist_create returned", fn);
}

static void free_user_map(struct shmemx_dist_s *d)
{
    free(d->lay.own);
    free(d->lay.loc);
    free(d->lay.glist);
    free(d->lay.gstart);
}

/* FNV-1a over the owner array: compared across PEs. */
static uint64_t map_hash(const int32_t *own, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint64_t)(uint32_t)own[i]) * 1099511628211ull;
    return h ^ n;
}

/* Collective: every PE must have built the same owner map. */
static void check_same_map(const char *fn, const struct shmemx_dist_s *d)
{
    uint64_t *h = shmem_malloc(sizeof *h);
    if (!h) shmi_fatal("%s: no symmetric memory left for 8 bytes: raise SHMEM_SYMMETRIC_SIZE", fn);
    *h = map_hash(d->lay.own, d->lay.n);
    shmem_barrier_all();
    uint64_t h0 = shmem_uint64_g(h, 0);
    if (h0 != *h)
        shmi_fatal("%s: the USER owner function gave this PE another owner map than PE 0 "
                   "(hash %016llx vs %016llx for n=%zu): it must depend only on (index, "
                   "npes, ctx contents) and give the same answer on every PE", fn,
                   (unsigned long long)*h, (unsigned long long)h0, d->lay.n);
    shmem_free(h);
}

static void build_user_map(const char *fn, struct shmemx_dist_s *d, shmemx_layout_t lay)
{
    struct shmi_layout *m = &d->lay;
    size_t n = m->n, np = (size_t)m->npes;
    m->own = malloc((n ? n : 1) * sizeof *m->own);
    m->loc = malloc((n ? n : 1) * sizeof *m->loc);
    m->glist = malloc((n ? n : 1) * sizeof *m->glist);
    m->gstart = calloc(np + 2, sizeof *m->gstart);
    if (!m->own || !m->loc || !m->glist || !m->gstart)
        shmi_fatal("%s: out of private memory for a USER owner map of %zu elements "
                   "(20 bytes each): use a BLOCK, CYCLIC or BLOCK_CYCLIC layout", fn, n);
    for (size_t i = 0; i < n; i++) {
        int p = lay.owner(i, m->npes, lay.ctx);
        if (p < 0 || p >= m->npes)
            shmi_fatal("%s: the USER owner function returned %d for index %zu: owners must "
                       "be PEs 0..%d", fn, p, i, m->npes - 1);
        m->own[i] = p;
        m->loc[i] = m->gstart[p + 2]++; /* count per PE, shifted by 2 for the scan */
    }
    for (size_t p = 0; p < np; p++) m->gstart[p + 2] += m->gstart[p + 1];
    for (size_t i = 0; i < n; i++) m->glist[m->gstart[m->own[i] + 1]++] = i;
    /* gstart[p + 1] is now the end of p's list = start of p + 1's. */
}

static int check_layout(const char *fn, shmemx_layout_t lay, size_t elem)
{
    if (elem == 0)
        shmi_fatal("%s: elem_size is 0: pass the size of one element, e.g. sizeof(double)", fn);
    switch (lay.kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: case SHMEMX_LAYOUT_KIND_CYCLIC: return 0;
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC:
        if (lay.block == 0)
            shmi_fatal("%s: SHMEMX_LAYOUT_BLOCK_CYCLIC(0): the block size must be >= 1", fn);
        return 0;
    case SHMEMX_LAYOUT_KIND_USER:
        if (!lay.owner)
            shmi_fatal("%s: SHMEMX_LAYOUT_USER with a NULL owner function", fn);
        return 0;
    default:
        shmi_fatal("%s: layout kind %d is not a layout: use SHMEMX_LAYOUT_BLOCK, _CYCLIC, "
                   "_BLOCK_CYCLIC(b) or _USER(f, ctx)", fn, lay.kind);
    }
}

/* The descriptor without storage. */
static struct shmemx_dist_s *describe(const char *fn, size_t n, size_t elem, shmemx_layout_t lay)
{
    shmi_check_running(fn);
    check_layout(fn, lay, elem);
    if (shmi_mul_overflows(n, elem, NULL))
        shmi_fatal("%s: n=%zu elements of %zu bytes overflows size_t: a negative count "
                   "converted to size_t?", fn, n, elem);
    struct shmemx_dist_s *d = calloc(1, sizeof *d);
    if (!d) shmi_fatal("%s: out of private memory", fn);
    d->lay = shmi_layout_make(lay.kind, n, shmem_n_pes(), lay.block);
    d->elem = elem;
    d->me = shmem_my_pe();
    if (lay.kind == SHMEMX_LAYOUT_KIND_USER) {
        build_user_map(fn, d, lay);
        check_same_map(fn, d);
    }
    d->maxlocal = shmi_layout_maxcount(&d->lay);
    return d;
}

shmemx_dist_t shmemx_dist_create(size_t n, size_t elem_size, shmemx_layout_t layout)
{
    struct shmemx_dist_s *d = describe(__func__, n, elem_size, layout);
    if (d->maxlocal) {
        d->local = shmem_malloc(d->maxlocal * elem_size);
        if (!d->local) { /* heap full: NULL on every PE (the allocators agree) */
            free_user_map(d);
            free(d);
            return NULL;
        }
    }
    return d;
}

shmemx_dist_t shmemx_dist_create_lazy(size_t n, size_t elem_size, shmemx_layout_t layout,
                                      size_t block_bytes, shmemx_fill_t fill)
{
    struct shmemx_dist_s *d = describe(__func__, n, elem_size, layout);
    shmi_fill_check(__func__, &fill);
    if (d->maxlocal) {
        d->local = shmi_lazy_create(__func__, d->maxlocal, elem_size, block_bytes, &fill, d,
                                    &d->lazy);
        if (!d->local) {
            free_user_map(d);
            free(d);
            return NULL;
        }
    }
    return d;
}

void shmemx_dist_destroy(shmemx_dist_t d)
{
    shmi_check_running(__func__);
    if (!d) return;
    if (d->lazy) shmi_lazy_destroy(__func__, d->lazy);
    else if (d->local) shmem_free(d->local);
    free_user_map(d);
    free(d);
}

size_t shmemx_dist_size(shmemx_dist_t d) { check_dist(__func__, d); return d->lay.n; }
size_t shmemx_dist_elem_size(shmemx_dist_t d) { check_dist(__func__, d); return d->elem; }
void *shmemx_dist_local(shmemx_dist_t d) { check_dist(__func__, d); return d->local; }

size_t shmemx_dist_local_count(shmemx_dist_t d, int pe)
{
    check_dist(__func__, d);
    shmi_check_pe(__func__, pe);
    return shmi_layout_count(&d->lay, pe);
}

int shmemx_dist_owner(shmemx_dist_t d, size_t i, size_t *local_index)
{
    check_dist(__func__, d);
    if (i >= d->lay.n)
        shmi_fatal("shmemx_dist_owner: index %zu is out of range: the array has %zu elements",
                   i, d->lay.n);
    size_t l;
    int p = shmi_layout_owner(&d->lay, i, &l);
    if (local_index) *local_index = l;
    return p;
}

size_t shmemx_dist_global_index(shmemx_dist_t d, int pe, size_t local_index)
{
    check_dist(__func__, d);
    shmi_check_pe(__func__, pe);
    if (local_index >= shmi_layout_count(&d->lay, pe))
        shmi_fatal("shmemx_dist_global_index: local index %zu is out of range: PE %d owns %zu "
                   "elements", local_index, pe, shmi_layout_count(&d->lay, pe));
    return shmi_layout_global(&d->lay, pe, local_index);
}

int shmemx_dist_local_range(shmemx_dist_t d, int pe, size_t *first, size_t *count)
{
    check_dist(__func__, d);
    shmi_check_pe(__func__, pe);
    size_t c = shmi_layout_count(&d->lay, pe);
    if (d->lay.kind != SHMEMX_LAYOUT_KIND_BLOCK && d->lay.npes > 1) return 0;
    if (first) *first = c ? shmi_layout_global(&d->lay, pe, 0) : 0;
    if (count) *count = c;
    return 1;
}

shmemx_dist_iter_t shmemx_dist_iter(shmemx_dist_t d, int pe, size_t lo, size_t hi)
{
    check_dist(__func__, d);
    shmi_check_pe(__func__, pe);
    hi = shmi_min(hi, d->lay.n);
    lo = shmi_min(lo, hi);
    return (shmemx_dist_iter_t){ d, pe, shmi_layout_before(&d->lay, pe, lo),
                                 shmi_layout_before(&d->lay, pe, hi) };
}

int shmemx_dist_next(shmemx_dist_iter_t *it, shmemx_dist_run_t *run)
{
    if (it->next >= it->end) return 0;
    size_t len = shmi_layout_runlen(&it->d->lay, it->pe, it->next, it->end - it->next);
    *run = (shmemx_dist_run_t){ shmi_layout_global(&it->d->lay, it->pe, it->next), it->next, len };
    it->next += len;
    return 1;
}

void shmemx_dist_forall(shmemx_dist_t d, size_t lo, size_t hi,
                        void (*fn)(void *elems, size_t first, size_t count, void *ctx), void *ctx)
{
    check_dist(__func__, d);
    if (!fn) shmi_fatal("shmemx_dist_forall: fn is NULL");
    shmemx_dist_run_t r;
    for (shmemx_dist_iter_t it = shmemx_dist_iter(d, d->me, lo, hi); shmemx_dist_next(&it, &r);)
        fn(d->local + r.local * d->elem, r.global, r.count, ctx);
}

/* ---- Range get/put ------------------------------------------------------------ */

static void check_range(const char *fn, shmemx_dist_t d, const void *buf, size_t first,
                        size_t count)
{
    check_dist(fn, d);
    if (first > d->lay.n || count > d->lay.n - first)
        shmi_fatal("%s: range [%zu, %zu + %zu) is outside the array's %zu elements", fn, first,
                   first, count, d->lay.n);
    if (count && !buf) shmi_fatal("%s: buf is NULL for %zu elements", fn, count);
}

/* Bytes of PE p's part from local index l: a get (lazy-aware) or a put. */
static void xfer(shmemx_dist_t d, int is_put, char *mine, size_t l, size_t nel, int p)
{
    size_t off = l * d->elem, n = nel * d->elem;
    if (is_put && d->lazy) shmi_lazy_open(d->lazy, off, n, p);
    if (is_put) shmem_putmem(d->local + off, mine, n, p);
    else if (d->lazy) shmi_lazy_read(d->lazy, mine, off, n, p);
    else shmem_getmem(mine, d->local + off, n, p);
}

/* One owner's share of [first, first + count): per run when runs are long,
 * else staged through one contiguous transfer per chunk. */
static void owner_share(shmemx_dist_t d, int is_put, char *buf, size_t first, size_t count,
                        int p, char *stage)
{
    size_t l0 = shmi_layout_before(&d->lay, p, first);
    size_t l1 = shmi_layout_before(&d->lay, p, first + count);
    if (l0 == l1) return;
    int direct = !stage;
    while (l0 < l1) {
        size_t chunk = direct ? l1 - l0 : shmi_min(l1 - l0, STAGE_BYTES / d->elem);
        if (!direct && !is_put) xfer(d, 0, stage, l0, chunk, p);
        for (size_t l = l0; l < l0 + chunk;) {
            size_t g = shmi_layout_global(&d->lay, p, l);
            size_t len = shmi_layout_runlen(&d->lay, p, l, l0 + chunk - l);
            char *user = buf + (g - first) * d->elem;
            if (direct) xfer(d, is_put, user, l, len, p);
            else if (is_put) memcpy(stage + (l - l0) * d->elem, user, len * d->elem);
            else memcpy(user, stage + (l - l0) * d->elem, len * d->elem);
            l += len;
        }
        if (!direct && is_put) xfer(d, 1, stage, l0, chunk, p);
        l0 += chunk;
    }
}

static void range_xfer(const char *fn, shmemx_dist_t d, int is_put, char *buf, size_t first,
                       size_t count)
{
    check_range(fn, d, buf, first, count);
    if (count == 0) return;
    size_t runbytes = d->lay.kind == SHMEMX_LAYOUT_KIND_BLOCK || d->lay.npes == 1 ? SIZE_MAX
                      : d->lay.kind == SHMEMX_LAYOUT_KIND_CYCLIC ? d->elem
                      : d->lay.kind == SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC ? d->lay.b * d->elem
                      : count * d->elem / (size_t)d->lay.npes; /* USER: a guess */
    char *stage = NULL;
    if (runbytes < STAGE_RUN_BYTES && d->elem <= STAGE_BYTES) {
        stage = malloc(STAGE_BYTES);
        if (!stage) shmi_fatal("%s: out of private memory for a staging buffer", fn);
    }
    for (int p = 0; p < d->lay.npes; p++) owner_share(d, is_put, buf, first, count, p, stage);
    free(stage);
}

void shmemx_dist_get(shmemx_dist_t d, void *buf, size_t first, size_t count)
{ range_xfer(__func__, d, 0, buf, first, count); }

void shmemx_dist_put(shmemx_dist_t d, size_t first, const void *buf, size_t count)
{ range_xfer(__func__, d, 1, (char *)buf, first, count); }
