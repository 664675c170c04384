/* mem.c - the collective allocation calls, one path for every symmetric
 * heap: the host heap and the GPU heap (mem_device.c supplies its kind).
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
#include "core/mem_device.h" /* the GPU heap's kind, shmi_sym_any */
#include "util/err.h"
#include "util/num.h"

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <string.h>

/* ---- The one allocation path, for every heap (core/state.h) --------------
 * The heap's kind supplies what differs: whether the CPU can write its
 * memory (then blocks carry guards, freed ones go through the quarantine,
 * the self-test runs, and calloc clears only below the high-water mark),
 * growth after the checked barrier (GPU: backing chunks), clearing and
 * copying (memset/memcpy, or the copy engines). */

/* Op code of heap h for host op k (SHMI_OP_MALLOC .. SHMI_OP_FREE). */
static enum shmi_coll_op op_of(const struct shmi_sheap *h, enum shmi_coll_op k)
{
    return (enum shmi_coll_op)(h->kind->op_malloc + (k - SHMI_OP_MALLOC));
}
_Static_assert(SHMI_OP_GPU_FREE - SHMI_OP_GPU_MALLOC == SHMI_OP_FREE - SHMI_OP_MALLOC &&
               SHMI_OP_GPU_REALLOC - SHMI_OP_GPU_MALLOC == SHMI_OP_REALLOC - SHMI_OP_MALLOC,
               "every heap's op codes follow MALLOC, CALLOC, ALIGN, REALLOC, FREE");

/* The heap for a call that asks for GPU memory: set up now if need be. */
static struct shmi_sheap *gpu_heap(const char *fn)
{
    shmi_gpu_ensure(fn);
    return &shmi_g.gpu;
}

/* The heap holding ptr; the host heap for anything else (its messages say
 * what ptr is instead). */
static struct shmi_sheap *heap_of(const void *ptr)
{
    struct shmi_sheap *const heaps[] = { &shmi_g.host, &shmi_g.gpu };
    struct shmi_sheap *h = shmi_sheap_of(heaps, 2, ptr);
    return h ? h : &shmi_g.host;
}

static void report_oom(const struct shmi_sheap *h, const char *fn, size_t size)
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
    shmi_alloc_stats(h->alloc, &st);
    char a[32], b[32], c[32], d[32], e[32];
    size_t want = st.used + size, suggest = (size_t)1 << 30;
    while (suggest < want + want / 4 && suggest < ((size_t)1 << 62)) suggest <<= 1;
    shmi_log_warn("%s: %s full on every PE: need %s, %s free (largest free block %s) of %s, "
                  "%s used; returning NULL. Set %s=%zuG or larger", fn, h->kind->name,
                  shmi_fmt_size(size, a, sizeof a), shmi_fmt_size(st.free, b, sizeof b),
                  shmi_fmt_size(st.largest_free, c, sizeof c),
                  shmi_fmt_size(st.size, d, sizeof d), shmi_fmt_size(st.used, e, sizeof e),
                  h->kind->size_var, suggest >> 30);
}

/* User view of an allocator block of heap h. */
static void block_of(const struct shmi_sheap *h, const struct shmi_block_info *bi,
                     struct shmi_ublock *ub)
{
    if (h->kind->cpu) {
        shmi_ublock_of(bi, ub);
        return;
    }
    *ub = (struct shmi_ublock){ bi->off, h->base + bi->off, bi->size, 0, 0,
                                shmi_tag_site(bi->tag) };
}

static size_t span_of(const struct shmi_ublock *ub) { return ub->front + ub->size + ub->back; }

/* Carve a block (with guards where the CPU can write them); 0 and *ub
 * filled, or SHMI_ENOMEM.  Local: the checked barrier comes after. */
static int carve(struct shmi_sheap *h, const char *fn, size_t size, size_t align, uint32_t site,
                 struct shmi_ublock *ub)
{
    int cpu = h->kind->cpu;
    size_t front = cpu ? shmi_guard_front(align) : 0, back = cpu ? shmi_guard_back() : 0, off;
    if (size > SIZE_MAX - front - back) return SHMI_ENOMEM;
    int rc = shmi_alloc_alloc(h->alloc, front + size + back, align, &off);
    if (rc == SHMI_ENOMEM && cpu && shmi_quar_flush(fn))
        rc = shmi_alloc_alloc(h->alloc, front + size + back, align, &off);
    if (rc != SHMI_OK) return rc;
    shmi_alloc_set_tag(h->alloc, off, shmi_tag_make(site, (uint32_t)front));
    *ub = (struct shmi_ublock){ off, h->base + off + front, size, front, back, site };
    if (cpu) shmi_guard_fill(ub);
    return SHMI_OK;
}

/* Clear a new block's user bytes for calloc (its guards stay).  Pages of a
 * CPU heap never handed out are still the memfd's fresh zero pages: only
 * the part below the high-water mark is cleared. */
static void clear(struct shmi_sheap *h, const char *fn, const struct shmi_ublock *ub)
{
    size_t at = ub->off + ub->front, n = ub->size;
    if (h->kind->cpu) n = at >= h->zero_hwm ? 0 : h->zero_hwm - at < n ? h->zero_hwm - at : n;
    if (n && h->kind->zero(ub->user, n) != SHMI_OK)
        shmi_fatal("%s: clearing %zu bytes at %p failed: %s", fn, n, (void *)ub->user,
                   h->kind->errstr());
}

static void bump_hwm(struct shmi_sheap *h, const struct shmi_ublock *ub)
{
    if (ub->off + span_of(ub) > h->zero_hwm) h->zero_hwm = ub->off + span_of(ub);
}

/* Give a block back: a CPU heap's through the quarantine (SHMEM_CHECKS=full). */
static void release(struct shmi_sheap *h, const char *fn, const struct shmi_ublock *ub)
{
    if (h->kind->cpu) shmi_block_release(fn, ub);
    else shmi_alloc_free(h->alloc, ub->off);
}

/* Allocate locally, then the checked barrier, then growth where the kind
 * needs it; NULL on every PE when full. */
static void *sym_alloc(struct shmi_sheap *h, const char *fn, enum shmi_coll_op op, size_t size,
                       size_t align, uint64_t a0, uint64_t a1, int zero, void *caller)
{
    struct shmi_ublock ub;
    shmi_call_site = caller;
    int rc = carve(h, fn, size, align, shmi_site_intern(caller, fn), &ub);
    int usable = !h->kind->grow; /* memory there already: clear before the barrier */
    if (rc == SHMI_OK && zero && usable) clear(h, fn, &ub);
    if (rc == SHMI_OK) bump_hwm(h, &ub);
    shmi_barrier_checked(fn, op, a0, a1, rc == SHMI_OK ? ub.off : UINT64_MAX);
    if (rc != SHMI_OK) {
        report_oom(h, fn, size);
        return NULL;
    }
    if (!usable) {
        if (h->kind->grow(h, fn, ub.off + span_of(&ub), size) != SHMI_OK) {
            shmi_alloc_free(h->alloc, ub.off);
            return NULL; /* the kind said why; the same on every PE */
        }
        if (zero) {
            clear(h, fn, &ub);
            shmi_barrier(); /* no PE writes into the block before it is cleared */
        }
    }
    if (shmi_g.env.SELFTEST && h->kind->cpu) shmi_selftest_block(fn, ub.user, ub.size, zero);
    return ub.user;
}

void *shmem_malloc(size_t size)
{
    static const char fn[] = "shmem_malloc";
    shmi_check_running(fn);
    shmi_check_thread(fn);
    shmi_report_poll();
    if (size == 0) return NULL;
    struct shmi_sheap *h = shmi_gpu_default() ? gpu_heap(fn) : &shmi_g.host;
    return sym_alloc(h, fn, op_of(h, SHMI_OP_MALLOC), size, SHMI_ALLOC_MIN_ALIGN, size, 0, 0,
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
    shmi_check_thread(fn);
    shmi_report_poll();
    if (size == 0) return NULL;
    if (hints & ~SHMI_KNOWN_HINTS) {
        static int warned;
        if (!warned++) shmi_log_debug("%s: hints=%#lx has bits symheap does not know (%#lx): "
                                      "ignored, host memory", fn, (unsigned long)hints,
                                      (unsigned long)(hints & ~SHMI_KNOWN_HINTS));
    } else if (shmi_gpu_hinted_soft(fn, hints)) {
        return sym_alloc(gpu_heap(fn), fn, SHMI_OP_GPU_MALLOC, size, SHMI_ALLOC_MIN_ALIGN, size,
                         (uint64_t)hints, 0, SHMI_CALLER());
    }
    /* With load/store on one node all host memory suits atomics and signals
     * equally, so every standard hint gives the same kind of block. */
    return sym_alloc(&shmi_g.host, fn, SHMI_OP_HINTS, size, SHMI_ALLOC_MIN_ALIGN, size,
                     (uint64_t)hints, 0, SHMI_CALLER());
}

/* count * size, or 0 (and NULL from the caller, without a barrier: the same
 * on every PE) when it overflows. */
static size_t calloc_bytes(const char *fn, size_t count, size_t size)
{
    size_t bytes;
    if (!shmi_mul_overflows(count, size, &bytes)) return bytes;
    if (shmi_g.me == 0)
        shmi_log_warn("%s(%zu, %zu): count * size overflows size_t; returning NULL", fn, count,
                      size);
    return 0;
}

static void *sym_calloc(struct shmi_sheap *h, const char *fn, size_t count, size_t size,
                        void *caller)
{
    size_t n = calloc_bytes(fn, count, size);
    if (n == 0) return NULL;
    return sym_alloc(h, fn, op_of(h, SHMI_OP_CALLOC), n, SHMI_ALLOC_MIN_ALIGN, count, size, 1,
                     caller);
}

void *shmem_calloc(size_t count, size_t size)
{
    static const char fn[] = "shmem_calloc";
    shmi_check_running(fn);
    shmi_check_thread(fn);
    shmi_report_poll();
    if (count == 0 || size == 0) return NULL;
    if (!calloc_bytes(fn, count, size)) return NULL; /* before the GPU heap comes up */
    return sym_calloc(shmi_gpu_default() ? gpu_heap(fn) : &shmi_g.host, fn, count, size,
                      SHMI_CALLER());
}

/* An alignment shmem_align cannot honour: 0, not a power of two, or above
 * the heap base's alignment (1 GiB).  The spec leaves it undefined; as
 * posix_memalign's EINVAL (and other OpenSHMEMs) the call returns NULL, on
 * every PE: the refusal goes through the same checked barrier as a good
 * call, so a PE that passed another alignment is named there instead of
 * continuing alone (issue 17). */
static int bad_alignment(size_t alignment)
{
    return alignment == 0 || (alignment & (alignment - 1)) || alignment > SHMI_HEAP_BASE_ALIGN;
}

static void *refuse_alignment(const char *fn, enum shmi_coll_op op, size_t alignment,
                              size_t size, void *caller)
{
    shmi_call_site = caller;
    shmi_barrier_checked(fn, op, alignment, size, UINT64_MAX);
    if (shmi_g.me == 0) /* the same on every PE: say it once */
        shmi_log_warn("%s(%zu, %zu): alignment %zu %s; returning NULL on every PE", fn,
                      alignment, size, alignment,
                      alignment > SHMI_HEAP_BASE_ALIGN
                          ? "is above 1 GiB (1073741824), the largest alignment supported"
                          : "is not a power of two: use e.g. 64, 4096 or 2097152");
    return NULL;
}

/* The block's address honours the alignment asked for; the heap's base is
 * 1 GiB-aligned (checked when it is placed), so this holds unless something
 * is badly wrong: say so rather than return less aligned memory. */
static void *check_aligned(const char *fn, void *p, size_t alignment)
{
    if (p && ((uintptr_t)p & (alignment - 1)))
        shmi_fatal("%s: the block at %p is not %zu-byte aligned although the heap's base "
                   "should make it so: a bug in symheap, please report it", fn, p, alignment);
    return p;
}

void *shmem_align(size_t alignment, size_t size)
{
    static const char fn[] = "shmem_align";
    shmi_check_running(fn);
    shmi_check_thread(fn);
    shmi_report_poll();
    if (bad_alignment(alignment))
        return refuse_alignment(fn, SHMI_OP_ALIGN, alignment, size, SHMI_CALLER());
    if (size == 0) return NULL;
    struct shmi_sheap *h = shmi_gpu_default() ? gpu_heap(fn) : &shmi_g.host;
    return check_aligned(fn,
                         sym_alloc(h, fn, op_of(h, SHMI_OP_ALIGN), size, alignment, alignment,
                                   size, 0, SHMI_CALLER()),
                         alignment);
}

void *shmemx_calloc_with_hints(size_t count, size_t size, long hints)
{
    static const char fn[] = "shmemx_calloc_with_hints";
    shmi_check_running(fn);
    if (!shmi_gpu_hinted(fn, hints)) return shmem_calloc(count, size);
    if (count == 0 || size == 0) return NULL;
    if (!calloc_bytes(fn, count, size)) return NULL;
    return sym_calloc(gpu_heap(fn), fn, count, size, SHMI_CALLER());
}

void *shmemx_align_with_hints(size_t alignment, size_t size, long hints)
{
    static const char fn[] = "shmemx_align_with_hints";
    shmi_check_running(fn);
    if (!shmi_gpu_hinted(fn, hints)) return shmem_align(alignment, size);
    if (bad_alignment(alignment))
        return refuse_alignment(fn, SHMI_OP_GPU_ALIGN, alignment, size, SHMI_CALLER());
    if (size == 0) return NULL;
    return sym_alloc(gpu_heap(fn), fn, SHMI_OP_GPU_ALIGN, size, alignment, alignment, size, 0,
                     SHMI_CALLER());
}

/* The live block of heap h that starts at ptr, or a fatal message saying
 * what ptr is instead. */
static void live_block(struct shmi_sheap *h, const char *fn, const void *ptr,
                       struct shmi_ublock *ub)
{
    uintptr_t x = (uintptr_t)ptr, base = (uintptr_t)h->base;
    const char *gpu = h->kind->cpu ? "" : "GPU ";
    struct shmi_block_info bi;
    if (x - base >= h->size) {
        if (shmi_tp_seg_of(&shmi_g.tp, ptr, 0) == 1)
            shmi_fatal("%s(%p): that is a global or static variable, not memory from "
                       "shmem_malloc: only heap blocks can be freed or reallocated", fn, ptr);
        char origin[256] = "memory outside the symmetric heap";
        if (shmi_hooks.addr_origin) shmi_hooks.addr_origin(ptr, origin, sizeof origin);
        shmi_fatal("%s(%p): not an address in the symmetric heap [%p, %p): it is %s; pass a "
                   "pointer returned by shmem_malloc/calloc/align/realloc", fn, ptr,
                   (void *)h->base, (void *)(h->base + h->size), origin);
    }
    if (shmi_alloc_find(h->alloc, x - base, &bi) != SHMI_OK)
        shmi_fatal("%s(%p): heap metadata lookup failed", fn, ptr);
    if (bi.live) {
        block_of(h, &bi, ub);
        if (ub->user == ptr) return;
        if (x >= (uintptr_t)ub->user)
            shmi_fatal("%s(%p): points %zu bytes into the %sblock at %p (%zu bytes): pass the "
                       "block's start address", fn, ptr, (size_t)(x - (uintptr_t)ub->user), gpu,
                       (void *)ub->user, ub->size);
        shmi_fatal("%s(%p): points into the guard zone before the block at %p: pass the "
                   "block's start address", fn, ptr, (void *)ub->user);
    }
    if (h->kind->cpu && shmi_quar_covers(x - base))
        shmi_fatal("%s(%p): that block was already freed by shmem_free (double free)", fn, ptr);
    shmi_fatal("%s(%p): no live %sblock starts there: it was already freed (double free?) or "
               "never allocated", fn, ptr, gpu);
}

static void check_guards(const struct shmi_sheap *h, const char *fn, const struct shmi_ublock *ub)
{
    char why[200];
    if (h->kind->cpu && shmi_guard_check(ub, why, sizeof why)) shmi_block_damaged(fn, ub, why);
}

void shmem_free(void *ptr)
{
    static const char fn[] = "shmem_free";
    shmi_check_running(fn);
    SHMI_SITE();
    shmi_report_poll();
    if (!ptr) return;
    if (shmi_hooks.free_check) shmi_hooks.free_check(fn, ptr);
    struct shmi_sheap *h = heap_of(ptr);
    struct shmi_ublock ub;
    live_block(h, fn, ptr, &ub);
    check_guards(h, fn, &ub);
    shmi_barrier_checked(fn, op_of(h, SHMI_OP_FREE), ub.off, 0, 0);
    release(h, fn, &ub);
}

/* Resize ub's block to size: in place (guards moved), or a new block with
 * the contents copied and the old one released; then grown where the kind
 * needs it.  0 (*ub is the block now), or SHMI_ENOMEM with nothing changed
 * (*reported: the kind already said why). */
static int resize_block(struct shmi_sheap *h, const char *fn, struct shmi_ublock *ub,
                        size_t size, int *reported)
{
    struct shmi_ublock nb = *ub;
    int moved = 0;
    if (size <= SIZE_MAX - ub->front - ub->back &&
        shmi_alloc_resize(h->alloc, ub->off, ub->front + size + ub->back) == SHMI_OK) {
        nb.size = size;
        if (h->kind->cpu) shmi_guard_fill(&nb);
    } else {
        int rc = carve(h, fn, size, SHMI_ALLOC_MIN_ALIGN, ub->site, &nb);
        if (rc != SHMI_OK) return rc;
        moved = 1;
    }
    if (h->kind->grow && h->kind->grow(h, fn, nb.off + span_of(&nb), size) != SHMI_OK) {
        if (moved) shmi_alloc_free(h->alloc, nb.off);
        else shmi_alloc_resize(h->alloc, ub->off, span_of(ub));
        *reported = 1;
        return SHMI_ENOMEM;
    }
    bump_hwm(h, &nb);
    if (moved) {
        size_t keep = ub->size < size ? ub->size : size;
        if (h->kind->copy(nb.user, ub->user, keep) != SHMI_OK)
            shmi_fatal("%s(%p, %zu): copying to the new block failed: %s", fn, (void *)ub->user,
                       size, h->kind->errstr());
        release(h, fn, ub);
    }
    *ub = nb;
    return SHMI_OK;
}

void *shmem_realloc(void *ptr, size_t size)
{
    static const char fn[] = "shmem_realloc";
    shmi_check_running(fn);
    SHMI_SITE();
    shmi_report_poll();
    if (!ptr) {
        struct shmi_sheap *h = shmi_gpu_default() ? gpu_heap(fn) : &shmi_g.host;
        return sym_alloc(h, fn, op_of(h, SHMI_OP_MALLOC), size, SHMI_ALLOC_MIN_ALIGN, size, 0,
                         0, SHMI_CALLER());
    }
    if (shmi_hooks.free_check) shmi_hooks.free_check(fn, ptr);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    struct shmi_sheap *h = heap_of(ptr);
    struct shmi_ublock ub;
    live_block(h, fn, ptr, &ub);
    check_guards(h, fn, &ub);
    shmi_barrier_checked(fn, op_of(h, SHMI_OP_REALLOC), ub.off, size, 0);
    int reported = 0, rc = resize_block(h, fn, &ub, size, &reported);
    shmi_barrier();
    if (rc != SHMI_OK) {
        if (!reported) report_oom(h, fn, size);
        return NULL; /* the old block is untouched, on every PE */
    }
    return ub.user;
}

void *shmem_ptr(const void *dest, int pe)
{
    shmi_check_pe("shmem_ptr", pe);
    void *p = shmi_sym_any("shmem_ptr", "dest", dest, 0, pe);
    /* mapped into our address space (host or GPU), or NULL: another node */
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, dest, NULL, pe);
    return SHMI_TP_DIRECT(via) || via->mapped ? p : NULL;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    shmi_check_running("shmem_addr_accessible");
    return (unsigned)pe < (unsigned)shmi_g.npes &&
           shmi_tp_symmetric(&shmi_g.tp, addr);
}

int shmemx_heap_info(shmemx_heap_info_t *info)
{
    if (shmi_g.phase != SHMI_RUNNING || !info) return -1;
    struct shmi_alloc_stats st;
    shmi_alloc_stats(shmi_g.host.alloc, &st);
    /* quarantined blocks (SHMEM_CHECKS=full) are free as far as the user knows */
    size_t quar_bytes, quar_blocks;
    shmi_quar_stats(&quar_bytes, &quar_blocks);
    *info = (shmemx_heap_info_t){ shmi_g.host.base, st.size, st.used - quar_bytes,
                                  st.free + quar_bytes, st.largest_free, st.peak_used,
                                  st.live_blocks - quar_blocks };
    return 0;
}

int shmemx_heap_check(void)
{
    shmi_check_running("shmemx_heap_check");
    return shmi_heap_check();
}

int shmemx_heap_report(const char *prefix)
{
    if (shmi_g.phase != SHMI_RUNNING) {
        shmi_log_warn("shmemx_heap_report called %s: there is no heap to report",
                      shmi_g.phase == SHMI_UNINIT ? "before shmem_init" : "after shmem_finalize");
        return -1;
    }
    return shmi_report_write_default(prefix);
}

/* ---- The GPU heap's extensions (shmemx_gpu.h) -------------------------------- */

int shmemx_gpu_register(shmemx_gpu_publish_t fn, unsigned version)
{
    return shmi_gpu_register(fn, version);
}

int shmemx_gpu_available(void) { return shmi_gpu_up(); }

int shmemx_gpu_heap_info(shmemx_heap_info_t *info)
{
    if (shmi_g.phase != SHMI_RUNNING || !shmi_gpu_up() || !info) return -1;
    struct shmi_alloc_stats st;
    shmi_alloc_stats(shmi_g.gpu.alloc, &st);
    *info = (shmemx_heap_info_t){ shmi_g.gpu.base, st.size, st.used, st.free, st.largest_free,
                                  st.peak_used, st.live_blocks };
    return 0;
}
