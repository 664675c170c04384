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
#include "api/debug.h"
#include "api/report.h"
#include "api/state.h"
#include "api/mem_device.h" /* GPU heap dispatch (issue 7) */
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

/* ---- Quarantine (SHMEM_CHECKS=full) -------------------------------------- */

#define QUAR_MAX 64
static size_t quar[QUAR_MAX];
static int quar_head, quar_len;
static size_t quar_bytes; /* spans of quarantined blocks: reported as free */

static size_t span_of(size_t off)
{
    struct shmi_block_info bi;
    shmi_alloc_find(shmi_g.alloc, off, &bi);
    return bi.span;
}

static _Noreturn void block_damaged(const char *fn, const struct shmi_ublock *ub, const char *why)
{
    char site[256];
    shmi_fatal("%s: the block at %p (%zu bytes, from %s at %s) was %s", fn, (void *)ub->user,
               ub->size, shmi_site_op(ub->site), shmi_site_describe(shmi_site_ret(ub->site),
               site, sizeof site), why);
}

/* 0 when the quarantined block at off still holds its poison and guards. */
static int poison_damage(size_t off, struct shmi_ublock *ub, char *why, size_t len)
{
    struct shmi_block_info bi;
    shmi_alloc_find(shmi_g.alloc, off, &bi);
    shmi_ublock_of(&bi, ub);
    for (size_t i = 0; i < ub->size; i++)
        if ((unsigned char)ub->user[i] != SHMI_POISON_BYTE) {
            snprintf(why, len, "freed, then written after free (byte %zu of the freed block "
                     "changed): a use-after-free", i);
            return -1;
        }
    return shmi_guard_check(ub, why, len);
}

static void poison_check(const char *fn, size_t off)
{
    struct shmi_ublock ub;
    char why[200];
    if (poison_damage(off, &ub, why, sizeof why)) block_damaged(fn, &ub, why);
}

static void quar_release(const char *fn)
{
    size_t off = quar[quar_head];
    quar_head = (quar_head + 1) % QUAR_MAX;
    quar_len--;
    quar_bytes -= span_of(off);
    poison_check(fn, off);
    shmi_alloc_free(shmi_g.alloc, off);
}

/* For reports: a quarantined block is free as far as the user knows. */
int shmi_mem_quarantined(size_t off)
{
    for (int i = 0; i < quar_len; i++)
        if (quar[(quar_head + i) % QUAR_MAX] == off) return 1;
    return 0;
}

static void quar_flush(const char *fn)
{
    while (quar_len) quar_release(fn);
}

/* The last shmem_finalize drops the allocator: forget the quarantined offsets
 * with it, so that a later shmem_init starts from an empty quarantine. */
void shmi_mem_fini(void)
{
    quar_head = quar_len = 0;
    quar_bytes = 0;
}

static void release(const char *fn, const struct shmi_ublock *ub)
{
    if (shmi_checks < SHMI_CHECKS_FULL) {
        shmi_alloc_free(shmi_g.alloc, ub->off);
        return;
    }
    memset(ub->user, SHMI_POISON_BYTE, ub->size);
    if (quar_len == QUAR_MAX) quar_release(fn);
    quar[(quar_head + quar_len++) % QUAR_MAX] = ub->off;
    quar_bytes += span_of(ub->off);
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
    if (rc == SHMI_ENOMEM && quar_len) {
        quar_flush(fn);
        rc = shmi_alloc_alloc(shmi_g.alloc, total, align, &off);
    }
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
    /* With load/store on one node all host memory suits atomics and signals
     * equally, so every standard hint gives the same kind of block. */
    return sym_alloc(fn, SHMI_OP_HINTS, size, SHMI_ALLOC_MIN_ALIGN, size, (uint64_t)hints, 0,
                     SHMI_CALLER());
}

void *shmem_calloc(size_t count, size_t size)
{
    shmi_check_running("shmem_calloc");
    shmi_report_poll();
    if (count == 0 || size == 0) return NULL;
    if (count > SIZE_MAX / size) {
        /* Same on every PE, so every PE returns NULL without a barrier. */
        if (shmi_g.me == 0)
            shmi_log_warn("shmem_calloc(%zu, %zu): count * size overflows size_t; "
                          "returning NULL", count, size);
        return NULL;
    }
    if (shmi_gpu_default()) return shmi_gpu_calloc("shmem_calloc", count, size);
    return sym_alloc("shmem_calloc", SHMI_OP_CALLOC, count * size, SHMI_ALLOC_MIN_ALIGN, count,
                     size, 1, SHMI_CALLER());
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

/* The live block whose user pointer is ptr, or a fatal message saying what
 * ptr is instead. */
void shmi_mem_check_span(const char *fn, const char *what, const void *p, size_t n,
                         const char *hint)
{
    uintptr_t x = (uintptr_t)p, base = (uintptr_t)shmi_g.user_base;
    struct shmi_block_info bi;
    if (shmi_checks == SHMI_CHECKS_OFF || n == 0 || x - base >= shmi_g.user_size ||
        shmi_alloc_find(shmi_g.alloc, x - base, &bi) != SHMI_OK)
        return;
    struct shmi_ublock ub;
    shmi_ublock_of(&bi, &ub);
    uintptr_t u = (uintptr_t)ub.user;
    if (bi.live && x >= u && x - u <= ub.size && n <= ub.size - (x - u)) return;
    char site[256];
    if (!bi.live)
        shmi_fatal("%s: %s=%p (%zu bytes) is not in a live block of the symmetric heap: it "
                   "is free or freed memory%s", fn, what, p, n, hint ? hint : "");
    shmi_fatal("%s: %s=%p needs %zu bytes, but the block it is in (at %p, %zu bytes, from %s "
               "at %s) %s%s", fn, what, p, n, (void *)ub.user, ub.size, shmi_site_op(ub.site),
               shmi_site_describe(shmi_site_ret(ub.site), site, sizeof site),
               x < u ? "starts after it" : "is too small: the range runs past its end",
               hint ? hint : "");
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
    for (int i = 0; i < quar_len; i++)
        if (quar[(quar_head + i) % QUAR_MAX] <= x - base &&
            shmi_alloc_find(shmi_g.alloc, quar[(quar_head + i) % QUAR_MAX], &bi) == SHMI_OK &&
            x - base < bi.off + bi.size)
            shmi_fatal("%s(%p): that block was already freed by shmem_free (double free)", fn, ptr);
    shmi_fatal("%s(%p): no live block starts there: it was already freed (double free?) or "
               "never allocated", fn, ptr);
}

static void check_guards(const char *fn, const struct shmi_ublock *ub)
{
    char why[200];
    if (shmi_guard_check(ub, why, sizeof why)) block_damaged(fn, ub, why);
}

void (*shmi_free_hook)(const char *fn, const void *ptr);

void shmem_free(void *ptr)
{
    shmi_check_running("shmem_free");
    SHMI_SITE();
    shmi_report_poll();
    if (!ptr) return;
    if (shmi_free_hook) shmi_free_hook("shmem_free", ptr);
    if (shmi_gpu_has(ptr)) {
        shmi_gpu_free("shmem_free", ptr);
        return;
    }
    struct shmi_ublock ub;
    live_block("shmem_free", ptr, &ub);
    check_guards("shmem_free", &ub);
    shmi_barrier_checked("shmem_free", SHMI_OP_FREE, ub.off, 0, 0);
    release("shmem_free", &ub);
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
    release(fn, ub);
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
    if (shmi_free_hook) shmi_free_hook("shmem_realloc", ptr);
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
    *info = (shmemx_heap_info_t){ shmi_g.user_base, st.size, st.used - quar_bytes,
                                  st.free + quar_bytes, st.largest_free, st.peak_used,
                                  st.live_blocks - (size_t)quar_len };
    return 0;
}

/* ---- Heap check ---------------------------------------------------------- */

static void report_damage(const struct shmi_ublock *ub, const char *why)
{
    char site[256];
    shmi_log_error("heap check: the block at %p (%zu bytes, from %s at %s) was %s",
                   (void *)ub->user, ub->size, shmi_site_op(ub->site),
                   shmi_site_describe(shmi_site_ret(ub->site), site, sizeof site), why);
}

static int check_one(const struct shmi_block_info *bi, void *arg)
{
    int *bad = arg;
    struct shmi_ublock ub;
    char why[200];
    if (!bi->live) return 0;
    for (int i = 0; i < quar_len; i++)
        if (quar[(quar_head + i) % QUAR_MAX] == bi->off) return 0;
    shmi_ublock_of(bi, &ub);
    if (shmi_guard_check(&ub, why, sizeof why) == 0) return 0;
    report_damage(&ub, why);
    (*bad)++;
    return 0;
}

int shmi_heap_check(void)
{
    int bad = 0;
    if (shmi_checks == SHMI_CHECKS_OFF) return 0;
    shmi_alloc_foreach(shmi_g.alloc, check_one, &bad);
    for (int i = 0; i < quar_len; i++) {
        struct shmi_ublock ub;
        char why[200];
        if (poison_damage(quar[(quar_head + i) % QUAR_MAX], &ub, why, sizeof why)) {
            report_damage(&ub, why);
            bad++;
        }
    }
    return bad;
}

int shmemx_heap_check(void)
{
    shmi_check_running("shmemx_heap_check");
    return shmi_heap_check();
}
