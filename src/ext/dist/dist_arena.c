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
 * spinlock in the part's header (CPU atomics on the shared line, as amo.c
 * does), so alloc/free from several PEs and threads at once are safe.  One
 * node only: the metadata is walked with loads and stores through shmem_ptr.
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

struct shmemx_arena_s {
    char *base;         /* symmetric */
    size_t size;        /* bytes of each part */
};

#define B(part, off) ((struct blk *)((part) + (off)))

static char *part_of(const char *fn, shmemx_arena_t a, int pe)
{
    shmi_check_pe(fn, pe);
    if (!a) shmi_fatal("%s: arena is NULL: pass the handle shmemx_arena_create returned", fn);
    char *p = shmem_ptr(a->base, pe);
    if (!p)
        shmi_fatal("%s: PE %d's part is not load/store accessible from here: the arena needs "
                   "every PE on one node", fn, pe);
    return p;
}

static void lock(struct part_hdr *h)
{
    uint64_t me = (uint64_t)shmi_g.me + 1;
    for (unsigned spins = 0;; spins++) {
        uint64_t z = 0;
        if (__atomic_load_n(&h->lock, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&h->lock, &z, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        if (spins > 32) sched_yield();
    }
}

static void unlock(struct part_hdr *h) { __atomic_store_n(&h->lock, 0, __ATOMIC_RELEASE); }

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
    if (h->free_head) *B(a->base, HDR) = (struct blk){ size - HDR, 0 };
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
    char *p = part_of("shmemx_arena_alloc", a, pe);
    if (size > a->size) return SHMEMX_GPTR_NULL;
    uint64_t need = (size + BHDR + 15) / 16 * 16;
    if (need < MIN_BLOCK) need = MIN_BLOCK;
    struct part_hdr *h = (struct part_hdr *)p;
    lock(h);
    uint64_t *link = &h->free_head, off = 0;
    while ((off = *link) != 0) {
        struct blk *b = B(p, off);
        if (b->size >= need) {
            if (b->size - need >= MIN_BLOCK) { /* split: the tail stays free */
                *B(p, off + need) = (struct blk){ b->size - need, b->next };
                *link = off + need;
                b->size = need;
            } else {
                *link = b->next;
            }
            b->next = USED_TAG ^ off;
            h->used += b->size;
            h->blocks++;
            break;
        }
        link = &b->next;
    }
    unlock(h);
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
    char *p = part_of(fn, a, pe);
    uintptr_t addr = (uintptr_t)shmemx_gptr_addr(g), base = (uintptr_t)a->base;
    uint64_t off = addr - BHDR - base;
    struct part_hdr *h = (struct part_hdr *)p;
    lock(h);
    if (addr < base + HDR + BHDR || off >= a->size || off % 16 ||
        B(p, off)->next != (USED_TAG ^ off)) {
        unlock(h);
        shmi_fatal("%s: %p on PE %d is not a live block of this arena [%p, %p): freed twice, "
                   "or from another arena or allocator", fn, (void *)addr, pe, (void *)a->base,
                   (void *)(a->base + a->size));
    }
    struct blk *b = B(p, off);
    h->used -= b->size;
    h->blocks--;
    uint64_t prev = 0, *link = &h->free_head; /* address order: find the neighbours */
    while (*link && *link < off) {
        prev = *link;
        link = &B(p, prev)->next;
    }
    b->next = *link;
    *link = off;
    if (b->next && off + b->size == b->next) { /* merge with the next free block */
        b->size += B(p, b->next)->size;
        b->next = B(p, b->next)->next;
    }
    if (prev && prev + B(p, prev)->size == off) { /* merge into the previous one */
        B(p, prev)->size += b->size;
        B(p, prev)->next = b->next;
    }
    unlock(h);
}

void shmemx_arena_stats(shmemx_arena_t a, int pe, shmemx_arena_stats_t *st)
{
    char *p = part_of("shmemx_arena_stats", a, pe);
    struct part_hdr *h = (struct part_hdr *)p;
    shmemx_arena_stats_t s = { a->size - HDR, 0, 0, 0, 0 };
    lock(h);
    s.used = h->used;
    s.blocks = h->blocks;
    for (uint64_t off = h->free_head; off; off = B(p, off)->next) {
        uint64_t usable = B(p, off)->size - BHDR;
        s.free += B(p, off)->size;
        if (usable > s.largest_free) s.largest_free = usable;
    }
    unlock(h);
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
