/* mem.c - the collective allocation calls on the symmetric heap.
 *
 * Every PE runs the same deterministic allocator (heap/alloc.c) on its own
 * metadata, so the same calls give the same offsets, hence the same address
 * (the heap is at one base on every PE).  Each call's arguments and result
 * are compared across PEs in its barrier (shmi_barrier_checked): a PE that
 * asks for another size, frees another pointer, or is in another collective
 * stops the job with a message naming both calls.
 *
 * Barriers as the spec says: malloc/calloc/align/malloc_with_hints end with
 * one, free starts with one, realloc has both; size 0 returns NULL and
 * free(NULL) returns at once, without a barrier.
 *
 * calloc: pages never handed out are still the memfd's fresh zero pages, so
 * only the part of a block below the high-water mark (zero_hwm) is cleared. */
#include "api/state.h"
#include "util/err.h"

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <string.h>

static void bump_hwm(size_t off, size_t size)
{
    if (off + size > shmi_g.zero_hwm) shmi_g.zero_hwm = off + size;
}

static void report_oom(const char *fn, size_t size)
{
    if (shmi_g.me != 0) return; /* the same on every PE: say it once */
    if (size > ((size_t)1 << 47)) {
        char a[32];
        shmi_log_warn("%s(%zu): %s is more than a process can address: a negative size "
                      "converted to size_t? returning NULL", fn, size,
                      shmi_fmt_size(size, a, sizeof a));
        return;
    }
    struct shmi_alloc_stats st;
    shmi_alloc_stats(shmi_g.alloc, &st);
    char a[32], b[32], c[32], d[32], e[32];
    size_t want = st.used + size, suggest = (size_t)1 << 30;
    while (suggest < want + want / 4 && suggest < ((size_t)1 << 62)) suggest <<= 1;
    shmi_log_warn("%s: symmetric heap full on every PE: need %s, %s free (largest free "
                  "block %s) of %s, %s used; returning NULL. Set SHMEM_SYMMETRIC_SIZE=%zuG "
                  "or larger", fn, shmi_fmt_size(size, a, sizeof a),
                  shmi_fmt_size(st.free, b, sizeof b), shmi_fmt_size(st.largest_free, c, sizeof c),
                  shmi_fmt_size(st.size, d, sizeof d), shmi_fmt_size(st.used, e, sizeof e),
                  suggest >> 30);
}

/* Allocate locally, then the checked barrier; NULL on every PE when full. */
static void *sym_alloc(const char *fn, enum shmi_coll_op op, size_t size, size_t align,
                       uint64_t a0, uint64_t a1, int zero)
{
    size_t off = 0;
    int rc = shmi_alloc_alloc(shmi_g.alloc, size, align, &off);
    if (rc == SHMI_OK) {
        if (zero && off < shmi_g.zero_hwm) {
            size_t dirty = shmi_g.zero_hwm - off;
            memset(shmi_g.user_base + off, 0, dirty < size ? dirty : size);
        }
        bump_hwm(off, size);
    }
    shmi_barrier_checked(fn, op, a0, a1, rc == SHMI_OK ? off : UINT64_MAX);
    if (rc != SHMI_OK) {
        report_oom(fn, size);
        return NULL;
    }
    return shmi_g.user_base + off;
}

void *shmem_malloc(size_t size)
{
    shmi_check_running("shmem_malloc");
    if (size == 0) return NULL;
    return sym_alloc("shmem_malloc", SHMI_OP_MALLOC, size, SHMI_ALLOC_MIN_ALIGN, size, 0, 0);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    shmi_check_running("shmem_malloc_with_hints");
    if (size == 0) return NULL;
    /* Hints are advice; with load/store on one node all memory suits atomics and
     * signals equally, so every hint gives the same kind of block. */
    return sym_alloc("shmem_malloc_with_hints", SHMI_OP_HINTS, size, SHMI_ALLOC_MIN_ALIGN, size,
                     (uint64_t)hints, 0);
}

void *shmem_calloc(size_t count, size_t size)
{
    shmi_check_running("shmem_calloc");
    if (count == 0 || size == 0) return NULL;
    if (count > SIZE_MAX / size) {
        /* Same on every PE, so every PE returns NULL without a barrier. */
        if (shmi_g.me == 0)
            shmi_log_warn("shmem_calloc(%zu, %zu): count * size overflows size_t; "
                          "returning NULL", count, size);
        return NULL;
    }
    return sym_alloc("shmem_calloc", SHMI_OP_CALLOC, count * size, SHMI_ALLOC_MIN_ALIGN, count, size, 1);
}

void *shmem_align(size_t alignment, size_t size)
{
    shmi_check_running("shmem_align");
    if (alignment == 0 || (alignment & (alignment - 1)))
        shmi_fatal("shmem_align(%zu, %zu): alignment %zu is not a power of two: use e.g. "
                   "64, 4096 or 2097152", alignment, size, alignment);
    if (alignment > SHMI_HEAP_BASE_ALIGN)
        shmi_fatal("shmem_align(%zu, %zu): alignments above %zu (1 GiB) are not supported",
                   alignment, size, SHMI_HEAP_BASE_ALIGN);
    if (size == 0) return NULL;
    return sym_alloc("shmem_align", SHMI_OP_ALIGN, size, alignment, alignment, size, 0);
}

/* Offset of the live block that starts at ptr, or a fatal message saying what
 * ptr is instead. */
static size_t live_block(const char *fn, const void *ptr)
{
    uintptr_t x = (uintptr_t)ptr, base = (uintptr_t)shmi_g.user_base;
    struct shmi_block_info bi;
    if (x - base >= shmi_g.user_size) {
        if (shmi_tp_seg_of(&shmi_g.tp, ptr, 0) == 1)
            shmi_fatal("%s(%p): that is a global or static variable, not memory from "
                       "shmem_malloc: only heap blocks can be freed or reallocated", fn, ptr);
        shmi_fatal("%s(%p): not an address in the symmetric heap [%p, %p): pass a pointer "
                   "returned by shmem_malloc/calloc/align/realloc (memory from malloc or the "
                   "stack cannot be freed here)", fn, ptr, (void *)shmi_g.user_base,
                   (void *)(shmi_g.user_base + shmi_g.user_size));
    }
    size_t off = x - base;
    if (shmi_alloc_find(shmi_g.alloc, off, &bi) != SHMI_OK)
        shmi_fatal("%s(%p): heap metadata lookup failed", fn, ptr);
    if (bi.live && bi.off == off) return off;
    if (bi.live)
        shmi_fatal("%s(%p): points %zu bytes into the block at %p (%zu bytes): pass the "
                   "block's start address", fn, ptr, off - bi.off,
                   (void *)(shmi_g.user_base + bi.off), bi.size);
    shmi_fatal("%s(%p): no live block starts there: it was already freed (double free?) or "
               "never allocated", fn, ptr);
}

void shmem_free(void *ptr)
{
    shmi_check_running("shmem_free");
    if (!ptr) return;
    size_t off = live_block("shmem_free", ptr);
    shmi_barrier_checked("shmem_free", SHMI_OP_FREE, off, 0, 0);
    shmi_alloc_free(shmi_g.alloc, off);
}

void *shmem_realloc(void *ptr, size_t size)
{
    shmi_check_running("shmem_realloc");
    if (!ptr) return shmem_malloc(size);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    size_t off = live_block("shmem_realloc", ptr), newoff = off;
    struct shmi_block_info bi;
    shmi_alloc_find(shmi_g.alloc, off, &bi);
    shmi_barrier_checked("shmem_realloc", SHMI_OP_REALLOC, off, size, 0);
    int rc = shmi_alloc_resize(shmi_g.alloc, off, size);
    if (rc == SHMI_EAGAIN && (rc = shmi_alloc_alloc(shmi_g.alloc, size, SHMI_ALLOC_MIN_ALIGN, &newoff)) == SHMI_OK) {
        memcpy(shmi_g.user_base + newoff, ptr, bi.size < size ? bi.size : size);
        shmi_alloc_free(shmi_g.alloc, off);
    }
    if (rc == SHMI_OK) bump_hwm(newoff, size);
    shmi_barrier();
    if (rc != SHMI_OK) {
        report_oom("shmem_realloc", size);
        return NULL; /* the old block is untouched, on every PE */
    }
    return shmi_g.user_base + newoff;
}

void *shmem_ptr(const void *dest, int pe)
{
    shmi_check_pe("shmem_ptr", pe);
    return shmi_sym("shmem_ptr", "dest", dest, 0, pe);
}

int shmem_addr_accessible(const void *addr, int pe)
{
    shmi_check_running("shmem_addr_accessible");
    return (unsigned)pe < (unsigned)shmi_g.npes && shmi_tp_seg_of(&shmi_g.tp, addr, 0) >= 0;
}

int shmemx_heap_info(shmemx_heap_info_t *info)
{
    if (shmi_g.phase != SHMI_RUNNING || !info) return -1;
    struct shmi_alloc_stats st;
    shmi_alloc_stats(shmi_g.alloc, &st);
    *info = (shmemx_heap_info_t){ shmi_g.user_base, st.size, st.used, st.free,
                                  st.largest_free, st.peak_used, st.live_blocks };
    return 0;
}
