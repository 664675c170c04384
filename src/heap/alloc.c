/* alloc.c - the deterministic symmetric-heap allocator (see alloc.h).
 *
 * Every block and every free range of [0, size) is one node (struct blk) in
 * private malloc'd memory; the managed range itself is never read or written.
 * Each node sits in up to three structures:
 *
 *   physical list (prev/next)  all nodes in address order.  They tile the
 *       range: the first is a->head at offset 0 (never removed, since only a
 *       node with a left neighbour is ever merged away), each starts where the
 *       previous ends, spans are non-zero multiples of SHMI_ALLOC_MIN_ALIGN
 *       and add up to a->size.  No two free ranges are adjacent: free merges
 *       with both neighbours at once, in O(1) thanks to this list.
 *   index (left/right)  a treap keyed by off, so that find() of an interior
 *       offset and the lookup behind free/resize are expected O(log n).  The
 *       priority is a hash of a per-allocator counter, never of a pointer, so
 *       the tree has the same shape on every PE.  A free range's key may move
 *       in place (resize shifts the start of the range after a block) because
 *       it stays between the same neighbours and the priority does not depend
 *       on the key.
 *   TLSF free lists (fprev/fnext)  free ranges only, one list per size class
 *       (SL_N classes per power of two, exact below SL_N granules) and two
 *       bitmap levels: bit fl of fl_map is set iff sl_map[fl] != 0, bit sl of
 *       sl_map[fl] iff that class's list is non-empty.  Lists are LIFO.
 *
 * Allocation is TLSF good fit: round the need (span plus worst-case alignment
 * padding) up to a class boundary so the head of the first non-empty class at
 * or above it surely fits, O(1).  Only when that fails (a nearly full or
 * fragmented heap) does a bounded slow path run: a scan of up to SCAN_MAX
 * ranges in the classes in between, for a range that fits exactly or thanks
 * to its offset, then, for aligned requests, up to PROBE_MAX lookups of the
 * aligned offsets themselves.  That rescues the last bytes of a full heap
 * and requests such as 2 MiB at 2 MiB into a 2 MiB hole; past those bounds
 * ENOMEM can come while a fitting range exists (the price of O(log n)).
 * Alignment padding is split off as its own free range, so a 2 MiB alignment
 * wastes nothing.  Every choice depends only on the call sequence:
 * determinism across PEs.
 *
 * Assertions (util/assert.h): cheap ones state what each helper assumes of
 * its caller; in the builds with expensive ones (Debug, sanitizers) every
 * operation that changes the allocator ends with the whole invariant check
 * at the bottom of this file (CHECKED). */
#include "heap/alloc.h"
#include "util/assert.h"
#include "util/err.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

#define GRAIN SHMI_ALLOC_MIN_ALIGN
#define SL_LOG 4                    /* 16 classes per power of two: <= 6% slack */
#define SL_N (1u << SL_LOG)
/* Spans are < 2^64, so granule counts are < 2^60: first level <= 57 even
 * after the rounding in cls_ceil. */
#define FL_N 58u
#define NCLS (FL_N * SL_N)
#define SCAN_MAX 512                /* slow path: free ranges looked at */
#define PROBE_MAX 256               /* slow path: aligned offsets tried */
#define SPARE_MAX 1024              /* recycled nodes kept for reuse */

struct blk {
    size_t off, span;
    size_t size;                    /* live: bytes asked for; free: 0 */
    uint64_t tag, seq;              /* free: of the last live block at off, or 0 */
    uint64_t prio;                  /* treap priority */
    struct blk *prev, *next;        /* physical neighbours */
    struct blk *fprev, *fnext;      /* class free list; fnext also links spares */
    struct blk *left, *right;       /* treap children */
    int live;
};

struct shmi_alloc_s {
    size_t size, used, peak;
    size_t nlive, nfree, nspare;
    uint64_t allocs, frees, seq, prio_ctr;
    struct blk *head, *root, *spare;
    uint64_t fl_map;
    uint32_t sl_map[FL_N];
    struct blk *lists[NCLS];
};

/* rc, after the whole invariant check of a at the expensive assertion level:
 * the return of every operation that may have changed a. */
#define CHECKED(a, rc) (SHMI_ASSERT_EXPENSIVE(shmi_alloc_check(a) == SHMI_OK), (rc))

/* ---- size classes ---------------------------------------------------- */

static unsigned ilog2(uint64_t x) { return 63u - (unsigned)__builtin_clzll(x); }

static size_t round_up(size_t n) { return (n + (GRAIN - 1)) & ~(size_t)(GRAIN - 1); }

/* Class of a range of u granules (u > 0): exact below SL_N, then SL_N
 * linear steps per power of two. */
static unsigned cls_of_units(uint64_t u)
{
    if (u < SL_N)
        return (unsigned)u;
    unsigned l = ilog2(u);
    return (l - SL_LOG + 1) * SL_N + (unsigned)((u >> (l - SL_LOG)) - SL_N);
}

static unsigned cls_floor(size_t span) { return cls_of_units(span / GRAIN); }

/* Lowest class whose every range is >= need bytes. */
static unsigned cls_ceil(size_t need)
{
    uint64_t u = (need + GRAIN - 1) / GRAIN;
    if (u >= SL_N)
        u += (1ull << (ilog2(u) - SL_LOG)) - 1;
    return cls_of_units(u);
}

/* First non-empty class >= c, or -1: two find-first-set on the bitmaps. */
static int next_class(const shmi_alloc_t *a, unsigned c)
{
    unsigned fl = c / SL_N;
    if (fl >= FL_N)
        return -1;
    uint32_t sm = a->sl_map[fl] & (~0u << (c % SL_N));
    if (!sm) {
        uint64_t fm = a->fl_map & (~0ull << fl << 1);
        if (!fm)
            return -1;
        fl = (unsigned)__builtin_ctzll(fm);
        sm = a->sl_map[fl];
    }
    return (int)(fl * SL_N + (unsigned)__builtin_ctz(sm));
}

/* ---- free lists --------------------------------------------------------- */

static void list_push(shmi_alloc_t *a, struct blk *b)
{
    SHMI_ASSERT(!b->live && b->span >= GRAIN);
    unsigned c = cls_floor(b->span);
    b->fprev = NULL;
    b->fnext = a->lists[c];
    if (b->fnext)
        b->fnext->fprev = b;
    a->lists[c] = b;
    a->sl_map[c / SL_N] |= 1u << (c % SL_N);
    a->fl_map |= 1ull << (c / SL_N);
    a->nfree++;
}

/* Must run before b->span changes: the class is derived from it. */
static void list_pull(shmi_alloc_t *a, struct blk *b)
{
    unsigned c = cls_floor(b->span);
    SHMI_ASSERT(!b->live && a->nfree > 0 && (b->fprev || a->lists[c] == b));
    if (b->fprev)
        b->fprev->fnext = b->fnext;
    else
        a->lists[c] = b->fnext;
    if (b->fnext)
        b->fnext->fprev = b->fprev;
    if (!a->lists[c]) {
        a->sl_map[c / SL_N] &= ~(1u << (c % SL_N));
        if (!a->sl_map[c / SL_N])
            a->fl_map &= ~(1ull << (c / SL_N));
    }
    a->nfree--;
}

/* ---- node pool ------------------------------------------------------------ */

/* Make sure n nodes are at hand before changing anything, so a failing
 * malloc leaves the allocator as it was. */
static int reserve(shmi_alloc_t *a, size_t n)
{
    while (a->nspare < n) {
        struct blk *b = malloc(sizeof *b);
        if (!b)
            return SHMI_ENOMEM;
        b->fnext = a->spare;
        a->spare = b;
        a->nspare++;
    }
    return SHMI_OK;
}

static struct blk *node_get(shmi_alloc_t *a)
{
    struct blk *b = a->spare;       /* never NULL: callers reserve() first */
    SHMI_ASSERT(b != NULL);
    a->spare = b->fnext;
    a->nspare--;
    memset(b, 0, sizeof *b);
    return b;
}

static void node_put(shmi_alloc_t *a, struct blk *b)
{
    if (a->nspare >= SPARE_MAX) {
        free(b);
        return;
    }
    b->fnext = a->spare;
    a->spare = b;
    a->nspare++;
}

/* ---- treap index ---------------------------------------------------------- */

/* splitmix64: a fixed bijection, so priorities depend only on the counter. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Split t into keys < key (*l) and >= key (*r). */
static void split(struct blk *t, size_t key, struct blk **l, struct blk **r)
{
    while (t) {
        if (t->off < key) {
            *l = t;
            l = &t->right;
            t = t->right;
        } else {
            *r = t;
            r = &t->left;
            t = t->left;
        }
    }
    *l = *r = NULL;
}

/* Join two treaps, every key of l below every key of r. */
static struct blk *merge(struct blk *l, struct blk *r)
{
    struct blk *root, **p = &root;
    while (l && r) {
        if (l->prio > r->prio) {
            *p = l;
            p = &l->right;
            l = l->right;
        } else {
            *p = r;
            p = &r->left;
            r = r->left;
        }
    }
    *p = l ? l : r;
    return root;
}

static void idx_insert(shmi_alloc_t *a, struct blk *n)
{
    struct blk **p = &a->root;
    n->prio = mix(++a->prio_ctr);
    while (*p && (*p)->prio > n->prio)
        p = n->off < (*p)->off ? &(*p)->left : &(*p)->right;
    split(*p, n->off, &n->left, &n->right);
    *p = n;
}

static void idx_remove(shmi_alloc_t *a, struct blk *n)
{
    struct blk **p = &a->root;
    while (*p != n) {
        SHMI_ASSERT(*p != NULL);    /* n is in the index */
        p = n->off < (*p)->off ? &(*p)->left : &(*p)->right;
    }
    *p = merge(n->left, n->right);
}

/* Node with the greatest off <= off (the one containing off). */
static struct blk *idx_floor(const shmi_alloc_t *a, size_t off)
{
    struct blk *t = a->root, *best = NULL;
    while (t) {
        if (t->off <= off) {
            best = t;
            t = t->right;
        } else {
            t = t->left;
        }
    }
    return best;
}

static struct blk *live_at(const shmi_alloc_t *a, size_t off)
{
    if (off >= a->size || off % GRAIN)
        return NULL;
    struct blk *b = idx_floor(a, off);
    return b && b->off == off && b->live ? b : NULL;
}

/* ---- splitting and merging nodes ----------------------------------------- */

/* Cut x at x->off + at (0 < at < x->span); the new right part is returned as
 * a free node without tag or seq, not yet on a free list. */
static struct blk *split_at(shmi_alloc_t *a, struct blk *x, size_t at)
{
    SHMI_ASSERT(at > 0 && at < x->span && at % GRAIN == 0);
    struct blk *n = node_get(a);
    n->off = x->off + at;
    n->span = x->span - at;
    x->span = at;
    n->prev = x;
    n->next = x->next;
    if (x->next)
        x->next->prev = n;
    x->next = n;
    idx_insert(a, n);
    return n;
}

/* Merge the free range after x into x; x must be off its free list. */
static void absorb_next(shmi_alloc_t *a, struct blk *x)
{
    struct blk *n = x->next;
    SHMI_ASSERT(n && !n->live && n->off == x->off + x->span);
    list_pull(a, n);
    x->span += n->span;
    x->next = n->next;
    if (n->next)
        n->next->prev = x;
    idx_remove(a, n);
    node_put(a, n);
}

/* ---- create / destroy ------------------------------------------------------ */

int shmi_alloc_create(shmi_alloc_t **ap, size_t size)
{
    /* A ragged tail could never be handed out whole: it is not managed. */
    size &= ~(size_t)(GRAIN - 1);
    if (!ap || !size)
        return SHMI_EINVAL;
    shmi_alloc_t *a = calloc(1, sizeof *a);
    if (!a)
        return SHMI_ENOMEM;
    if (reserve(a, 1)) {
        free(a);
        return SHMI_ENOMEM;
    }
    a->size = size;
    a->head = node_get(a);
    a->head->span = size;
    idx_insert(a, a->head);
    list_push(a, a->head);
    *ap = a;
    return CHECKED(a, SHMI_OK);
}

void shmi_alloc_destroy(shmi_alloc_t *a)
{
    if (!a)
        return;
    for (struct blk *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    for (struct blk *b = a->spare, *n; b; b = n) {
        n = b->fnext;
        free(b);
    }
    free(a);
}

/* ---- alloc ---------------------------------------------------------------- */

/* Bytes to skip from off to the next multiple of align (align a power of 2). */
static size_t pad_for(size_t off, size_t align)
{
    return (align - (off & (align - 1))) & (align - 1);
}

static int fits(const struct blk *r, size_t span, size_t align)
{
    size_t pad = pad_for(r->off, align);
    return pad < r->span && r->span - pad >= span;
}

/* Last non-empty class <= c, or -1. */
static int prev_class(const shmi_alloc_t *a, unsigned c)
{
    unsigned fl = c / SL_N;
    uint32_t sm = a->sl_map[fl] & ((2u << (c % SL_N)) - 1);
    if (!sm) {
        uint64_t fm = a->fl_map & ((1ull << fl) - 1);
        if (!fm)
            return -1;
        fl = ilog2(fm);
        sm = a->sl_map[fl];
    }
    return (int)(fl * SL_N + ilog2(sm));
}

/* Classes [lo, hi) hold ranges that may or may not fit: look at up to
 * SCAN_MAX of them.  Without alignment that is one class.  With it, walk
 * from the largest class down: a small block with a big alignment fits a
 * range in proportion to the range's length, and scanning the many small
 * ranges first would spend the budget on hopeless candidates (measured:
 * thousands of needless ENOMEMs per 200k random ops). */
static struct blk *scan(const shmi_alloc_t *a, unsigned lo, unsigned hi,
                        size_t span, size_t align)
{
    unsigned budget = SCAN_MAX;
    if (hi <= lo)
        return NULL;
    for (int c = prev_class(a, hi - 1); c >= (int)lo && budget;
         c = c ? prev_class(a, (unsigned)c - 1) : -1) {
        for (struct blk *r = a->lists[c]; r && budget; r = r->fnext, budget--)
            if (fits(r, span, align))
                return r;
    }
    return NULL;
}

/* Aligned requests the class scan missed: try the aligned offsets
 * themselves, lowest first, through the index.  A miss skips to the first
 * aligned offset past the node it landed in (live, or free but too short
 * from there), so PROBE_MAX probes cover at least that many aligned slots:
 * all of them when size / align <= PROBE_MAX. */
static struct blk *probe(const shmi_alloc_t *a, size_t span, size_t align)
{
    size_t p = 0;
    for (unsigned n = 0; n < PROBE_MAX; n++) {
        struct blk *b = idx_floor(a, p);
        SHMI_ASSERT(b != NULL);     /* the head node is at offset 0 */
        if (!b->live && b->span - (p - b->off) >= span)
            return b;
        size_t end = b->off + b->span, pad = pad_for(end, align);
        if (pad >= a->size - end)   /* no aligned offset left; no wrap */
            break;
        p = end + pad;
    }
    return NULL;
}

static struct blk *pick(const shmi_alloc_t *a, size_t span, size_t align)
{
    unsigned hi = NCLS;
    /* Padding is at most align - GRAIN since every offset is a multiple of
     * GRAIN.  Compared without overflow: span <= a->size here. */
    if (align - GRAIN <= a->size - span) {
        hi = cls_ceil(span + (align - GRAIN));
        int c = next_class(a, hi);
        if (c >= 0)
            return a->lists[c];
    }
    struct blk *r = scan(a, cls_floor(span), hi, span, align);
    return r || align == GRAIN ? r : probe(a, span, align);
}

/* Turn span bytes of free range r at the next align boundary into a block:
 * leading padding and the tail stay free ranges of their own. */
static struct blk *carve(shmi_alloc_t *a, struct blk *r, size_t span, size_t align)
{
    size_t pad = pad_for(r->off, align);
    SHMI_ASSERT(fits(r, span, align));
    list_pull(a, r);
    if (pad) {
        struct blk *b = split_at(a, r, pad);
        list_push(a, r);
        r = b;
    }
    if (r->span > span)
        list_push(a, split_at(a, r, span));
    return r;
}

static void account(shmi_alloc_t *a, size_t old_span, size_t new_span)
{
    SHMI_ASSERT(a->used >= old_span && a->size - (a->used - old_span) >= new_span);
    a->used = a->used - old_span + new_span;
    if (a->used > a->peak)
        a->peak = a->used;
}

int shmi_alloc_alloc(shmi_alloc_t *a, size_t size, size_t align, size_t *off)
{
    if (!a || !off || !size || !align || (align & (align - 1)))
        return SHMI_EINVAL;
    if (align < GRAIN)
        align = GRAIN;
    if (size > a->size) /* also keeps round_up from wrapping */
        return SHMI_ENOMEM;
    size_t span = round_up(size);
    struct blk *r = pick(a, span, align);
    if (!r || reserve(a, 2))
        return CHECKED(a, SHMI_ENOMEM);
    struct blk *b = carve(a, r, span, align);
    SHMI_ASSERT(b->off % align == 0 && b->span == span);
    b->live = 1;
    b->size = size;
    b->tag = 0;
    b->seq = ++a->seq;
    a->nlive++;
    a->allocs++;
    account(a, 0, span);
    *off = b->off;
    return CHECKED(a, SHMI_OK);
}

/* ---- free / resize -------------------------------------------------------- */

int shmi_alloc_free(shmi_alloc_t *a, size_t off)
{
    struct blk *b = a ? live_at(a, off) : NULL;
    if (!b)
        return SHMI_EINVAL;
    account(a, b->span, 0);
    a->nlive--;
    a->frees++;
    b->live = 0;
    b->size = 0;                    /* tag and seq stay: find() reports them */
    if (b->next && !b->next->live)
        absorb_next(a, b);
    list_push(a, b);
    if (b->prev && !b->prev->live) {
        struct blk *p = b->prev;    /* b is merged away, p keeps its off */
        list_pull(a, p);
        absorb_next(a, p);
        list_push(a, p);
    }
    return CHECKED(a, SHMI_OK);
}

/* Take d bytes from the start of the free range after b. */
static int grow(shmi_alloc_t *a, struct blk *b, size_t d)
{
    struct blk *n = b->next;
    if (!n || n->live || n->span < d)
        return SHMI_EAGAIN;
    if (n->span == d) {
        absorb_next(a, b);
        return SHMI_OK;
    }
    list_pull(a, n);
    n->off += d;                    /* stays between b and n->next: key order kept */
    n->span -= d;
    n->tag = n->seq = 0;            /* no block ever started at the new off */
    b->span += d;
    list_push(a, n);
    return SHMI_OK;
}

/* Give the last d bytes of b back, merged into the free range after b. */
static int shrink(shmi_alloc_t *a, struct blk *b, size_t d)
{
    SHMI_ASSERT(d > 0 && d < b->span && d % GRAIN == 0);
    struct blk *n = b->next;
    if (n && !n->live) {
        list_pull(a, n);
        n->off -= d;
        n->span += d;
        n->tag = n->seq = 0;
        b->span -= d;
        list_push(a, n);
        return SHMI_OK;
    }
    if (reserve(a, 1))
        return SHMI_ENOMEM;
    list_push(a, split_at(a, b, b->span - d));
    return SHMI_OK;
}

int shmi_alloc_resize(shmi_alloc_t *a, size_t off, size_t newsize)
{
    struct blk *b = a ? live_at(a, off) : NULL;
    if (!b || !newsize)
        return SHMI_EINVAL;
    /* Could not fit even if all the rest were free; also keeps round_up
     * from wrapping near SIZE_MAX. */
    if (newsize > a->size - b->off)
        return SHMI_EAGAIN;
    size_t span = round_up(newsize), old = b->span;
    int rc = SHMI_OK;
    if (span > old)
        rc = grow(a, b, span - old);
    else if (span < old)
        rc = shrink(a, b, old - span);
    if (rc)
        return CHECKED(a, rc);
    b->size = newsize;
    account(a, old, span);
    return CHECKED(a, SHMI_OK);
}

/* ---- queries -------------------------------------------------------------- */

static void info_of(const struct blk *b, struct shmi_block_info *info)
{
    info->off = b->off;
    info->size = b->live ? b->size : 0;
    info->span = b->span;
    info->live = b->live;
    info->tag = b->tag;
    info->seq = b->seq;
}

int shmi_alloc_find(const shmi_alloc_t *a, size_t off, struct shmi_block_info *info)
{
    if (!a || !info)
        return SHMI_EINVAL;
    if (off >= a->size)
        return SHMI_ERANGE;
    info_of(idx_floor(a, off), info);
    return SHMI_OK;
}

int shmi_alloc_set_tag(shmi_alloc_t *a, size_t off, uint64_t tag)
{
    struct blk *b = a ? live_at(a, off) : NULL;
    if (!b)
        return SHMI_EINVAL;
    b->tag = tag;
    return SHMI_OK;
}

/* The top non-empty class holds the largest range; its list is scanned
 * because ranges inside one class differ by up to 1/SL_N. */
static size_t largest_free(const shmi_alloc_t *a)
{
    if (!a->fl_map)
        return 0;
    unsigned fl = ilog2(a->fl_map);
    unsigned sl = ilog2(a->sl_map[fl]);
    size_t max = 0;
    for (const struct blk *r = a->lists[fl * SL_N + sl]; r; r = r->fnext)
        if (r->span > max)
            max = r->span;
    return max;
}

void shmi_alloc_stats(const shmi_alloc_t *a, struct shmi_alloc_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!a)
        return;
    st->size = a->size;
    st->used = a->used;
    st->free = a->size - a->used;
    st->largest_free = largest_free(a);
    st->peak_used = a->peak;
    st->live_blocks = a->nlive;
    st->free_ranges = a->nfree;
    st->allocs = a->allocs;
    st->frees = a->frees;
}

/* fn must not change the allocator: the walk follows the live node list. */
int shmi_alloc_foreach(const shmi_alloc_t *a,
                       int (*fn)(const struct shmi_block_info *b, void *arg), void *arg)
{
    struct shmi_block_info info;
    for (const struct blk *b = a ? a->head : NULL; b; b = b->next) {
        info_of(b, &info);
        int rc = fn(&info, arg);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- invariant check ------------------------------------------------------ */

#define BAD(...) do { shmi_log_error("alloc check: " __VA_ARGS__); return SHMI_ECORRUPT; } while (0)

static int check_block(const shmi_alloc_t *a, const struct blk *b, const struct blk *p, size_t at)
{
    if (b->prev != p)
        BAD("block at %zu: prev link broken", at);
    if (b->off != at)
        BAD("block starts at %zu, previous ends at %zu", b->off, at);
    if (!b->span || b->span % GRAIN || b->span > a->size - at)
        BAD("block at %zu: bad span %zu", at, b->span);
    if (b->live && (!b->size || round_up(b->size) != b->span))
        BAD("block at %zu: size %zu does not match span %zu", at, b->size, b->span);
    if (!b->live && p && !p->live)
        BAD("free ranges at %zu and %zu are adjacent", p->off, at);
    return SHMI_OK;
}

static int check_phys(const shmi_alloc_t *a)
{
    size_t at = 0, used = 0, nlive = 0, nfree = 0;
    const struct blk *p = NULL;
    for (const struct blk *b = a->head; b; p = b, b = b->next) {
        if (check_block(a, b, p, at))
            return SHMI_ECORRUPT;
        if (b->live) {
            used += b->span;
            nlive++;
        } else {
            nfree++;
        }
        at += b->span;
    }
    if (at != a->size)
        BAD("spans add up to %zu, size is %zu", at, a->size);
    if (used != a->used || nlive != a->nlive || nfree != a->nfree)
        BAD("counted used %zu live %zu free %zu, recorded %zu %zu %zu",
            used, nlive, nfree, a->used, a->nlive, a->nfree);
    if (a->peak < a->used)
        BAD("peak %zu below used %zu", a->peak, a->used);
    return SHMI_OK;
}

/* In-order walk of the treap must visit exactly the physical list, which
 * check_phys showed to be strictly increasing: that proves key order. */
static int walk(const struct blk *t, const struct blk **cur, uint64_t maxprio)
{
    if (!t)
        return 0;
    if (t->prio > maxprio || walk(t->left, cur, t->prio) || t != *cur)
        return -1;
    *cur = t->next;
    return walk(t->right, cur, t->prio);
}

static int check_index(const shmi_alloc_t *a)
{
    const struct blk *cur = a->head;
    if (walk(a->root, &cur, UINT64_MAX) || cur)
        BAD("index out of order with the block list (stopped near %zu)",
            cur ? cur->off : a->size);
    return SHMI_OK;
}

static int check_class(const shmi_alloc_t *a, unsigned c, size_t *count)
{
    int bit = (a->sl_map[c / SL_N] >> (c % SL_N)) & 1;
    if (bit != (a->lists[c] != NULL))
        BAD("class %u: bitmap bit %d but list %s", c, bit, a->lists[c] ? "non-empty" : "empty");
    const struct blk *p = NULL;
    for (const struct blk *r = a->lists[c]; r; p = r, r = r->fnext) {
        if (++*count > a->nfree)
            BAD("free lists hold more than %zu ranges (cycle?)", a->nfree);
        if (r->live || r->fprev != p || cls_floor(r->span) != c)
            BAD("class %u: range at %zu (span %zu, live %d) misfiled",
                c, r->off, r->span, r->live);
    }
    return SHMI_OK;
}

static int check_lists(const shmi_alloc_t *a)
{
    size_t count = 0;
    for (unsigned fl = 0; fl < FL_N; fl++)
        if (((a->fl_map >> fl) & 1) != (a->sl_map[fl] != 0))
            BAD("first-level bit %u disagrees with its second level", fl);
    if (a->fl_map >> FL_N)
        BAD("first-level bitmap has bits above %u", FL_N);
    for (unsigned c = 0; c < NCLS; c++)
        if (check_class(a, c, &count))
            return SHMI_ECORRUPT;
    if (count != a->nfree)
        BAD("free lists hold %zu ranges, the block list %zu", count, a->nfree);
    return SHMI_OK;
}

int shmi_alloc_check(const shmi_alloc_t *a)
{
    if (!a || !a->head)
        return SHMI_ECORRUPT;
    if (check_phys(a) || check_index(a) || check_lists(a))
        return SHMI_ECORRUPT;
    return SHMI_OK;
}
