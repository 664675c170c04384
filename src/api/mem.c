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
 * Debugging (debug.h): each block is [front guard][user bytes][back guard],
 * its tag holds the allocating call site.  Guards are checked at free,
 * realloc, finalize and shmemx_heap_check.  With SHMEM_CHECKS=full, freed
 * blocks are poisoned and kept in a quarantine (FIFO) before their memory is
 * reused; the poison is verified when they leave it: a write after free is
 * reported with the block's size and call site.  The quarantine is the same
 * on every PE (same calls), so allocation stays deterministic.
 *
 * calloc: pages never handed out are still the memfd's fresh zero pages, so
 * only the part of a block below the high-water mark (zero_hwm) is cleared. */
#include "debug/debug.h"
#include "debug/report.h"
#include "core/state.h"
#include "core/mem_device.h" /* GPU heap dispatch (issue 7) */
#include "util/err.h"
#include "util/num.h"

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

/* ---- Allocation ---------------------------------------------------------- */

/* Carve a block with guards; 0 and *ub filled, or SHMI_ENOMEM. */
static int carve(const char *fn, size_t size, size_t align, uint32_t site, int zero,
                 struct shmi_ublock *ub)
{
    size_t front = shmi_guard_front(align), back = shmi_guard_back(), off;
    if (size > SIZE_MAX - front - back) return SHMI_ENOMEM;
    size_t total = front + size + back;
    int rc = shmi_alloc_alloc(shmi_g.alloc, total, align, &off);
    if (rc == SHMI_ENOMEM && shmi_quar_flush(fn))
        rc = shmi_alloc_alloc(shmi_g.alloc, total, align, &off);
    if (rc != SHMI_OK) return rc;
    shmi_alloc_set_tag(shmi_g.alloc, off, shmi_tag_make(site, (uint32_t)front));
    *ub = (struct shmi_ublock){ off, shmi_g.user_base + off + front, size, front, back, site };
    if (zero && off < shmi_g.zero_hwm) {
        size_t dirty = shmi_g.zero_hwm - off;
        memset(shmi_g.user_base + off, 0, dirty < total ? dirty : total);
    }
    bump_hwm(off, total);
    shmi_guard_fill(ub);
    return SHMI_OK;
}

/* Allocate locally, then the checked barrier; NULL on every PE when full. */
static void *sym_alloc(const char *fn, enum shmi_coll_op op, size_t size, size_t align,
                       uint64_t a0, uint64_t a1, int zero, void *caller)
{
    struct shmi_ublock ub;
    shmi_call_site = caller;
    int rc = carve(fn, size, align, shmi_site_intern(caller, fn), zero, &ub);
    shmi_barrier_checked(fn, op, a0, a1, rc == SHMI_OK ? ub.off : UINT64_MAX);
    if (rc != SHMI_OK) {
        report_oom(fn, size);
        return NULL;
    }
    if (shmi_g.env.SELFTEST) shmi_selftest_block(fn, ub.user, ub.size, zero);
    return ub.user;
}

void *shmem_malloc(size_t size)
{
    shmi_check_running("shmem_malloc");
    shmi_report_poll();
    if (size == 0) return NULL;
    if (shmi_gpu_default()) return shmi_gpu_malloc("shmem_malloc", size, 0);
    return sym_alloc("shmem_malloc", SHMI_OP_MALLOC, size, SHMI_ALLOC_MIN_ALIGN, size, 0, 0,
                     SHMI_CALLER());
}

/* Hints are advice (spec): the standard bits, any unknown bit and the GPU
 * bits without a GPU all give the same kind of host block.  A hint word
 * with bits symheap does not know (tests-sos passes ~ATOMICS_REMOTE) is
 * not meant for symheap's GPU bits either: only a word made of known bits
 * may ask for GPU memory. */
#define SHMI_KNOWN_HINTS                                                                   \
    (SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE | SHMEMX_MALLOC_DEVICE |       \
     SHMEMX_MALLOC_DEVICE_AUTO)

void *shmem_malloc_with_hints(size_t size, long hints)
{
    static const char fn[] = "shmem_malloc_with_hints";
    shmi_check_running(fn);
    shmi_report_poll();
    if (size == 0) return NULL;
    if (hints & ~SHMI_KNOWN_HINTS) {
        static int warned;
        if (!warned++) shmi_log_debug("%s: hints=%#lx has bits symheap does not know (%#lx): "
                                      "ignored, host memory", fn, (unsigned long)hints,
                                      (unsigned long)(hints & ~SHMI_KNOWN_HINTS));
    } else if (shmi_gpu_hinted_soft(fn, hints)) {
        return shmi_gpu_malloc(fn, size, hints);
    }
    /* All host memory suits atomics and signals equally (load/store on this
     * node, UCX on the registered heap across nodes), so every standard hint
     * gives the same kind of block. */
    return sym_alloc(fn, SHMI_OP_HINTS, size, SHMI_ALLOC_MIN_ALIGN, size, (uint64_t)hints, 0,
                     SHMI_CALLER());
}

void *shmem_calloc(size_t count, size_t size)
{
    shmi_check_running("shmem_calloc");
    shmi_report_poll();
    if (count == 0 || size == 0) return NULL;
    size_t bytes;
    if (shmi_mul_overflows(count, size, &bytes)) {
        /* Same on every PE, so every PE returns NULL without a barrier. */
        if (shmi_g.me == 0)
            shmi_log_warn("shmem_calloc(%zu, %zu): count * size overflows size_t; "
                          "returning NULL", count, size);
        return NULL;
    }
    if (shmi_gpu_default()) return shmi_gpu_calloc("shmem_calloc", count, size);
    return sym_alloc("shmem_calloc", SHMI_OP_CALLOC, bytes, SHMI_ALLOC_MIN_ALIGN, count, size, 1,
                     SHMI_CALLER());
}

void *shmem_align(size_t alignment, size_t size)
{
    shmi_check_running("shmem_align");
    shmi_report_poll();
    if (alignment == 0 || (alignment & (alignment - 1)))
        shmi_fatal("shmem_align(%zu, %zu): alignment %zu is not a power of two: use e.g. "
                   "64, 4096 or 2097152", alignment, size, alignment);
    if (alignment > SHMI_HEAP_BASE_ALIGN)
        shmi_fatal("shmem_align(%zu, %zu): alignments above %zu (1 GiB) are not supported",
                   alignment, size, SHMI_HEAP_BASE_ALIGN);
    if (size == 0) return NULL;
    if (shmi_gpu_default()) return shmi_gpu_align("shmem_align", alignment, size);
    return sym_alloc("shmem_align", SHMI_OP_ALIGN, size, alignment, alignment, size, 0,
                     SHMI_CALLER());
}

static void live_block(const char *fn, const void *ptr, struct shmi_ublock *ub)
{
    uintptr_t x = (uintptr_t)ptr, base = (uintptr_t)shmi_g.user_base;
    struct shmi_block_info bi;
    char why[256];
    if (x - base >= shmi_g.user_size) {
        if (shmi_tp_seg_of(&shmi_g.tp, ptr, 0) == 1)
            shmi_fatal("%s(%p): that is a global or static variable, not memory from "
                       "shmem_malloc: only heap blocks can be freed or reallocated", fn, ptr);
        shmi_fatal("%s(%p): not an address in the symmetric heap [%p, %p): it is %s; pass a "
                   "pointer returned by shmem_malloc/calloc/align/realloc", fn, ptr,
                   (void *)shmi_g.user_base, (void *)(shmi_g.user_base + shmi_g.user_size),
                   shmi_addr_origin(ptr, why, sizeof why));
    }
    if (shmi_alloc_find(shmi_g.alloc, x - base, &bi) != SHMI_OK)
        shmi_fatal("%s(%p): heap metadata lookup failed", fn, ptr);
    if (bi.live) {
        shmi_ublock_of(&bi, ub);
        if (ub->user == ptr) return;
        if (x >= (uintptr_t)ub->user)
            shmi_fatal("%s(%p): points %zu bytes into the block at %p (%zu bytes): pass the "
                       "block's start address", fn, ptr, (size_t)(x - (uintptr_t)ub->user),
                       (void *)ub->user, ub->size);
        shmi_fatal("%s(%p): points into the guard zone before the block at %p: pass the "
                   "block's start address", fn, ptr, (void *)ub->user);
    }
    if (shmi_quar_covers(x - base))
        shmi_fatal("%s(%p): that block was already freed by shmem_free (double free)", fn, ptr);
    shmi_fatal("%s(%p): no live block starts there: it was already freed (double free?) or "
               "never allocated", fn, ptr);
}

static void check_guards(const char *fn, const struct shmi_ublock *ub)
{
    char why[200];
    if (shmi_guard_check(ub, why, sizeof why)) shmi_block_damaged(fn, ub, why);
}


void shmem_free(void *ptr)
{
    shmi_check_running("shmem_free");
    SHMI_SITE();
    shmi_report_poll();
    if (!ptr) return;
    if (shmi_hooks.free_check) shmi_hooks.free_check("shmem_free", ptr);
    if (shmi_gpu_has(ptr)) {
        shmi_gpu_free("shmem_free", ptr);
        return;
    }
    struct shmi_ublock ub;
    live_block("shmem_free", ptr, &ub);
    check_guards("shmem_free", &ub);
    shmi_barrier_checked("shmem_free", SHMI_OP_FREE, ub.off, 0, 0);
    shmi_block_release("shmem_free", &ub);
}

/* Grow or shrink in place (guards moved), or carve a new block, copy, release. */
static int resize_block(const char *fn, struct shmi_ublock *ub, size_t size)
{
    if (size <= SIZE_MAX - ub->front - ub->back &&
        shmi_alloc_resize(shmi_g.alloc, ub->off, ub->front + size + ub->back) == SHMI_OK) {
        bump_hwm(ub->off, ub->front + size + ub->back);
        ub->size = size;
        shmi_guard_fill(ub);
        return SHMI_OK;
    }
    struct shmi_ublock nb;
    int rc = carve(fn, size, SHMI_ALLOC_MIN_ALIGN, ub->site, 0, &nb);
    if (rc != SHMI_OK) return rc;
    memcpy(nb.user, ub->user, ub->size < size ? ub->size : size);
    shmi_block_release(fn, ub);
    *ub = nb;
    return SHMI_OK;
}

void *shmem_realloc(void *ptr, size_t size)
{
    shmi_check_running("shmem_realloc");
    SHMI_SITE();
    shmi_report_poll();
    if (!ptr) return sym_alloc("shmem_realloc", SHMI_OP_MALLOC, size, SHMI_ALLOC_MIN_ALIGN, size,
                               0, 0, SHMI_CALLER());
    if (shmi_hooks.free_check) shmi_hooks.free_check("shmem_realloc", ptr);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    if (shmi_gpu_has(ptr)) return shmi_gpu_realloc("shmem_realloc", ptr, size);
    struct shmi_ublock ub;
    live_block("shmem_realloc", ptr, &ub);
    check_guards("shmem_realloc", &ub);
    shmi_barrier_checked("shmem_realloc", SHMI_OP_REALLOC, ub.off, size, 0);
    int rc = resize_block("shmem_realloc", &ub, size);
    shmi_barrier();
    if (rc != SHMI_OK) {
        report_oom("shmem_realloc", size);
        return NULL; /* the old block is untouched, on every PE */
    }
    return ub.user;
}

void *shmem_ptr(const void *dest, int pe)
{
    shmi_check_pe("shmem_ptr", pe);
    if (shmi_gpu_has(dest)) return shmi_gpu_ptr("shmem_ptr", dest, 0, pe);
    void *p = shmi_sym("shmem_ptr", "dest", dest, 0, pe);
    return shmi_tp_remote(&shmi_g.tp, pe) ? NULL : p; /* another node: no load/store */
}

int shmem_addr_accessible(const void *addr, int pe)
{
    shmi_check_running("shmem_addr_accessible");
    return (unsigned)pe < (unsigned)shmi_g.npes &&
           (shmi_tp_seg_of(&shmi_g.tp, addr, 0) >= 0 || shmi_gpu_has(addr));
}

int shmemx_heap_info(shmemx_heap_info_t *info)
{
    if (shmi_g.phase != SHMI_RUNNING || !info) return -1;
    struct shmi_alloc_stats st;
    shmi_alloc_stats(shmi_g.alloc, &st);
    /* quarantined blocks (SHMEM_CHECKS=full) are free as far as the user knows */
    size_t quar_bytes, quar_blocks;
    shmi_quar_stats(&quar_bytes, &quar_blocks);
    *info = (shmemx_heap_info_t){ shmi_g.user_base, st.size, st.used - quar_bytes,
                                  st.free + quar_bytes, st.largest_free, st.peak_used,
                                  st.live_blocks - quar_blocks };
    return 0;
}

int shmemx_heap_check(void)
{
    shmi_check_running("shmemx_heap_check");
    return shmi_heap_check();
}

/* ---- calloc/align with hints ------------------------------------------------------ */

void *shmemx_calloc_with_hints(size_t count, size_t size, long hints)
{
    static const char fn[] = "shmemx_calloc_with_hints";
    shmi_check_running(fn);
    if (!shmi_gpu_hinted(fn, hints)) return shmem_calloc(count, size);
    if (count == 0 || size == 0) return NULL;
    if (shmi_mul_overflows(count, size, NULL)) {
        if (shmi_g.me == 0)
            shmi_log_warn("%s(%zu, %zu): count * size overflows size_t; returning NULL", fn,
                          count, size);
        return NULL;
    }
    return shmi_gpu_calloc(fn, count, size);
}

void *shmemx_align_with_hints(size_t alignment, size_t size, long hints)
{
    static const char fn[] = "shmemx_align_with_hints";
    shmi_check_running(fn);
    if (!shmi_gpu_hinted(fn, hints)) return shmem_align(alignment, size);
    if (alignment == 0 || (alignment & (alignment - 1)) || alignment > SHMI_HEAP_BASE_ALIGN)
        shmi_fatal("%s(%zu, %zu): alignment must be a power of two up to 1 GiB, e.g. 64, "
                   "4096 or 2097152", fn, alignment, size);
    if (size == 0) return NULL;
    return shmi_gpu_align(fn, alignment, size);
}
