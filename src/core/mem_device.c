/* mem_device.c - the GPU symmetric heap: set-up, allocation, and the state
 * device code reads (issue 7; docs/gpu.md).
 *
 * The GPU heap is a second segment (transport/cuda.h) with its own
 * deterministic allocator (heap/alloc.h) over [0, user_size); the device
 * control block (barrier flags of the device API) sits above it, at the
 * segment's top, in memory backed from the start.  Allocation follows the
 * host heap's rules (mem.c): every call is collective and checked across PEs
 * (SHMI_OP_GPU_*), same offset hence same address everywhere; a full heap or
 * a full GPU gives NULL on every PE and changes nothing.
 *
 * Order of an allocation: allocate locally -> checked barrier (a PE in
 * another call, or with other arguments, stops the job here) -> grow the
 * segment to the block's end if needed (collective, all-or-nothing) -> zero
 * for calloc -> barrier when memory was touched after the checked one.
 *
 * When the heap appears: at shmem_init when some CUDA code registered for
 * the device state (shmemx_gpu_register, done by nvshmem_device.cuh before
 * main) or SHMEM_MALLOC_GPU=1; else lazily, in the first allocation that
 * wants GPU memory (preceded by a checked SHMI_OP_GPU_INIT barrier so that a
 * PE in another collective is reported, not deadlocked).  A program without
 * GPU code never loads the CUDA driver. */
#include "core/mem_device.h"
#include "heap/mkind_cuda.h"
#include "transport/cuda.h"
#include "util/err.h"
#include "util/num.h"

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_CTL_SIZE ((size_t)64 << 10) /* nvshmem_device.cuh's control block fits */
#define MAX_PUBLISHERS 256

enum { GPU_UNTRIED, GPU_UP, GPU_NONE };

static struct {
    int status;                 /* GPU_UNTRIED / GPU_UP / GPU_NONE */
    char why[600];              /* GPU_NONE: the reason */
    struct shmi_cuda_info info;
    struct shmi_cuda_seg seg;
    shmi_alloc_t *alloc;
    size_t user_size;
    shmemx_gpu_state_t st;
} gpu;

/* Registered before main by every CUDA unit: outside shmi_g, which
 * shmem_init clears. */
static shmemx_gpu_publish_t publishers[MAX_PUBLISHERS];
static int npublishers;

int shmemx_gpu_register(shmemx_gpu_publish_t fn, unsigned version)
{
    if (version != SHMEMX_GPU_STATE_VERSION || !fn) return -1;
    if (npublishers == MAX_PUBLISHERS) return -1;
    publishers[npublishers++] = fn;
    if (gpu.status == GPU_UP) fn(&gpu.st);
    return 0;
}

static void publish(void)
{
    for (int i = 0; i < npublishers; i++) publishers[i](&gpu.st);
}

/* ---- set-up ---------------------------------------------------------------- */

/* Collective: 0 when every PE has a usable GPU, else the first PE without
 * one (gpu.why says why). */
static int every_pe_has_gpu(const char *fn)
{
    char err[512];
    int rc = SHMI_OK, bad = -1;
    if (!shmi_g.env.GPU) {
        rc = SHMI_ENOTSUP;
        snprintf(gpu.why, sizeof gpu.why, "SHMEM_GPU=0");
    } else if ((rc = shmi_cuda_load(shmi_g.me, &gpu.info, err, sizeof err)) != SHMI_OK) {
        snprintf(gpu.why, sizeof gpu.why, "%s", err);
    }
    int *all = calloc((size_t)shmi_g.npes, sizeof *all);
    if (!all || shmi_boot_allgather(&shmi_g.boot, &rc, all, sizeof rc) != SHMI_OK)
        shmi_fatal("%s: lost contact with the other PEs while setting up the GPU heap", fn);
    for (int pe = 0; pe < shmi_g.npes && bad < 0; pe++)
        if (all[pe] != SHMI_OK) bad = pe;
    free(all);
    if (bad >= 0 && rc == SHMI_OK) snprintf(gpu.why, sizeof gpu.why, "PE %d has no usable GPU", bad);
    return bad;
}

static void create_heap(const char *fn)
{
    char err[512];
    size_t size = shmi_g.env.GPU_HEAP_SIZE + GPU_CTL_SIZE;
    int rc = shmi_cuda_seg_create(&gpu.seg, &shmi_g.boot, size, GPU_CTL_SIZE,
                                  gpu.info.granularity, err, sizeof err);
    if (rc != SHMI_OK) shmi_fatal("%s: cannot set up the GPU heap: %s", fn, err);
    gpu.user_size = gpu.seg.high;
    if (shmi_alloc_create(&gpu.alloc, gpu.user_size) != SHMI_OK)
        shmi_fatal("%s: cannot create the GPU heap's allocator: out of host memory", fn);
    gpu.st = (shmemx_gpu_state_t){ SHMEMX_GPU_STATE_VERSION, shmi_g.me, shmi_g.npes,
                                   gpu.info.device, gpu.seg.base, gpu.seg.size, gpu.seg.slots,
                                   gpu.seg.base + gpu.seg.high };
    shmi_g.gpu.base = gpu.seg.base;
    shmi_g.gpu.size = gpu.user_size;
    gpu.status = GPU_UP;
    publish();
    if (shmi_g.me == 0 && (shmi_g.env.INFO || shmi_g.env.VERSION)) {
        char a[32];
        shmi_log_info("GPU heap: %s at %p on GPU %d (%s), %d PE(s), driver %d.%d",
                      shmi_fmt_size(gpu.user_size, a, sizeof a), (void *)gpu.seg.base,
                      gpu.info.device, gpu.info.name, shmi_g.npes,
                      gpu.info.driver_version / 1000, gpu.info.driver_version % 1000 / 10);
    }
}

/* Collective.  required: no GPU heap is fatal (saying why); else every PE
 * stays host-only.  Returns 1 when the GPU heap is up. */
static int gpu_up(const char *fn, int required)
{
    if (gpu.status == GPU_UNTRIED) {
        if (every_pe_has_gpu(fn) < 0) {
            create_heap(fn);
        } else {
            gpu.status = GPU_NONE;
            shmi_log_debug("no GPU heap: %s", gpu.why);
        }
    }
    if (gpu.status != GPU_UP && required)
        shmi_fatal("%s: GPU memory was asked for but there is no GPU heap: %s; drop the "
                   "GPU hint / SHMEM_MALLOC_GPU=1, or run where every PE sees a GPU",
                   fn, gpu.why);
    return gpu.status == GPU_UP;
}

void shmi_gpu_init(void)
{
    gpu.status = GPU_UNTRIED; /* a new shmem_init (tests) starts over */
    if (!shmi_g.env.GPU || (npublishers == 0 && !shmi_g.env.MALLOC_GPU)) return;
    gpu_up("shmem_init", shmi_g.env.MALLOC_GPU);
}

void shmi_gpu_fini(void)
{
    if (gpu.status != GPU_UP) return;
    shmi_cuda_device_sync(); /* this PE's kernels may still use the heap */
    shmi_g.gpu.base = 0;
    shmi_g.gpu.size = 0;
    shmi_cuda_seg_destroy(&gpu.seg);
    shmi_alloc_destroy(gpu.alloc);
    gpu.alloc = NULL;
    gpu.status = GPU_UNTRIED;
}

int shmemx_gpu_available(void) { return gpu.status == GPU_UP; }

int shmemx_gpu_heap_info(shmemx_heap_info_t *info)
{
    if (shmi_g.phase != SHMI_RUNNING || gpu.status != GPU_UP || !info) return -1;
    struct shmi_alloc_stats st;
    shmi_alloc_stats(gpu.alloc, &st);
    *info = (shmemx_heap_info_t){ (void *)gpu.seg.base, st.size, st.used, st.free,
                                  st.largest_free, st.peak_used, st.live_blocks };
    return 0;
}

/* ---- allocation -------------------------------------------------------------- */

int shmi_gpu_default(void) { return shmi_g.env.MALLOC_GPU; }

int shmi_gpu_hinted(const char *fn, long hints)
{
    if (hints & SHMEMX_MALLOC_DEVICE) return 1; /* gpu_up(required) at the allocation */
    if (!(hints & SHMEMX_MALLOC_DEVICE_AUTO)) return 0;
    if (gpu.status == GPU_UP) return 1;
    if (gpu.status == GPU_NONE || !shmi_g.env.GPU) return 0;
    /* AUTO: only programs with CUDA code (or SHMEM_MALLOC_GPU=1) want the GPU;
     * a C program's nvshmem_malloc keeps host memory it can loop over. */
    if (npublishers == 0 && !shmi_g.env.MALLOC_GPU) return 0;
    shmi_barrier_checked(fn, SHMI_OP_GPU_INIT, 0, 0, 0);
    return gpu_up(fn, 0);
}

int shmi_gpu_hinted_soft(const char *fn, long hints)
{
    if (!(hints & SHMEMX_MALLOC_DEVICE)) return shmi_gpu_hinted(fn, hints);
    static int warned;
    if (gpu.status == GPU_UP) return 1;
    if (gpu.status == GPU_UNTRIED && shmi_g.env.GPU) {
        shmi_barrier_checked(fn, SHMI_OP_GPU_INIT, 0, 0, 0);
        if (gpu_up(fn, 0)) return 1;
    }
    if (!warned++ && shmi_g.me == 0)
        shmi_log_warn("%s: hints ask for GPU memory (SHMEMX_MALLOC_DEVICE), but there is no GPU "
                      "heap (%s): giving host memory, as the spec says hints are only advice",
                      fn, gpu.why[0] ? gpu.why : "SHMEM_GPU=0");
    return 0;
}

static void ensure_up(const char *fn)
{
    if (gpu.status == GPU_UP) return;
    shmi_check_running(fn);
    shmi_barrier_checked(fn, SHMI_OP_GPU_INIT, 0, 0, 0);
    gpu_up(fn, 1);
}

static void report_oom(const char *fn, size_t size, const char *why)
{
    if (shmi_g.me != 0) return; /* the same on every PE: say it once */
    struct shmi_alloc_stats st;
    shmi_alloc_stats(gpu.alloc, &st);
    char a[32], b[32], c[32], d[32], e[32];
    if (why) {
        shmi_cuda_meminfo(&gpu.info.free_mem, &gpu.info.total_mem);
        shmi_log_warn("%s: %s: returning NULL on every PE; the PEs of this GPU hold %s of GPU "
                      "heap each (%s of the GPU's %s); free blocks, use fewer PEs per GPU, or "
                      "lower SHMEM_GPU_CHUNK", fn, why,
                      shmi_fmt_size(shmi_cuda_seg_backed(&gpu.seg), a, sizeof a),
                      shmi_fmt_size(gpu.info.total_mem - gpu.info.free_mem, b, sizeof b),
                      shmi_fmt_size(gpu.info.total_mem, c, sizeof c));
        return;
    }
    size_t want = st.used + size, suggest = (size_t)1 << 30;
    while (suggest < want + want / 4 && suggest < ((size_t)1 << 62)) suggest <<= 1;
    shmi_log_warn("%s: GPU symmetric heap full on every PE: need %s, %s free (largest free "
                  "block %s) of %s, %s used; returning NULL. Set SHMEM_GPU_HEAP_SIZE=%zuG or "
                  "larger", fn, shmi_fmt_size(size, a, sizeof a), shmi_fmt_size(st.free, b, sizeof b),
                  shmi_fmt_size(st.largest_free, c, sizeof c), shmi_fmt_size(st.size, d, sizeof d),
                  shmi_fmt_size(st.used, e, sizeof e), suggest >> 30);
}

/* Collective: back [0, end) on every PE.  0, or NULL-worthy failure (reported). */
static int grow(const char *fn, size_t end, size_t size)
{
    char err[512];
    int rc = shmi_cuda_seg_grow(&gpu.seg, &shmi_g.boot, end, shmi_g.env.GPU_CHUNK, err,
                                sizeof err);
    if (rc == SHMI_ENOMEM) {
        report_oom(fn, size, err);
        return rc;
    }
    if (rc != SHMI_OK) shmi_fatal("%s: cannot grow the GPU heap: %s", fn, err);
    return SHMI_OK;
}

static void *gpu_alloc(const char *fn, enum shmi_coll_op op, size_t size, size_t align,
                       uint64_t a0, uint64_t a1, int zero)
{
    size_t off = 0;
    ensure_up(fn);
    int rc = shmi_alloc_alloc(gpu.alloc, size, align, &off);
    shmi_barrier_checked(fn, op, a0, a1, rc == SHMI_OK ? off : UINT64_MAX);
    if (rc != SHMI_OK) {
        report_oom(fn, size, NULL);
        return NULL;
    }
    if (grow(fn, off + size, size) != SHMI_OK) {
        shmi_alloc_free(gpu.alloc, off);
        return NULL;
    }
    char *p = (char *)gpu.seg.base + off;
    if (zero && shmi_cuda_zero(p, size) != SHMI_OK)
        shmi_fatal("%s: clearing %zu bytes of GPU memory at %p failed: %s", fn, size, (void *)p,
                   shmi_cuda_errstr());
    if (zero) shmi_barrier(); /* no PE writes into the block before it is cleared */
    return p;
}

void *shmi_gpu_malloc(const char *fn, size_t size, long hints)
{
    return gpu_alloc(fn, SHMI_OP_GPU_MALLOC, size, SHMI_ALLOC_MIN_ALIGN, size, (uint64_t)hints, 0);
}

void *shmi_gpu_calloc(const char *fn, size_t count, size_t size)
{
    size_t bytes;
    if (shmi_mul_overflows(count, size, &bytes)) return NULL; /* as shmem_calloc */
    return gpu_alloc(fn, SHMI_OP_GPU_CALLOC, bytes, SHMI_ALLOC_MIN_ALIGN, count, size, 1);
}

void *shmi_gpu_align(const char *fn, size_t alignment, size_t size)
{
    return gpu_alloc(fn, SHMI_OP_GPU_ALIGN, size, alignment, alignment, size, 0);
}

/* Offset of the live GPU block starting at ptr, or fatal saying what ptr is. */
static size_t live_block(const char *fn, const void *ptr)
{
    size_t off = (uintptr_t)ptr - gpu.seg.base;
    struct shmi_block_info bi;
    if (gpu.status != GPU_UP || off >= gpu.user_size || shmi_alloc_find(gpu.alloc, off, &bi))
        shmi_fatal("%s(%p): not an address in the GPU symmetric heap", fn, ptr);
    if (bi.live && bi.off == off) return off;
    if (bi.live)
        shmi_fatal("%s(%p): points %zu bytes into the GPU block at %p (%zu bytes): pass the "
                   "block's start address", fn, ptr, off - bi.off,
                   (void *)(gpu.seg.base + bi.off), bi.size);
    shmi_fatal("%s(%p): no live GPU block starts there: it was already freed (double free?) "
               "or never allocated", fn, ptr);
}

void shmi_gpu_free(const char *fn, void *ptr)
{
    size_t off = live_block(fn, ptr);
    shmi_barrier_checked(fn, SHMI_OP_GPU_FREE, off, 0, 0);
    shmi_alloc_free(gpu.alloc, off);
}

void *shmi_gpu_realloc(const char *fn, void *ptr, size_t size)
{
    size_t off = live_block(fn, ptr), newoff = off;
    struct shmi_block_info bi;
    shmi_alloc_find(gpu.alloc, off, &bi);
    shmi_barrier_checked(fn, SHMI_OP_GPU_REALLOC, off, size, 0);
    int rc = shmi_alloc_resize(gpu.alloc, off, size);
    if (rc == SHMI_EAGAIN)
        rc = shmi_alloc_alloc(gpu.alloc, size, SHMI_ALLOC_MIN_ALIGN, &newoff);
    if (rc != SHMI_OK) {
        shmi_barrier();
        report_oom(fn, size, NULL);
        return NULL; /* the old block is untouched, on every PE */
    }
    if (grow(fn, newoff + size, size) != SHMI_OK) {
        if (newoff != off) shmi_alloc_free(gpu.alloc, newoff);
        else shmi_alloc_resize(gpu.alloc, off, bi.size);
        return NULL;
    }
    if (newoff != off) {
        char *to = (char *)gpu.seg.base + newoff;
        if (shmi_cuda_copy(to, ptr, bi.size < size ? bi.size : size) != SHMI_OK)
            shmi_fatal("%s(%p, %zu): copying to the new GPU block failed: %s", fn, ptr, size,
                       shmi_cuda_errstr());
        shmi_alloc_free(gpu.alloc, off);
    }
    shmi_barrier();
    return (char *)gpu.seg.base + newoff;
}

void *shmi_gpu_ptr(const char *fn, const void *a, size_t n, int pe)
{
    size_t off = (uintptr_t)a - gpu.seg.base;
    if (off >= gpu.user_size || n > gpu.user_size - off)
        shmi_fatal("%s: %p with %zu bytes (pe=%d) runs %zu bytes past the end of the GPU "
                   "symmetric heap [%p, %p): shorten the transfer", fn, a, n, pe,
                   n - (gpu.user_size - off), (void *)gpu.seg.base,
                   (void *)(gpu.seg.base + gpu.user_size));
    return shmi_cuda_seg_peer(&gpu.seg, a, pe);
}
