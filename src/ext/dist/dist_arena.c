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
 * part on another node is walked with 8-byte gets and puts and locked with
 * the transport's compare-and-swap (atomic with the CPU atomics there), and
 * its puts are completed (shmem_quiet) before the lock is released.  Cost
 * across nodes: a network round trip per metadata word read, so an alloc
 * or free takes a few round trips per free block walked.
 * First fit, split, coalesce on free: O(free blocks), fine for placement
 * decisions (not a general-purpose malloc). */
#include "ext/dist/dist_impl.h"
#include "core/state.h"

#include <sched.h>
#include <stdlib.h>

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
#define H_BLOCKS 24
#define B_SIZE(off) (off)
#define B_NEXT(off) ((off) + 8)

struct shmemx_arena_s {
    char *base;         /* symmetric */
    size_t size;        /* bytes of each part */
};

/* PE pe's part as reached from here: map is its load/store mapping (same
 * node), or NULL, and then every word goes through the transport (a get or
 * put of 8 bytes; the lock through remote atomics). */
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

static uint64_t rd(const struct part *pt, uint64_t off)
{
    return pt->map ? *word(pt, off) : shmem_uint64_g(word(pt, off), pt->pe);
}

static void wr(const struct part *pt, uint64_t off, uint64_t v)
{
    if (pt->map) *word(pt, off) = v;
    else shmem_uint64_p(word(pt, off), v, pt->pe);
}

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
    shmem_quiet(); /* our puts to the metadata land before the lock is free */
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

shmemx_gptr_t shmemx_arena_alloc(shmemx_arena_t a, size_t size, int pe)
{
    struct part pt = part_of("shmemx_arena_alloc", a, pe);
    if (size > a->size) return SHMEMX_GPTR_NULL;
    uint64_t need = (size + BHDR + 15) / 16 * 16;
    if (need < MIN_BLOCK) need = MIN_BLOCK;
    lock(&pt);
    uint64_t link = H_FREE, off = 0; /* link: offset of the word that points at off */
    while ((off = rd(&pt, link)) != 0) {
        uint64_t bsize = rd(&pt, B_SIZE(off)), bnext = rd(&pt, B_NEXT(off));
        if (bsize >= need) {
            if (bsize - need >= MIN_BLOCK) { /* split: the tail stays free */
                wr(&pt, B_SIZE(off + need), bsize - need);
                wr(&pt, B_NEXT(off + need), bnext);
                wr(&pt, link, off + need);
                wr(&pt, B_SIZE(off), bsize = need);
            } else {
                wr(&pt, link, bnext);
            }
            wr(&pt, B_NEXT(off), USED_TAG ^ off);
            wr(&pt, H_USED, rd(&pt, H_USED) + bsize);
            wr(&pt, H_BLOCKS, rd(&pt, H_BLOCKS) + 1);
            break;
        }
        link = B_NEXT(off);
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
    uint64_t off = addr - BHDR - base;
    lock(&pt);
    if (addr < base + HDR + BHDR || off >= a->size || off % 16 ||
        rd(&pt, B_NEXT(off)) != (USED_TAG ^ off)) {
        unlock(&pt);
        shmi_fatal("%s: %p on PE %d is not a live block of this arena [%p, %p): freed twice, "
                   "or from another arena or allocator", fn, (void *)addr, pe, (void *)a->base,
                   (void *)(a->base + a->size));
    }
    uint64_t bsize = rd(&pt, B_SIZE(off));
    wr(&pt, H_USED, rd(&pt, H_USED) - bsize);
    wr(&pt, H_BLOCKS, rd(&pt, H_BLOCKS) - 1);
    uint64_t prev = 0, link = H_FREE, cur; /* address order: find the neighbours */
    while ((cur = rd(&pt, link)) != 0 && cur < off) {
        prev = cur;
        link = B_NEXT(prev);
    }
    uint64_t next = cur;
    wr(&pt, link, off);
    if (next && off + bsize == next) { /* merge with the next free block */
        bsize += rd(&pt, B_SIZE(next));
        next = rd(&pt, B_NEXT(next));
        wr(&pt, B_SIZE(off), bsize);
    }
    wr(&pt, B_NEXT(off), next);
    uint64_t psize = prev ? rd(&pt, B_SIZE(prev)) : 0;
    if (prev && prev + psize == off) { /* merge into the previous one */
        wr(&pt, B_SIZE(prev), psize + bsize);
        wr(&pt, B_NEXT(prev), next);
    }
    unlock(&pt);
}

void shmemx_arena_stats(shmemx_arena_t a, int pe, shmemx_arena_stats_t *st)
{
    struct part pt = part_of("shmemx_arena_stats", a, pe);
    shmemx_arena_stats_t s = { a->size - HDR, 0, 0, 0, 0 };
    lock(&pt);
    s.used = rd(&pt, H_USED);
    s.blocks = rd(&pt, H_BLOCKS);
    for (uint64_t off = rd(&pt, H_FREE); off; off = rd(&pt, B_NEXT(off))) {
        uint64_t bsize = rd(&pt, B_SIZE(off)), usable = bsize - BHDR;
        s.free += bsize;
        if (usable > s.largest_free) s.largest_free = usable;
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
