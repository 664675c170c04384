/* alloc.h - the deterministic symmetric-heap allocator (no OS, no transport).
 *
 * Manages offsets inside one address range [0, size).  It never touches the
 * memory it manages: all metadata lives in ordinary private malloc'd memory,
 * so a user's buffer overflow cannot corrupt it and the allocator can be unit
 * tested on a range that is not even mapped.
 *
 * Determinism: every PE runs its own copy; the same sequence of calls with the
 * same arguments gives the same offsets on every PE.  Results depend only on
 * the call sequence, never on addresses of the metadata, time, or hashing of
 * pointers.
 *
 * Cost: alloc, free, resize and find are O(log n) or better in the number of
 * blocks (TLSF-style segregated fit + an address-ordered index); free blocks
 * are coalesced with both neighbours at once, so no two free blocks are
 * adjacent.  Fragmentation is bounded by good-fit size classes.
 *
 * Not thread safe: the caller (collective allocation calls) serializes. */
#ifndef SHMI_ALLOC_H
#define SHMI_ALLOC_H

#include <stddef.h>
#include <stdint.h>

typedef struct shmi_alloc_s shmi_alloc_t;

#define SHMI_ALLOC_MIN_ALIGN 16 /* every block starts at a multiple of this */

struct shmi_block_info {
    size_t off;     /* start of the block (what alloc returned) */
    size_t size;    /* size the user asked for (0 for free ranges) */
    size_t span;    /* bytes the block really covers, >= size, incl. padding */
    int live;       /* 1 allocated, 0 free range */
    uint64_t tag;   /* caller's tag (e.g. call site id), 0 by default */
    uint64_t seq;   /* allocation sequence number (1, 2, ...) of this block */
};

struct shmi_alloc_stats {
    size_t size;          /* managed bytes */
    size_t used;          /* sum of spans of live blocks */
    size_t free;          /* size - used */
    size_t largest_free;  /* biggest single free range */
    size_t peak_used;     /* max of used over time */
    size_t live_blocks;
    size_t free_ranges;
    uint64_t allocs, frees;
};

/* Manage [0, size). size > 0.  Returns 0, SHMI_EINVAL or SHMI_ENOMEM (metadata). */
int shmi_alloc_create(shmi_alloc_t **a, size_t size);
void shmi_alloc_destroy(shmi_alloc_t *a);

/* Allocate size bytes (size > 0) aligned to align (power of two; values below
 * SHMI_ALLOC_MIN_ALIGN are raised to it).  *off gets the offset.
 * SHMI_ENOMEM when no free range fits (state unchanged), SHMI_EINVAL for
 * size 0 / bad align. */
int shmi_alloc_alloc(shmi_alloc_t *a, size_t size, size_t align, size_t *off);

/* Free the live block that starts at off.  SHMI_EINVAL when off is not the
 * start of a live block (double free, interior pointer, never allocated):
 * state unchanged; use shmi_alloc_find to say which. */
int shmi_alloc_free(shmi_alloc_t *a, size_t off);

/* Change the live block at off to newsize (> 0) without moving it: shrink, or
 * grow into the free range right after it.  0 on success; SHMI_EAGAIN when it
 * cannot grow in place (state unchanged: the caller allocates, copies, frees);
 * SHMI_EINVAL when off is not a live block start. */
int shmi_alloc_resize(shmi_alloc_t *a, size_t off, size_t newsize);

/* Block (live) or free range containing offset off; SHMI_ERANGE if off >= size.
 * For free ranges, info->seq/tag describe the last live block that started
 * exactly at info->off if known, else 0. */
int shmi_alloc_find(const shmi_alloc_t *a, size_t off, struct shmi_block_info *info);

/* Tag of the live block at off (e.g. a call-site id for reports). */
int shmi_alloc_set_tag(shmi_alloc_t *a, size_t off, uint64_t tag);

void shmi_alloc_stats(const shmi_alloc_t *a, struct shmi_alloc_stats *st);

/* Visit every block and free range in address order; stop when fn returns
 * non-zero (that value is returned). */
int shmi_alloc_foreach(const shmi_alloc_t *a,
                       int (*fn)(const struct shmi_block_info *b, void *arg), void *arg);

/* Check every internal invariant, walking all blocks and free lists: 0, or
 * SHMI_ECORRUPT with the broken one logged.  Tests call it; builds with
 * expensive assertions (util/assert.h) run it after every operation. */
int shmi_alloc_check(const shmi_alloc_t *a);

#endif
