/* alloc_fuzz.c - libFuzzer target: allocator operation sequences (issue #3).
 *
 * The input is a small program.  Its first byte picks the size of the managed
 * range (4 KiB up to SIZE_MAX: the allocator never touches the range, so any
 * size costs nothing); then each op is one opcode byte and a few argument
 * bytes (see the OP_ list; an input that ends early reads zeros).  Ops: alloc
 * with a size and an alignment (also size 0 and alignments that are not
 * powers of two), free, resize, find and set_tag of an offset that is a live
 * block's start, a point inside a block, a recently freed start (double free)
 * or any value, a full comparison, and a restart on another size.
 *
 * Every op runs on two allocators in lockstep.  B must return exactly what A
 * returns, and both must describe the same blocks at the end: the same calls
 * give the same offsets on every PE whatever malloc hands out for metadata
 * (alloc.h's determinism promise).  A is checked against a reference model,
 * a sorted array of live blocks, after every op:
 *   - alloc: EINVAL for size 0 or a bad alignment; otherwise an aligned,
 *     in-range offset that overlaps no live block; ENOMEM when no free range
 *     fits, and never ENOMEM when one fits and there are at most SCAN_SURE
 *     free ranges (alloc.c's bounded slow path then looks at all of them);
 *   - free, resize, set_tag of anything but a live block's start: EINVAL;
 *     resize succeeds exactly when the block can stay in place;
 *   - find: the live block or the maximal free range around the offset;
 *   - a failed call leaves *off and every statistic unchanged;
 *   - stats equal the model's (used, peak, counts, largest free range, the
 *     number of free ranges: free ranges are always coalesced) and
 *     shmi_alloc_check() == 0.
 * A mismatch prints the op and abort()s, so libFuzzer keeps the input. */
#include "heap/alloc.h"
#include "util/err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIVE 2048   /* model capacity; allocs past it are skipped */
#define RECENT 16       /* recently freed starts kept for double frees */
/* alloc.c scans up to SCAN_MAX (512) free ranges before giving up; with
 * fewer than this many, a fitting range must be found. */
#define SCAN_SURE 256

enum {
    OP_ALLOC_LO = 0, OP_ALLOC_HI = 4,   /* 0..4: alloc  size-spec align-spec */
    OP_FREE_LO = 5, OP_FREE_HI = 8,     /* 5..8: free   target */
    OP_RESIZE_LO = 9, OP_RESIZE_HI = 10,/* 9..10: resize target size-spec */
    OP_FIND_LO = 11, OP_FIND_HI = 12,   /* 11..12: find target */
    OP_TAG = 13,                        /* set_tag target u16 */
    OP_VERIFY = 14,                     /* compare all blocks with model and B */
    OP_RESTART = 15,                    /* new heap size: u8 */
};

static const size_t heap_sizes[] = {
    4096, 65536 + 48, 1000003 /* ragged tail: 1000000 managed */, (size_t)1 << 20,
    (size_t)1 << 30, (size_t)64 << 30, SIZE_MAX,
};

/* ---- input ----------------------------------------------------------------- */

static const uint8_t *in;
static size_t in_left;
static unsigned op_no;
static const char *op_name;

static uint64_t take(unsigned bytes)
{
    uint64_t v = 0;
    while (bytes--) {
        v <<= 8;
        if (in_left) {
            v |= *in++;
            in_left--;
        }
    }
    return v;
}

static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "alloc_fuzz: op %u (%s): ", op_no, op_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static void want_rc(const char *call, int rc, int want)
{
    if (rc != want)
        fail("%s = %d (%s), model says %d (%s)", call, rc, shmi_strerror(rc), want,
             shmi_strerror(want));
}

/* ---- model --------------------------------------------------------------- */

struct mblk {
    size_t off, size, span;
    uint64_t seq, tag;
};

static struct model {
    size_t size, used, peak, n;
    uint64_t allocs, frees, seq;
    struct mblk v[MAX_LIVE];    /* live blocks sorted by off */
    size_t recent[RECENT];      /* starts freed lately */
    unsigned nrecent;
} m;

static shmi_alloc_t *A, *B;

static size_t r16(size_t n) { return (n + 15) & ~(size_t)15; }
static size_t pad_for(size_t off, size_t al) { return (al - (off & (al - 1))) & (al - 1); }
static size_t end_of(size_t i) { return m.v[i].off + m.v[i].span; }

/* Index of the first live block with off >= x. */
static size_t lower(size_t x)
{
    size_t lo = 0, hi = m.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m.v[mid].off < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct mblk *live_at(size_t off)
{
    size_t i = lower(off);
    return i < m.n && m.v[i].off == off ? &m.v[i] : NULL;
}

/* Free range i lies between block i-1 (or 0) and block i (or the end). */
static void gap(size_t i, size_t *lo, size_t *hi)
{
    *lo = i ? end_of(i - 1) : 0;
    *hi = i < m.n ? m.v[i].off : m.size;
}

struct gaps {
    size_t count, largest;
};

static struct gaps gaps(void)
{
    struct gaps g = { 0, 0 };
    for (size_t i = 0, lo, hi; i <= m.n; i++) {
        gap(i, &lo, &hi);
        if (hi > lo) {
            g.count++;
            if (hi - lo > g.largest)
                g.largest = hi - lo;
        }
    }
    return g;
}

static int fit_exists(size_t span, size_t al)
{
    for (size_t i = 0, lo, hi; i <= m.n; i++) {
        gap(i, &lo, &hi);
        size_t pad = pad_for(lo, al);
        if (hi > lo && pad < hi - lo && hi - lo - pad >= span)
            return 1;
    }
    return 0;
}

static void account(void)
{
    if (m.used > m.peak)
        m.peak = m.used;
}

static void model_reset(size_t size)
{
    memset(&m, 0, sizeof m);
    m.size = size & ~(size_t)15;
}

/* ---- checks ------------------------------------------------------------------ */

static void check_stats(void)
{
    struct shmi_alloc_stats st;
    shmi_alloc_stats(A, &st);
    struct gaps g = gaps();
    if (st.size != m.size || st.used != m.used || st.free != m.size - m.used ||
        st.peak_used != m.peak || st.live_blocks != m.n || st.free_ranges != g.count ||
        st.largest_free != g.largest || st.allocs != m.allocs || st.frees != m.frees)
        fail("stats size %zu used %zu free %zu peak %zu live %zu ranges %zu largest %zu "
             "allocs %llu frees %llu; model %zu %zu %zu %zu %zu %zu %zu %llu %llu",
             st.size, st.used, st.free, st.peak_used, st.live_blocks, st.free_ranges,
             st.largest_free, (unsigned long long)st.allocs, (unsigned long long)st.frees,
             m.size, m.used, m.size - m.used, m.peak, m.n, g.count, g.largest,
             (unsigned long long)m.allocs, (unsigned long long)m.frees);
    if (shmi_alloc_check(A))
        fail("shmi_alloc_check failed (message above)");
}

struct walk {
    struct shmi_block_info *v;
    size_t n, cap;
};

static int walk_add(const struct shmi_block_info *b, void *arg)
{
    struct walk *w = arg;
    if (w->n == w->cap)
        return 1;
    w->v[w->n++] = *b;
    return 0;
}

static size_t walk_all(const shmi_alloc_t *a, struct walk *w)
{
    w->cap = 2 * m.n + 2; /* live blocks and the free ranges between them */
    w->n = 0;
    w->v = malloc(w->cap * sizeof *w->v);
    if (!w->v)
        abort();
    if (shmi_alloc_foreach(a, walk_add, w))
        fail("foreach visits more than %zu nodes for %zu live blocks", w->cap, m.n);
    return w->n;
}

/* A's blocks and free ranges equal the model's tiling; B's equal A's
 * exactly (free ranges' tag/seq included). */
static void verify(void)
{
    struct walk wa, wb;
    walk_all(A, &wa);
    walk_all(B, &wb);
    size_t k = 0;
    for (size_t i = 0, lo, hi; i <= m.n; i++) {
        gap(i, &lo, &hi);
        if (hi > lo) {
            if (k >= wa.n || wa.v[k].live || wa.v[k].off != lo || wa.v[k].span != hi - lo)
                fail("walk node %zu: want free range [%zu, %zu)", k, lo, hi);
            k++;
        }
        if (i == m.n)
            break;
        const struct mblk *b = &m.v[i];
        const struct shmi_block_info *x = k < wa.n ? &wa.v[k] : NULL;
        if (!x || !x->live || x->off != b->off || x->size != b->size || x->span != b->span ||
            x->seq != b->seq || x->tag != b->tag)
            fail("walk node %zu: want live block at %zu size %zu", k, b->off, b->size);
        k++;
    }
    if (k != wa.n)
        fail("walk has %zu nodes, model %zu", wa.n, k);
    if (wb.n != wa.n || memcmp(wa.v, wb.v, wa.n * sizeof *wa.v))
        fail("allocator B's blocks differ from A's: not deterministic");
    free(wa.v);
    free(wb.v);
}

/* ---- argument decoding ----------------------------------------------------- */

/* A size; room is what the context has space for (the largest free range
 * for alloc, the room up to the next block for resize): exact fits and
 * off-by-a-few misses of it are where the boundary bugs are. */
static size_t size_spec(size_t room)
{
    unsigned s = (unsigned)take(1), t;
    switch (s & 7) {
    case 0: case 1: case 2: return 1 + take(1);
    case 3: return 1 + take(2);
    case 4: { /* near a fraction of the heap; may wrap to huge: also a test */
        size_t base = m.size >> (take(1) % 48);
        return base + (size_t)take(1) - 128;
    }
    case 5: return (size_t)take(8);
    case 6:
        t = (unsigned)take(1);
        return t & 1 ? 0 : room + 16 - (t >> 1) % 48;
    default: return (size_t)1 << (take(1) % 64);
    }
}

static size_t align_spec(void)
{
    unsigned a = (unsigned)take(1);
    switch (a >> 6) {
    case 0: return (size_t)1 << (a % 5);
    case 1: return (size_t)1 << (a % 22);
    case 2: return (size_t)1 << (a % 64);
    default: return a & 1 ? 0 : (size_t)3 << (a % 62); /* not a power of two */
    }
}

/* An offset to free/resize/find: a live start, a point inside a block, a
 * recently freed start, or anything. */
static size_t target(void)
{
    unsigned t = (unsigned)take(1);
    size_t idx = (size_t)take(2);
    if (m.n && t % 4 == 0)
        return m.v[idx % m.n].off;
    if (m.n && t % 4 == 1) {
        const struct mblk *b = &m.v[idx % m.n];
        return b->off + (size_t)take(2) % b->span;
    }
    if (m.nrecent && t % 4 == 2)
        return m.recent[idx % (m.nrecent < RECENT ? m.nrecent : RECENT)];
    size_t raw = (size_t)take(8);
    return t & 4 ? raw : raw % (m.size + 64);
}

/* ---- ops ------------------------------------------------------------------- */

static void stats_same(const struct shmi_alloc_stats *before)
{
    struct shmi_alloc_stats st;
    shmi_alloc_stats(A, &st);
    if (memcmp(&st, before, sizeof st))
        fail("a failed call changed the statistics");
}

static void op_alloc(void)
{
    size_t size = size_spec(gaps().largest), align = align_spec();
    if (m.n == MAX_LIVE)
        return;
    struct shmi_alloc_stats before;
    shmi_alloc_stats(A, &before);
    size_t oa = 12345, ob = 12345;
    int ra = shmi_alloc_alloc(A, size, align, &oa);
    int rb = shmi_alloc_alloc(B, size, align, &ob);
    if (ra != rb || oa != ob)
        fail("alloc(%zu, %zu): A gave %d at %zu, B %d at %zu", size, align, ra, oa, rb, ob);
    if (!size || !align || (align & (align - 1))) {
        want_rc("alloc", ra, SHMI_EINVAL);
    } else {
        size_t al = align < 16 ? 16 : align;
        size_t span = size > m.size ? 0 : r16(size);
        int fits = span && fit_exists(span, al);
        if (!fits)
            want_rc("alloc", ra, SHMI_ENOMEM);
        else if (gaps().count <= SCAN_SURE)
            want_rc("alloc", ra, SHMI_OK);
        else if (ra != SHMI_OK && ra != SHMI_ENOMEM)
            want_rc("alloc", ra, SHMI_OK);
    }
    if (ra) {
        if (oa != 12345)
            fail("alloc(%zu, %zu) failed but changed *off to %zu", size, align, oa);
        stats_same(&before);
        return;
    }
    size_t al = align < 16 ? 16 : align, span = r16(size);
    size_t i = lower(oa), lo, hi;
    gap(i, &lo, &hi);
    if (oa % al || oa < lo || oa > hi || hi - oa < span)
        fail("alloc(%zu, %zu) = %zu: misaligned or overlaps (free range [%zu, %zu))",
             size, align, oa, lo, hi);
    memmove(&m.v[i + 1], &m.v[i], (m.n - i) * sizeof m.v[0]);
    m.v[i] = (struct mblk){ .off = oa, .size = size, .span = span, .seq = ++m.seq };
    m.n++;
    m.allocs++;
    m.used += span;
    account();
}

static void op_free(void)
{
    size_t off = target();
    struct mblk *b = live_at(off);
    struct shmi_alloc_stats before;
    shmi_alloc_stats(A, &before);
    int ra = shmi_alloc_free(A, off), rb = shmi_alloc_free(B, off);
    if (ra != rb)
        fail("free(%zu): A %d, B %d", off, ra, rb);
    want_rc("free", ra, b ? SHMI_OK : SHMI_EINVAL);
    if (!b) {
        stats_same(&before);
        return;
    }
    m.used -= b->span;
    m.frees++;
    m.recent[m.nrecent++ % RECENT] = off;
    size_t i = (size_t)(b - m.v);
    memmove(&m.v[i], &m.v[i + 1], (m.n - i - 1) * sizeof m.v[0]);
    m.n--;
}

static void op_resize(void)
{
    size_t off = target();
    struct mblk *b = live_at(off);
    size_t i = b ? (size_t)(b - m.v) : 0;
    size_t limit = b && i + 1 < m.n ? m.v[i + 1].off : m.size;
    size_t size = size_spec(b ? limit - off : m.size);
    struct shmi_alloc_stats before;
    shmi_alloc_stats(A, &before);
    int ra = shmi_alloc_resize(A, off, size), rb = shmi_alloc_resize(B, off, size);
    if (ra != rb)
        fail("resize(%zu, %zu): A %d, B %d", off, size, ra, rb);
    int want = SHMI_OK;
    if (!b || !size) {
        want = SHMI_EINVAL;
    } else {
        if (size > limit - off || r16(size) > limit - off)
            want = SHMI_EAGAIN;
    }
    want_rc("resize", ra, want);
    if (ra) {
        stats_same(&before);
        return;
    }
    m.used = m.used - b->span + r16(size);
    b->size = size;
    b->span = r16(size);
    account();
}

static void op_find(void)
{
    size_t off = target();
    struct shmi_block_info x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    int ra = shmi_alloc_find(A, off, &x), rb = shmi_alloc_find(B, off, &y);
    if (ra != rb || memcmp(&x, &y, sizeof x))
        fail("find(%zu): A and B differ", off);
    if (off >= m.size) {
        want_rc("find", ra, SHMI_ERANGE);
        return;
    }
    want_rc("find", ra, SHMI_OK);
    size_t i = lower(off);
    if (i < m.n && m.v[i].off == off) {
        i++; /* the block starting at off is the one before index i+1 */
    }
    if (i && off < end_of(i - 1)) {
        const struct mblk *b = &m.v[i - 1];
        if (!x.live || x.off != b->off || x.size != b->size || x.span != b->span ||
            x.seq != b->seq || x.tag != b->tag)
            fail("find(%zu): got %s at %zu size %zu span %zu seq %llu, want block at %zu",
                 off, x.live ? "block" : "free range", x.off, x.size, x.span,
                 (unsigned long long)x.seq, b->off);
        return;
    }
    size_t lo, hi;
    gap(i, &lo, &hi);
    if (x.live || x.off != lo || x.span != hi - lo || x.size)
        fail("find(%zu): got %s at %zu span %zu, want free range [%zu, %zu)", off,
             x.live ? "block" : "free range", x.off, x.span, lo, hi);
}

static void op_tag(void)
{
    size_t off = target();
    uint64_t tag = take(2) + 1;
    struct mblk *b = live_at(off);
    int ra = shmi_alloc_set_tag(A, off, tag), rb = shmi_alloc_set_tag(B, off, tag);
    if (ra != rb)
        fail("set_tag(%zu): A %d, B %d", off, ra, rb);
    want_rc("set_tag", ra, b ? SHMI_OK : SHMI_EINVAL);
    if (b)
        b->tag = tag;
}

static void start(size_t size)
{
    shmi_alloc_destroy(A);
    shmi_alloc_destroy(B);
    A = B = NULL;
    if (shmi_alloc_create(&A, size) || shmi_alloc_create(&B, size))
        fail("shmi_alloc_create(%zu) failed", size);
    model_reset(size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    in = data;
    in_left = len;
    op_no = 0;
    op_name = "create";
    size_t nsizes = sizeof heap_sizes / sizeof heap_sizes[0];
    start(heap_sizes[take(1) % nsizes]);
    check_stats();
    while (in_left) {
        unsigned op = (unsigned)take(1) & 15;
        op_no++;
        if (op <= OP_ALLOC_HI) {
            op_name = "alloc";
            op_alloc();
        } else if (op <= OP_FREE_HI) {
            op_name = "free";
            op_free();
        } else if (op <= OP_RESIZE_HI) {
            op_name = "resize";
            op_resize();
        } else if (op <= OP_FIND_HI) {
            op_name = "find";
            op_find();
        } else if (op == OP_TAG) {
            op_name = "set_tag";
            op_tag();
        } else if (op == OP_VERIFY) {
            op_name = "verify";
            verify();
        } else {
            op_name = "restart";
            verify();
            start(heap_sizes[take(1) % nsizes]);
        }
        check_stats();
    }
    op_name = "end";
    verify();
    shmi_alloc_destroy(A);
    shmi_alloc_destroy(B);
    A = B = NULL;
    return 0;
}
