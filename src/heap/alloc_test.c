/* alloc_test.c - the allocator alone: no mapping, no transport, no bootstrap.
 *
 * The managed ranges here (up to 64 GiB and SIZE_MAX) are never mapped: the
 * allocator only hands out offsets, so any access to the range would crash.
 * Directed tests cover each contract clause of alloc.h; long randomized runs
 * compare against a plain array model (no overlap, in range, aligned, usage
 * sums, exact resize-in-place predictions); a scaling run prints ns/op with
 * 10, 10^3 and 10^5 live blocks and fails only past a 10 s bound.
 *
 * Built with expensive assertions (util/assert.h: Debug and sanitizer
 * builds) the allocator runs its whole invariant check, O(blocks), after
 * every operation.  The long runs are then cut (LONG_RUNS) to stay within
 * the timeout, and the scaling run skips 10^5 blocks and its bound, which
 * would time that check rather than the allocator. */
#include "heap/alloc.h"
#include "util/clock.h"
#include "util/err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if SHMI_ASSERT_LEVEL >= 2
#define LONG_RUNS 0 /* every operation already walks the whole allocator */
#else
#define LONG_RUNS 1
#endif

#include "util/unit_check.h"

#define CHECK_RC(expr, want)                                                  \
    do {                                                                      \
        int rc_ = (expr), want_ = (want);                                     \
        if (rc_ != want_) {                                                   \
            fprintf(stderr, "%s:%d: %s = %d (%s), want %d (%s)\n", __FILE__,  \
                    __LINE__, #expr, rc_, shmi_strerror(rc_), want_,          \
                    shmi_strerror(want_));                                    \
            fails++;                                                          \
        }                                                                     \
    } while (0)

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)

static size_t r16(size_t n) { return (n + 15) & ~(size_t)15; }

/* splitmix64: the tests' own deterministic PRNG. */
static uint64_t rnd(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static shmi_alloc_t *make(size_t size)
{
    shmi_alloc_t *a = NULL;
    int rc = shmi_alloc_create(&a, size);
    if (rc) {
        fprintf(stderr, "shmi_alloc_create(%zu) = %s\n", size, shmi_strerror(rc));
        exit(2);
    }
    return a;
}

/* Allocate and expect success; SIZE_MAX (and a failure) otherwise. */
static size_t get(shmi_alloc_t *a, size_t size, size_t align, int line)
{
    size_t off = SIZE_MAX;
    int rc = shmi_alloc_alloc(a, size, align, &off);
    if (rc) {
        fprintf(stderr, "%s:%d: alloc(%zu, align %zu) = %s\n", __FILE__, line,
                size, align, shmi_strerror(rc));
        fails++;
        return SIZE_MAX;
    }
    return off;
}
#define GET(a, size, align) get((a), (size), (align), __LINE__)

static int nomem(shmi_alloc_t *a, size_t size, size_t align)
{
    size_t off = 12345;
    return shmi_alloc_alloc(a, size, align, &off) == SHMI_ENOMEM && off == 12345;
}

static void check_ok(const shmi_alloc_t *a, int line)
{
    if (shmi_alloc_check(a)) {
        fprintf(stderr, "%s:%d: shmi_alloc_check failed\n", __FILE__, line);
        fails++;
    }
}
#define CHECK_OK(a) check_ok((a), __LINE__)

static struct shmi_alloc_stats stats(const shmi_alloc_t *a)
{
    struct shmi_alloc_stats st;
    shmi_alloc_stats(a, &st);
    return st;
}

static struct shmi_block_info find(const shmi_alloc_t *a, size_t off)
{
    struct shmi_block_info b;
    memset(&b, 0xff, sizeof b);
    CHECK_RC(shmi_alloc_find(a, off, &b), SHMI_OK);
    return b;
}

/* ---- snapshots: "state unchanged" means the same blocks and stats ------- */

struct snap {
    struct shmi_alloc_stats st;
    size_t n, cap;
    struct shmi_block_info *v;
};

static int snap_add(const struct shmi_block_info *b, void *arg)
{
    struct snap *s = arg;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v)
            exit(2);
    }
    s->v[s->n++] = *b;
    return 0;
}

static struct snap snap_take(const shmi_alloc_t *a)
{
    struct snap s = { .n = 0 };
    s.st = stats(a);
    shmi_alloc_foreach(a, snap_add, &s);
    return s;
}

static int info_eq(const struct shmi_block_info *x, const struct shmi_block_info *y)
{
    return x->off == y->off && x->size == y->size && x->span == y->span &&
           x->live == y->live && x->tag == y->tag && x->seq == y->seq;
}

static int stats_eq(const struct shmi_alloc_stats *x, const struct shmi_alloc_stats *y)
{
    return x->size == y->size && x->used == y->used && x->free == y->free &&
           x->largest_free == y->largest_free && x->peak_used == y->peak_used &&
           x->live_blocks == y->live_blocks && x->free_ranges == y->free_ranges &&
           x->allocs == y->allocs && x->frees == y->frees;
}

/* Compare a with an earlier snapshot s and free s. */
static int same(const shmi_alloc_t *a, struct snap *s)
{
    struct snap t = snap_take(a);
    int eq = stats_eq(&s->st, &t.st) && s->n == t.n;
    for (size_t i = 0; eq && i < s->n; i++)
        eq = info_eq(&s->v[i], &t.v[i]);
    free(s->v);
    free(t.v);
    return eq;
}

/* ---- directed tests ------------------------------------------------------- */

static int count_cb(const struct shmi_block_info *b, void *arg)
{
    (void)b;
    return ++*(int *)arg == 2 ? 7 : 0;
}

static void test_basic(void)
{
    shmi_alloc_t *a = NULL;
    CHECK_RC(shmi_alloc_create(&a, 0), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_create(&a, 15), SHMI_EINVAL);
    a = make(MiB);
    struct shmi_alloc_stats st = stats(a);
    CHECK(st.size == MiB && st.used == 0 && st.free == MiB);
    CHECK(st.largest_free == MiB && st.free_ranges == 1 && st.live_blocks == 0);

    size_t x = GET(a, 100, 1), y = GET(a, 200, 0 + 16), z = GET(a, 50, 16);
    CHECK(x == 0 && y == 112 && z == 320);
    st = stats(a);
    CHECK(st.used == 112 + 208 + 64 && st.live_blocks == 3 && st.allocs == 3);
    CHECK_RC(shmi_alloc_free(a, y), SHMI_OK);         /* hole between x and z */
    CHECK(stats(a).free_ranges == 2);
    CHECK_RC(shmi_alloc_free(a, x), SHMI_OK);         /* merges with next */
    struct shmi_block_info b = find(a, 0);
    CHECK(!b.live && b.off == 0 && b.span == 320 && b.seq == 1);
    CHECK_RC(shmi_alloc_free(a, z), SHMI_OK);         /* merges with both */
    st = stats(a);
    CHECK(st.free_ranges == 1 && st.largest_free == MiB && st.used == 0);
    CHECK(st.peak_used == 384 && st.frees == 3);
    CHECK(find(a, MiB - 1).span == MiB);
    CHECK_OK(a);

    x = GET(a, 16, 16), y = GET(a, 16, 16), z = GET(a, 16, 16);
    size_t w = GET(a, 16, 16);
    CHECK(x == 0 && y == 16 && z == 32 && w == 48);
    CHECK_RC(shmi_alloc_free(a, x), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, z), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, y), SHMI_OK);         /* prev and next free */
    b = find(a, 40);
    CHECK(!b.live && b.off == 0 && b.span == 48 && stats(a).free_ranges == 2);
    CHECK_OK(a);

    int visits = 0;
    CHECK(shmi_alloc_foreach(a, count_cb, &visits) == 7 && visits == 2);
    CHECK_RC(shmi_alloc_set_tag(a, w, 99), SHMI_OK);
    CHECK(find(a, w).tag == 99);
    CHECK_RC(shmi_alloc_set_tag(a, 0, 1), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_free(a, w), SHMI_OK);
    CHECK(stats(a).free_ranges == 1);
    shmi_alloc_destroy(a);
    shmi_alloc_destroy(NULL);
}

static void test_align(void)
{
    shmi_alloc_t *a = make(64 * MiB);
    size_t off;
    CHECK_RC(shmi_alloc_alloc(a, 16, 3, &off), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_alloc(a, 16, 24, &off), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_alloc(a, 16, 0, &off), SHMI_EINVAL);
    CHECK(GET(a, 10, 1) == 0 && GET(a, 10, 8) == 16);

    static const size_t aligns[] = { 32, 64, 4096, 65536, MiB, 2 * MiB, 2 * MiB };
    size_t used = 32;
    for (size_t i = 0; i < sizeof aligns / sizeof *aligns; i++) {
        off = GET(a, 100, aligns[i]);
        CHECK(off % aligns[i] == 0);
        used += 112;
    }
    /* Padding is not counted as used: it stays free for later requests. */
    struct shmi_alloc_stats st = stats(a);
    CHECK(st.used == used && st.free == 64 * MiB - used);
    struct shmi_block_info b = find(a, 2 * MiB - 16);
    CHECK(!b.live && b.off + b.span == 2 * MiB);
    size_t small = GET(a, 16, 16);                   /* lands in a pad */
    CHECK(small < 4 * MiB);
    CHECK_OK(a);
    shmi_alloc_destroy(a);

    /* Exact aligned fits: the second one fits only because of its offset. */
    a = make(4 * MiB);
    CHECK(GET(a, 2 * MiB, 2 * MiB) == 0 && GET(a, 2 * MiB, 2 * MiB) == 2 * MiB);
    CHECK(nomem(a, 16, 16));
    CHECK_RC(shmi_alloc_free(a, 0), SHMI_OK);
    CHECK(GET(a, MiB, 2 * MiB) == 0 && GET(a, 16, MiB) == MiB);
    CHECK_OK(a);
    shmi_alloc_destroy(a);

    /* Huge alignments: offset 0 satisfies any of them. */
    a = make(MiB);
    size_t top = (size_t)1 << (sizeof(size_t) * 8 - 1);
    CHECK(GET(a, 16, top) == 0);
    CHECK(nomem(a, 16, top) && nomem(a, 16, 2 * MiB));
    CHECK(GET(a, 16, 512 * KiB) == 512 * KiB);
    CHECK_OK(a);
    shmi_alloc_destroy(a);
}

static void test_exhaust(void)
{
    shmi_alloc_t *a = make(MiB);
    size_t off, offs[256];
    for (int i = 0; i < 256; i++)
        CHECK((offs[i] = GET(a, 4096, 16)) == (size_t)i * 4096);
    struct snap s = snap_take(a);
    CHECK(nomem(a, 16, 16) && nomem(a, 4096, 4096) && nomem(a, MiB + 16, 16));
    CHECK(nomem(a, SIZE_MAX, 16) && nomem(a, SIZE_MAX - 15, 16));
    CHECK(nomem(a, SIZE_MAX - 16, 16) && nomem(a, 16, SIZE_MAX / 2 + 1));
    CHECK(same(a, &s));
    CHECK_RC(shmi_alloc_alloc(a, 0, 16, &off), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_alloc(a, 16, 16, NULL), SHMI_EINVAL);

    CHECK_RC(shmi_alloc_free(a, offs[100]), SHMI_OK);
    CHECK(nomem(a, 4097, 16) && GET(a, 4096, 16) == offs[100]);
    CHECK(nomem(a, 16, 16));
    CHECK_RC(shmi_alloc_free(a, offs[100]), SHMI_OK);
    CHECK(GET(a, 16, 16) == offs[100] && GET(a, 4080, 16) == offs[100] + 16);
    CHECK(stats(a).free == 0 && stats(a).largest_free == 0);
    CHECK_OK(a);
    shmi_alloc_destroy(a);

    /* A size off every class boundary must still take the whole range. */
    a = make(MiB + 48);
    CHECK(GET(a, MiB + 48, 16) == 0 && stats(a).free_ranges == 0);
    CHECK_OK(a);
    shmi_alloc_destroy(a);

    /* The whole address space: no size computation may wrap. */
    a = make(SIZE_MAX);
    CHECK(stats(a).size == (SIZE_MAX & ~(size_t)15));
    CHECK(nomem(a, SIZE_MAX, 16) && nomem(a, SIZE_MAX - 14, 16));
    CHECK(GET(a, SIZE_MAX - 15, 16) == 0 && nomem(a, 1, 16));
    CHECK_RC(shmi_alloc_resize(a, 0, SIZE_MAX), SHMI_EAGAIN);
    CHECK_RC(shmi_alloc_resize(a, 0, 1), SHMI_OK);
    CHECK(GET(a, SIZE_MAX / 4, SIZE_MAX / 2 + 1) == SIZE_MAX / 2 + 1);
    CHECK_RC(shmi_alloc_find(a, SIZE_MAX, &(struct shmi_block_info){ 0 }), SHMI_ERANGE);
    CHECK_OK(a);
    shmi_alloc_destroy(a);
}

static void test_invalid(void)
{
    shmi_alloc_t *a = make(MiB);
    size_t x = GET(a, 100, 16), y = GET(a, 100, 16);
    CHECK_RC(shmi_alloc_free(a, x), SHMI_OK);
    struct snap s = snap_take(a);
    CHECK_RC(shmi_alloc_free(a, x), SHMI_EINVAL);          /* double free */
    CHECK_RC(shmi_alloc_free(a, y + 16), SHMI_EINVAL);     /* interior */
    CHECK_RC(shmi_alloc_free(a, y + 1), SHMI_EINVAL);      /* misaligned */
    CHECK_RC(shmi_alloc_free(a, 4096), SHMI_EINVAL);       /* never allocated */
    CHECK_RC(shmi_alloc_free(a, MiB), SHMI_EINVAL);        /* past the end */
    CHECK_RC(shmi_alloc_free(a, SIZE_MAX), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_resize(a, x, 16), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_resize(a, y + 16, 16), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_resize(a, y, 0), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_set_tag(a, y + 16, 5), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_set_tag(a, x, 5), SHMI_EINVAL);
    CHECK(same(a, &s));
    struct shmi_block_info b;
    CHECK_RC(shmi_alloc_find(a, MiB, &b), SHMI_ERANGE);
    CHECK_RC(shmi_alloc_find(a, SIZE_MAX, &b), SHMI_ERANGE);
    CHECK_OK(a);
    shmi_alloc_destroy(a);
}

static void test_resize(void)
{
    shmi_alloc_t *a = make(MiB);
    size_t x = GET(a, 100, 16), y = GET(a, 100, 16);
    CHECK_RC(shmi_alloc_resize(a, y, 1000), SHMI_OK);       /* grow into tail */
    struct shmi_block_info b = find(a, y + 999);
    CHECK(b.off == y && b.live && b.size == 1000 && b.span == 1008);
    CHECK(stats(a).used == 112 + 1008 && stats(a).peak_used == 1120);

    struct snap s = snap_take(a);
    CHECK_RC(shmi_alloc_resize(a, x, 200), SHMI_EAGAIN);    /* next is live */
    CHECK(same(a, &s));
    CHECK_RC(shmi_alloc_resize(a, x, 97), SHMI_OK);         /* same span */
    CHECK(find(a, x).size == 97 && find(a, x).span == 112);
    CHECK_RC(shmi_alloc_resize(a, x, 50), SHMI_OK);         /* shrink: new hole */
    b = find(a, 100);
    CHECK(!b.live && b.off == 64 && b.span == 48 && stats(a).free_ranges == 2);
    CHECK_RC(shmi_alloc_resize(a, x, 80), SHMI_OK);         /* part of hole */
    CHECK(find(a, 100).off == 80 && stats(a).free_ranges == 2);
    CHECK_RC(shmi_alloc_resize(a, x, 113), SHMI_EAGAIN);    /* hole too small */
    CHECK_RC(shmi_alloc_resize(a, x, 112), SHMI_OK);        /* exactly the hole */
    CHECK(stats(a).free_ranges == 1 && stats(a).used == 112 + 1008);
    CHECK_OK(a);

    CHECK_RC(shmi_alloc_resize(a, y, 16), SHMI_OK);         /* tail merges */
    b = find(a, y + 16);
    CHECK(!b.live && b.span == MiB - y - 16 && stats(a).free_ranges == 1);
    CHECK_RC(shmi_alloc_resize(a, y, MiB), SHMI_EAGAIN);
    CHECK_RC(shmi_alloc_resize(a, y, SIZE_MAX), SHMI_EAGAIN);
    CHECK_RC(shmi_alloc_resize(a, y, MiB - y), SHMI_OK);    /* up to the end */
    CHECK(stats(a).free_ranges == 0 && stats(a).largest_free == 0);
    CHECK(stats(a).used == MiB && stats(a).peak_used == MiB);
    CHECK_OK(a);
    CHECK_RC(shmi_alloc_free(a, x), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, y), SHMI_OK);
    CHECK(stats(a).free_ranges == 1 && stats(a).used == 0);
    CHECK_OK(a);
    shmi_alloc_destroy(a);
}

static void test_find(void)
{
    shmi_alloc_t *a = make(MiB);
    size_t x = GET(a, 100, 16), y = GET(a, 5000, 16);
    CHECK_RC(shmi_alloc_set_tag(a, y, 42), SHMI_OK);
    struct shmi_block_info b = find(a, x + 50);
    CHECK(b.off == x && b.live && b.size == 100 && b.span == 112 && b.seq == 1);
    b = find(a, y + 5007);                                   /* span padding */
    CHECK(b.off == y && b.live && b.tag == 42 && b.seq == 2 && b.size == 5000);
    b = find(a, y + 5008);
    CHECK(!b.live && b.off == y + 5008 && b.size == 0 && b.seq == 0);
    CHECK(b.span == MiB - y - 5008);
    CHECK_RC(shmi_alloc_free(a, x), SHMI_OK);
    b = find(a, 50);                                         /* last block there */
    CHECK(!b.live && b.off == 0 && b.span == 112 && b.seq == 1);
    CHECK_RC(shmi_alloc_free(a, y), SHMI_OK);
    b = find(a, MiB - 16);
    CHECK(!b.live && b.off == 0 && b.span == MiB);

    /* A free range whose start moves no longer names the block freed there. */
    x = GET(a, 100, 16), y = GET(a, 100, 16);
    size_t z = GET(a, 100, 16), w = GET(a, 100, 16);
    CHECK_RC(shmi_alloc_free(a, y), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, w), SHMI_OK);
    CHECK(find(a, y).seq == 4 && find(a, w).seq == 6);
    CHECK_RC(shmi_alloc_resize(a, x, 150), SHMI_OK);          /* range moves up */
    b = find(a, y + 100);
    CHECK(!b.live && b.off == 160 && b.seq == 0 && b.tag == 0);
    CHECK_RC(shmi_alloc_resize(a, z, 16), SHMI_OK);           /* range moves down */
    b = find(a, w);
    CHECK(!b.live && b.off == z + 16 && b.seq == 0);
    CHECK_OK(a);
    shmi_alloc_destroy(a);
}

static void test_64g(void)
{
    shmi_alloc_t *a = make(64 * GiB);
    size_t offs[64];
    for (int i = 0; i < 63; i++)
        CHECK((offs[i] = GET(a, GiB, 2 * MiB)) == (size_t)i * GiB);
    offs[63] = GET(a, GiB - 16, 16);
    CHECK(nomem(a, 32, 16));
    CHECK(find(a, 60 * GiB + 12345).off == 60 * GiB);
    CHECK_OK(a);
    for (int i = 0; i < 64; i += 2)
        CHECK_RC(shmi_alloc_free(a, offs[i]), SHMI_OK);
    /* Only 1 GiB holes are left: 512 MiB at 1 GiB must take one exactly. */
    size_t p = GET(a, 512 * MiB, GiB), q = GET(a, 3 * MiB, 2 * MiB);
    CHECK(p % GiB == 0 && p / GiB % 2 == 0 && q % (2 * MiB) == 0);
    for (int i = 1; i < 64; i += 2)
        CHECK_RC(shmi_alloc_free(a, offs[i]), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, p), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, q), SHMI_OK);
    CHECK(stats(a).free_ranges == 1 && GET(a, 64 * GiB, 16) == 0);
    CHECK_OK(a);
    shmi_alloc_destroy(a);
}

/* ---- randomized runs against an array model -------------------------- */

/* Live blocks in arrays (for picking) plus a bitmap of 16-byte granules
 * in use, so overlap and "next live block" questions cost words, not n. */
struct model {
    size_t heap, n, used, *off, *size;
    uint64_t *bits;
};

static int bit(const struct model *m, size_t g) { return (m->bits[g / 64] >> (g % 64)) & 1; }

/* Any granule of [lo, hi) in use? */
static int bits_any(const struct model *m, size_t lo, size_t hi)
{
    for (; lo < hi && lo % 64; lo++)
        if (bit(m, lo))
            return 1;
    for (; hi - lo >= 64 && lo < hi; lo += 64)
        if (m->bits[lo / 64])
            return 1;
    for (; lo < hi; lo++)
        if (bit(m, lo))
            return 1;
    return 0;
}

static void bits_put(struct model *m, size_t off, size_t span, int v)
{
    for (size_t g = off / 16; g < (off + span) / 16; g++)
        if (g % 64 == 0 && (off + span) / 16 - g >= 64) {
            m->bits[g / 64] = v ? ~0ull : 0;
            g += 63;
        } else if (v) {
            m->bits[g / 64] |= 1ull << (g % 64);
        } else {
            m->bits[g / 64] &= ~(1ull << (g % 64));
        }
}

/* First granule at or after g whose bit equals v (as a byte offset), or
 * the heap end. */
static size_t next_bit(const struct model *m, size_t g, int v)
{
    size_t n = m->heap / 16;
    if (g >= n)
        return m->heap;
    uint64_t flip = v ? 0 : ~0ull, w = (m->bits[g / 64] ^ flip) & (~0ull << (g % 64));
    for (g /= 64; !w; w = m->bits[g] ^ flip)
        if (++g >= n / 64)
            return m->heap;
    g = g * 64 + (size_t)__builtin_ctzll(w);
    return g < n ? g * 16 : m->heap;
}

static size_t next_used(const struct model *m, size_t g) { return next_bit(m, g, 1); }
static size_t next_free(const struct model *m, size_t at) { return next_bit(m, at / 16, 0); }

static size_t rand_size(uint64_t *s)
{
    uint64_t k = rnd(s) % 100;
    if (k < 60) return 1 + rnd(s) % 256;
    if (k < 90) return 1 + rnd(s) % (16 * KiB);
    if (k < 99) return 1 + rnd(s) % (256 * KiB);
    return 1 + rnd(s) % (2 * MiB);
}

static size_t rand_align(uint64_t *s)
{
    uint64_t k = rnd(s) % 100;
    if (k < 40) return 1;
    if (k < 70) return 16;
    if (k < 90) return (size_t)32 << (rnd(s) % 8);    /* 32 .. 4 KiB */
    if (k < 97) return 64 * KiB;
    return (rnd(s) & 1) ? MiB : 2 * MiB;
}

/* Could some free run of the model take (span, align)? */
static int model_fits(const struct model *m, size_t span, size_t align)
{
    for (size_t at = next_free(m, 0); at < m->heap; at = next_free(m, at)) {
        size_t end = next_used(m, at / 16);
        size_t pad = (align - (at & (align - 1))) & (align - 1);
        if (pad < end - at && end - at - pad >= span)
            return 1;
        at = end;
    }
    return 0;
}

/* Returns 1 on ENOMEM. */
static int rand_alloc(shmi_alloc_t *a, struct model *m, uint64_t *s, int *spurious)
{
    size_t size = rand_size(s), align = rand_align(s), off = 0;
    size_t al = align < 16 ? 16 : align;
    struct shmi_alloc_stats before = stats(a);
    int rc = shmi_alloc_alloc(a, size, align, &off);
    if (rc == SHMI_ENOMEM) {
        struct shmi_alloc_stats after = stats(a);
        CHECK(stats_eq(&before, &after));
        int fit = model_fits(m, r16(size), al);
        /* Exact unless past the slow path's bounds (SCAN_MAX, PROBE_MAX). */
        if (fit && (before.free_ranges <= 512 || (al > 16 && m->heap / al <= 256))) {
            fprintf(stderr, "alloc(%zu, %zu): ENOMEM though a range fits\n", size, align);
            fails++;
        }
        *spurious += fit;
        return 1;
    }
    CHECK_RC(rc, SHMI_OK);
    if (off % al || off > m->heap || r16(size) > m->heap - off ||
        bits_any(m, off / 16, (off + r16(size)) / 16)) {
        fprintf(stderr, "alloc(%zu, %zu) = %zu: misaligned, out of range or overlapping\n",
                size, align, off);
        fails++;
        return 0;
    }
    CHECK_RC(shmi_alloc_set_tag(a, off, off * 3 + 1), SHMI_OK);
    bits_put(m, off, r16(size), 1);
    m->off[m->n] = off;
    m->size[m->n++] = size;
    m->used += r16(size);
    return 0;
}

/* Resize succeeds exactly when the block's new span reaches no further
 * than the next live block: free ranges are always coalesced. */
static void rand_resize(shmi_alloc_t *a, struct model *m, uint64_t *s)
{
    size_t i = rnd(s) % m->n, off = m->off[i], old = m->size[i], ns;
    uint64_t k = rnd(s) % 100;
    ns = k < 45 ? 1 + rnd(s) % old : k < 98 ? old + rnd(s) % (64 * KiB) : SIZE_MAX - rnd(s) % 64;
    size_t room = next_used(m, (off + r16(old)) / 16) - off;
    int want = ns <= m->heap - off && r16(ns) <= room ? SHMI_OK : SHMI_EAGAIN;
    int rc = shmi_alloc_resize(a, off, ns);
    if (rc != want) {
        fprintf(stderr, "resize(%zu: %zu -> %zu) = %s, want %s\n", off, old, ns,
                shmi_strerror(rc), shmi_strerror(want));
        fails++;
        return;
    }
    if (rc == SHMI_OK) {
        bits_put(m, off, r16(old), 0);
        bits_put(m, off, r16(ns), 1);
        m->used = m->used - r16(old) + r16(ns);
        m->size[i] = ns;
    }
}

static void rand_free(shmi_alloc_t *a, struct model *m, uint64_t *s)
{
    size_t i = rnd(s) % m->n, off = m->off[i], size = m->size[i];
    struct shmi_block_info b = find(a, off + rnd(s) % size);
    CHECK(b.live && b.off == off && b.size == size && b.tag == off * 3 + 1);
    if (size > 16)
        CHECK_RC(shmi_alloc_free(a, off + 16), SHMI_EINVAL);
    CHECK_RC(shmi_alloc_free(a, off), SHMI_OK);
    CHECK_RC(shmi_alloc_free(a, off), SHMI_EINVAL);
    bits_put(m, off, r16(size), 0);
    m->used -= r16(size);
    m->off[i] = m->off[--m->n];
    m->size[i] = m->size[m->n];
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

struct live_walk { const size_t *sorted; size_t i, n; int bad; };

static int live_cb(const struct shmi_block_info *b, void *arg)
{
    struct live_walk *w = arg;
    if (b->live && (w->i >= w->n || w->sorted[w->i++] != b->off))
        w->bad = 1;
    return w->bad;
}

/* The allocator's live blocks, in address order, are exactly the model's. */
static void full_compare(const shmi_alloc_t *a, const struct model *m)
{
    size_t *sorted = malloc((m->n + 1) * sizeof *sorted);
    memcpy(sorted, m->off, m->n * sizeof *sorted);
    qsort(sorted, m->n, sizeof *sorted, cmp_size);
    struct live_walk w = { sorted, 0, m->n, 0 };
    shmi_alloc_foreach(a, live_cb, &w);
    if (w.bad || w.i != m->n) {
        fprintf(stderr, "live blocks differ from the model (%zu of %zu matched)\n", w.i, m->n);
        fails++;
    }
    free(sorted);
    CHECK_OK(a);
}

static void test_random(uint64_t seed, int ops)
{
    struct model m = { .heap = 16 * MiB };
    m.off = malloc(16 * MiB / 16 * sizeof *m.off);
    m.size = malloc(16 * MiB / 16 * sizeof *m.size);
    m.bits = calloc(16 * MiB / 16 / 64, sizeof *m.bits);
    shmi_alloc_t *a = make(m.heap);
    uint64_t s = seed;
    int spurious = 0, start = fails;
    size_t max_live = 0, enomem = 0;
    double t0 = shmi_clock_s();
    for (int op = 0; op < ops && fails - start < 10; op++) {
        /* Phases steer the fill level to 30%, 70%, then past 100%:
         * roomy, fragmented and exhausted heaps all get their turn. */
        static const size_t pct[3] = { 30, 70, 110 };
        size_t target = m.heap / 100 * pct[(op / 10000) % 3];
        uint64_t p_alloc = m.used < target ? 65 : 35, k = rnd(&s) % 100;
        if (m.n == 0 || k < p_alloc)
            enomem += rand_alloc(a, &m, &s, &spurious);
        else if (k < p_alloc + 15)
            rand_resize(a, &m, &s);
        else
            rand_free(a, &m, &s);
        struct shmi_alloc_stats st = stats(a);
        if (st.used != m.used || st.live_blocks != m.n) {
            fprintf(stderr, "seed %llu op %d: used %zu live %zu, model %zu %zu\n",
                    (unsigned long long)seed, op, st.used, st.live_blocks, m.used, m.n);
            fails++;
        }
        max_live = m.n > max_live ? m.n : max_live;
        if (op % 2000 == 0)
            full_compare(a, &m);
    }
    full_compare(a, &m);
    struct shmi_alloc_stats st = stats(a);
    printf("random seed %llu: %d ops in %.2f s, max %zu live, peak %zu of %zu KiB, "
           "%llu allocs, %zu ENOMEM (%d past the slow-path bounds though a range fit)\n",
           (unsigned long long)seed, ops, shmi_clock_s() - t0, max_live, st.peak_used / KiB,
           m.heap / KiB, (unsigned long long)st.allocs, enomem, spurious);
    shmi_alloc_destroy(a);
    free(m.off);
    free(m.size);
    free(m.bits);
}

/* ---- determinism ------------------------------------------------------- */

/* Two allocators with metadata at different addresses, fed the same calls,
 * must agree on every result. */
static void test_determinism(void)
{
    void *noise = malloc(12345);
    shmi_alloc_t *a = make(256 * MiB);
    void *noise2 = malloc(777);
    shmi_alloc_t *b = make(256 * MiB);
    size_t live[4096], n = 0;
    uint64_t s = 7, h = 1469598103934665603ull;
    enum { OPS = LONG_RUNS ? 100000 : 10000 };
    for (int op = 0; op < OPS; op++) {
        uint64_t k = rnd(&s) % 100;
        size_t oa = 1, ob = 2;
        if (n == 0 || (k < 55 && n < 4096)) {
            size_t size = rand_size(&s), align = rand_align(&s);
            int ra = shmi_alloc_alloc(a, size, align, &oa);
            int rb = shmi_alloc_alloc(b, size, align, &ob);
            CHECK(ra == rb && (ra || oa == ob));
            if (!ra)
                live[n++] = oa;
            h = (h ^ (ra ? 0 : oa)) * 1099511628211ull;
        } else {
            size_t i = rnd(&s) % n, ns = rand_size(&s);
            if (k < 70) {
                CHECK(shmi_alloc_resize(a, live[i], ns) == shmi_alloc_resize(b, live[i], ns));
            } else {
                CHECK(!shmi_alloc_free(a, live[i]) && !shmi_alloc_free(b, live[i]));
                live[i] = live[--n];
            }
        }
    }
    struct snap sa = snap_take(a);
    CHECK(same(b, &sa));
    printf("determinism: %d ops agree, offset hash %016llx\n", (int)OPS, (unsigned long long)h);
    shmi_alloc_destroy(a);
    shmi_alloc_destroy(b);
    free(noise);
    free(noise2);
}

/* ---- scaling ------------------------------------------------------------ */

/* Keep n blocks live in a 64 GiB heap, every other one freed first so the
 * free lists are fragmented; then time free+alloc pairs and finds. */
static void scale(size_t n, int iters, double *total)
{
    shmi_alloc_t *a = make(64 * GiB);
    size_t *live = malloc(n * sizeof *live), end = 0;
    uint64_t s = n;
    for (size_t i = 0; i < n; i++) {
        live[i] = GET(a, 16 + rnd(&s) % 4096, 16);
        end = live[i] > end ? live[i] : end;
    }
    for (size_t i = 0; i < n; i += 2)
        CHECK_RC(shmi_alloc_free(a, live[i]), SHMI_OK);
    for (size_t i = 0; i < n; i += 2)
        live[i] = GET(a, 16 + rnd(&s) % 4096, 16 << (rnd(&s) % 4));
    double t0 = shmi_clock_s();
    for (int k = 0; k < iters; k++) {
        size_t i = rnd(&s) % n;
        CHECK_RC(shmi_alloc_free(a, live[i]), SHMI_OK);
        live[i] = GET(a, 16 + rnd(&s) % 4096, 16 << (rnd(&s) % 4));
    }
    double t1 = shmi_clock_s();
    size_t sum = 0;
    for (int k = 0; k < iters; k++)
        sum += find(a, rnd(&s) % (end + 1)).span;
    double t2 = shmi_clock_s();
    CHECK_OK(a);
    double t3 = shmi_clock_s();
    CHECK(sum > 0);
    printf("scale: %6zu live, %5zu free ranges: free+alloc %6.0f ns/pair, find %5.0f ns, "
           "check %.2f ms\n", n, stats(a).free_ranges, (t1 - t0) * 1e9 / iters,
           (t2 - t1) * 1e9 / iters, (t3 - t2) * 1e3);
    *total += t3 - t0;
    shmi_alloc_destroy(a);
    free(live);
}

static void test_scale(void)
{
    double total = 0, t0 = shmi_clock_s();
    if (!LONG_RUNS) {
        scale(10, 2000, &total);
        scale(1000, 2000, &total);
        printf("scale: 10^5 blocks and the time bound skipped (expensive assertions on)\n");
        return;
    }
    scale(10, 200000, &total);
    scale(1000, 200000, &total);
    scale(100000, 200000, &total);
    double all = shmi_clock_s() - t0;
    if (all > 10.0) {
        fprintf(stderr, "scaling run took %.1f s (bound 10 s): not O(log n)?\n", all);
        fails++;
    }
}

int main(int argc, char **argv)
{
    int ops = argc > 1 ? atoi(argv[1]) : LONG_RUNS ? 200000 : 30000;
    test_basic();
    test_align();
    test_exhaust();
    test_invalid();
    test_resize();
    test_find();
    test_64g();
    test_determinism();
    for (uint64_t seed = 1; seed <= 4 && !fails; seed++)
        test_random(seed, ops);
    test_scale();
    if (fails) {
        fprintf(stderr, "alloc_test: %d check(s) failed\n", fails);
        return 1;
    }
    printf("alloc_test: all passed\n");
    return 0;
}
