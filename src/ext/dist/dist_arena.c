/* dist_arena.c - global pointers and the affinity arena (brief §4.4.1: keep
 * data on the PE that uses it most).
 *
 * The brief allocates under `if (my_pe == 0)`, which cannot work: symmetric
 * allocation is collective (same address on every PE), and symheap stops
 * the job when one PE allocates alone.  The arena separates the two needs:
 * one collective shmem_malloc reserves bytes_per_pe on every PE; after that
 * any PE allocates a block in ANY PE's part without a collective call, and
 * gets a global pointer (pe, symmetric address) that every PE can use with
 * get/put/atomics or shmem_ptr.
 *
 * Each part is managed in place, in the part itself: a 64-byte header (lock,
 * address-ordered free list head, counters) then blocks with a 16-byte
 * header (size, and the next free block's offset or a "used" tag).  All
 * links are offsets from the part's start, so every PE can follow them
 * through its own mapping of the part.  The lock is a compare-and-swap
 * spinlock in the part's header, so alloc/free from several PEs and threads
 * at once are safe.  A part on this node (shmem_ptr) is walked with loads and
 * stores and locked with CPU atomics on the shared line, as amo.c does; a
 * part on another node is walked with gets and puts (the header's words in
 * one, a block's header in one) and locked with the transport's
 * compare-and-swap (atomic with the CPU atomics there), and
 * its puts are ordered (shmem_fence) before the atomic that releases the
 * lock.  Cost across nodes: a round trip for the lock, one for the header,
 * one per free block walked (a 16-byte get each), one for the release.
 * First fit, split, coalesce on free: O(free blocks), fine for placement
 * decisions (not a general-purpose malloc). */
#include "ext/dist/dist_impl.h"
#include "core/state.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define HDR 64
#define BHDR 16
#define MIN_BLOCK 32
#define USED_TAG 0x5553454455534544ull /* "USEDUSED", xor-ed with the offset */

struct part_hdr {
    uint64_t lock;      /* 0 free, else the holder's PE + 1 */
    uint64_t free_head; /* offset of the first free block, 0: none */
    uint64_t used, blocks, size;
};
struct blk {
    uint64_t size;      /* bytes, header included, multiple of 16 */
    uint64_t next;      /* free: next free block's offset (0: none); used: USED_TAG ^ offset */
};

/* Offsets of the metadata words in a part: every access names a word by its
 * offset, so one walk serves a mapped part and a remote one. */
#define H_LOCK 0
#define H_FREE 8
#define H_USED 16
#define B_NEXT(off) ((off) + 8)

struct shmemx_arena_s {
    char *base;         /* symmetric */
    size_t size;        /* bytes of each part */
};

/* PE pe's part as reached from here: map is its load/store mapping (same
 * node), or NULL, and then the metadata goes through the transport (gets
 * and puts; the lock through remote atomics). */
struct part {
    shmemx_arena_t a;
    int pe;
    char *map;
};

static struct part part_of(const char *fn, shmemx_arena_t a, int pe)
{
    shmi_check_pe(fn, pe);
    if (!a) shmi_fatal("%s: arena is NULL: pass the handle shmemx_arena_create returned", fn);
    return (struct part){ a, pe, shmem_ptr(a->base, pe) };
}

static uint64_t *word(const struct part *pt, uint64_t off)
{
    return (uint64_t *)((pt->map ? pt->map : pt->a->base) + off);
}

/* n consecutive metadata words at off: a copy through the mapping, or one
 * get/put (a block header, the header's counters: one transfer each). */
static void rdn(const struct part *pt, uint64_t off, uint64_t *w, size_t n)
{
    if (pt->map) memcpy(w, word(pt, off), n * sizeof *w);
    else shmem_getmem(w, word(pt, off), n * sizeof *w, pt->pe);
}

static void wrn(const struct part *pt, uint64_t off, const uint64_t *w, size_t n)
{
    if (pt->map) memcpy(word(pt, off), w, n * sizeof *w);
    else shmem_putmem(word(pt, off), w, n * sizeof *w, pt->pe);
}

static void wr(const struct part *pt, uint64_t off, uint64_t v) { wrn(pt, off, &v, 1); }

/* The part's lock: a compare-and-swap spinlock in its header.  Mapped: CPU
 * atomics on the shared line; remote: the transport's atomics, which are
 * atomic with the CPU atomics of the target's node (amo.c). */
static void lock(const struct part *pt)
{
    uint64_t me = (uint64_t)shmi_g.me + 1;
    uint64_t *l = (uint64_t *)(pt->a->base + H_LOCK);
    for (unsigned spins = 0;; spins++) {
        if (pt->map) {
            uint64_t z = 0, *h = word(pt, H_LOCK);
            if (__atomic_load_n(h, __ATOMIC_RELAXED) == 0 &&
                __atomic_compare_exchange_n(h, &z, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
                return;
        } else if (shmem_uint64_atomic_compare_swap(l, 0, me, pt->pe) == 0) {
            return;
        }
        if (spins > 32) sched_yield();
    }
}

static void unlock(const struct part *pt)
{
    if (pt->map) {
        __atomic_store_n(word(pt, H_LOCK), 0, __ATOMIC_RELEASE);
        return;
    }
    shmem_fence(); /* our puts to the metadata land before the lock is free */
    shmem_uint64_atomic_set((uint64_t *)(pt->a->base + H_LOCK), 0, pt->pe);
}

shmemx_arena_t shmemx_arena_create(size_t bytes_per_pe)
{
    static const char fn[] = "shmemx_arena_create";
    shmi_check_running(fn);
    if (bytes_per_pe > SIZE_MAX / 2)
        shmi_fatal("%s: bytes_per_pe=%zu is too large: a negative size converted to size_t?", fn,
                   bytes_per_pe);
    size_t size = HDR + (bytes_per_pe + BHDR + 15) / 16 * 16; /* room for one block's header */
    struct shmemx_arena_s *a = calloc(1, sizeof *a);
    if (!a) shmi_fatal("%s: out of private memory", fn);
    a->size = size;
    a->base = shmem_align(64, size);
    if (!a->base) {
        free(a);
        return NULL;
    }
    struct part_hdr *h = (struct part_hdr *)a->base;
    *h = (struct part_hdr){ 0, size - HDR >= MIN_BLOCK ? HDR : 0, 0, 0, size };
    if (h->free_head) *(struct blk *)(a->base + HDR) = (struct blk){ size - HDR, 0 };
    shmem_barrier_all(); /* every part is ready before anyone allocates in it */
    return a;
}

void shmemx_arena_destroy(shmemx_arena_t a)
{
    shmi_check_running("shmemx_arena_destroy");
    if (!a) return;
    shmem_free(a->base); /* starts with a barrier */
    free(a);
}

/* Header words: lock, free_head, used, blocks, size; a block's: size, next.
 * Each word is written at most once per call (puts to one PE are not ordered
 * with each other before the fence in unlock). */
enum { HW = 5 };

shmemx_gptr_t shmemx_arena_alloc(shmemx_arena_t a, size_t size, int pe)
{
    struct part pt = part_of("shmemx_arena_alloc", a, pe);
    if (size > a->size) return SHMEMX_GPTR_NULL;
    uint64_t need = (size + BHDR + 15) / 16 * 16, h[HW], b[2];
    if (need < MIN_BLOCK) need = MIN_BLOCK;
    lock(&pt);
    rdn(&pt, 0, h, HW);
    uint64_t link = H_FREE, off = h[1]; /* link: offset of the word that points at off */
    for (; off; link = B_NEXT(off), off = b[1]) {
        rdn(&pt, off, b, 2);
        if (b[0] < need) continue;
        if (b[0] - need >= MIN_BLOCK) { /* split: the tail stays free */
            uint64_t tail[2] = { b[0] - need, b[1] };
            wrn(&pt, off + need, tail, 2);
            wr(&pt, link, off + need);
            b[0] = need;
        } else {
            wr(&pt, link, b[1]);
        }
        uint64_t used[2] = { b[0], USED_TAG ^ off }, count[2] = { h[2] + b[0], h[3] + 1 };
        wrn(&pt, off, used, 2);
        wrn(&pt, H_USED, count, 2);
        break;
    }
    unlock(&pt);
    return off ? shmemx_gptr_make(a->base + off + BHDR, pe) : SHMEMX_GPTR_NULL;
}

void shmemx_arena_free(shmemx_arena_t a, shmemx_gptr_t g)
{
    static const char fn[] = "shmemx_arena_free";
    if (g == SHMEMX_GPTR_NULL) {
        shmi_check_running(fn);
        return;
    }
    int pe = shmemx_gptr_pe(g);
    if (pe < 0 || pe >= shmi_g.npes)
        shmi_fatal("%s: global pointer 0x%llx names PE %d, not one of 0..%d: pass a pointer "
                   "shmemx_arena_alloc returned", fn, (unsigned long long)g, pe, shmi_g.npes - 1);
    struct part pt = part_of(fn, a, pe);
    uintptr_t addr = (uintptr_t)shmemx_gptr_addr(g), base = (uintptr_t)a->base;
    uint64_t off = addr - BHDR - base, b[2] = { 0, 0 }, h[HW], pb[2] = { 0, 0 };
    lock(&pt);
    int live = addr >= base + HDR + BHDR && off < a->size && off % 16 == 0;
    if (live) rdn(&pt, off, b, 2);
    if (!live || b[1] != (USED_TAG ^ off)) {
        unlock(&pt);
        shmi_fatal("%s: %p on PE %d is not a live block of this arena [%p, %p): freed twice, "
                   "or from another arena or allocator", fn, (void *)addr, pe, (void *)a->base,
                   (void *)(a->base + a->size));
    }
    rdn(&pt, 0, h, HW);
    uint64_t count[2] = { h[2] - b[0], h[3] - 1 };
    wrn(&pt, H_USED, count, 2);
    uint64_t prev = 0, link = H_FREE, next = h[1]; /* address order: find the neighbours */
    while (next && next < off) {
        rdn(&pt, next, pb, 2);
        prev = next;
        link = B_NEXT(prev);
        next = pb[1];
    }
    uint64_t me[2] = { b[0], next }; /* also marks it free: a second free is caught */
    if (next && off + b[0] == next) { /* merge with the next free block */
        uint64_t nb[2];
        rdn(&pt, next, nb, 2);
        me[0] += nb[0];
        me[1] = nb[1];
    }
    wrn(&pt, off, me, 2);
    if (prev && prev + pb[0] == off) { /* merge into the previous one */
        uint64_t merged[2] = { pb[0] + me[0], me[1] };
        wrn(&pt, prev, merged, 2);
    } else {
        wr(&pt, link, off);
    }
    unlock(&pt);
}

void shmemx_arena_stats(shmemx_arena_t a, int pe, shmemx_arena_stats_t *st)
{
    struct part pt = part_of("shmemx_arena_stats", a, pe);
    shmemx_arena_stats_t s = { a->size - HDR, 0, 0, 0, 0 };
    uint64_t h[HW], b[2];
    lock(&pt);
    rdn(&pt, 0, h, HW);
    s.used = h[2];
    s.blocks = h[3];
    for (uint64_t off = h[1]; off; off = b[1]) {
        rdn(&pt, off, b, 2);
        s.free += b[0];
        if (b[0] - BHDR > s.largest_free) s.largest_free = b[0] - BHDR;
    }
    unlock(&pt);
    if (st) *st = s;
}

void *shmemx_gptr_local(shmemx_gptr_t g)
{
    if (g == SHMEMX_GPTR_NULL) return NULL;
    return shmem_ptr(shmemx_gptr_addr(g), shmemx_gptr_pe(g));
}

void shmemx_gptr_get(void *dest, shmemx_gptr_t src, size_t nbytes)
{
    if (src == SHMEMX_GPTR_NULL && nbytes)
        shmi_fatal("shmemx_gptr_get: src is SHMEMX_GPTR_NULL (%zu bytes): an allocation failed?",
                   nbytes);
    shmem_getmem(dest, shmemx_gptr_addr(src), nbytes, shmemx_gptr_pe(src));
}

void shmemx_gptr_put(shmemx_gptr_t dest, const void *src, size_t nbytes)
{
    if (dest == SHMEMX_GPTR_NULL && nbytes)
        shmi_fatal("shmemx_gptr_put: dest is SHMEMX_GPTR_NULL (%zu bytes): an allocation "
                   "failed?", nbytes);
    shmem_putmem(shmemx_gptr_addr(dest), src, nbytes, shmemx_gptr_pe(dest));
}
