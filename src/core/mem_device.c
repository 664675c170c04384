/* mem_device.c - the GPU symmetric heap: set-up, its memory kind for the one
 * allocation path (api/mem.c), and the state device code reads (issue 7;
 * docs/shmi_g.dev.md).
 *
 * The GPU heap is a second segment (transport/cuda.h) with its own
 * deterministic allocator (heap/alloc.h) over [0, user_size); the device
 * control block (barrier flags of the device API) sits above it, at the
 * segment's top, in memory backed from the start.  Allocation takes the
 * host heap's path (api/mem.c): every call is collective and checked across
 * PEs (SHMI_OP_GPU_*), same offset hence same address everywhere; a full heap
 * or a full GPU gives NULL on every PE and changes nothing.  This kind adds
 * growth (the segment is backed chunk by chunk) and copy-engine clears and
 * copies; GPU blocks carry no debug guards (the CPU cannot write them).
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
#include "core/team.h"
#include "heap/mkind_cuda.h"
#include "transport/cuda.h"
#include "util/err.h"
#include "util/num.h"

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device control region (shmemx_gpu.h): the world's block, the team
 * table, one block per team slot. */
#define GPU_CTL_SIZE ((size_t)SHMEMX_GPU_CTL_BLOCK * (2 + SHMI_TEAM_MAX))
_Static_assert(sizeof(shmemx_gpu_team_t) * SHMEMX_GPU_TEAMS <= SHMEMX_GPU_CTL_BLOCK,
               "the team table fits its block");
#define GPU_REG_MAX ((size_t)256 << 30)  /* addresses for registered buffers, at most */
#define MAX_PUBLISHERS 256

enum { GPU_UNTRIED, GPU_UP, GPU_NONE };


/* Registered before main by every CUDA unit: outside shmi_g, which
 * shmem_init clears. */
static shmemx_gpu_publish_t publishers[MAX_PUBLISHERS];
static int npublishers;

int shmi_gpu_register(shmemx_gpu_publish_t fn, unsigned version)
{
    if (version != SHMEMX_GPU_STATE_VERSION || !fn) return -1;
    if (npublishers == MAX_PUBLISHERS) return -1;
    publishers[npublishers++] = fn;
    if (shmi_g.dev.status == GPU_UP) fn(&shmi_g.dev.st);
    return 0;
}

static int publish_module(uint64_t dptr)
{
    return shmi_cuda_copy((void *)(uintptr_t)dptr, &shmi_g.dev.st, sizeof shmi_g.dev.st);
}

static void publish(void)
{
    for (int i = 0; i < npublishers; i++) publishers[i](&shmi_g.dev.st);
    for (int i = 0; i < shmi_g.dev.nmodules; i++)
        if (publish_module(shmi_g.dev.modules[i]) != SHMI_OK)
            shmi_log_warn("cannot copy the GPU heap's state into a loaded CUmodule/CUlibrary: %s: "
                      "its kernels' device calls will fail", shmi_cuda_errstr());
}

int shmi_gpu_module(void *obj, int library, int attach, char *err, size_t errlen)
{
    struct shmi_gpu_state *d = &shmi_g.dev;
    const char *what = library ? "library" : "module";
    if (!obj) {
        snprintf(err, errlen, "the %s is NULL: pass the handle cu%sLoad* gave", what,
                 library ? "Library" : "Module");
        return SHMI_EINVAL;
    }
    if (!shmi_g.env.GPU) {
        snprintf(err, errlen, "SHMEM_GPU=0: this job uses no GPU; unset it to use the %s", what);
        return SHMI_EINVAL;
    }
    if (shmi_cuda_load(shmi_g.me, &d->info, err, errlen) != SHMI_OK) return SHMI_EINVAL;
    uint64_t dptr = 0;
    size_t size = 0;
    int rc = shmi_cuda_global(obj, library, "shmi_dstate", &dptr, &size);
    if (rc == SHMI_EINVAL) {
        snprintf(err, errlen, "the %s has no symheap device state (shmi_dstate): compile its "
                 "CUDA code with symheap's nvshmem.h, whole-program (nvcc -cubin, -fatbin or "
                 "-ptx without -rdc; NVRTC without -rdc)", what);
        return rc;
    }
    if (rc != SHMI_OK) {
        snprintf(err, errlen, "cannot find the %s's device state: %s", what, shmi_cuda_errstr());
        return rc;
    }
    if (size != sizeof d->st) {
        snprintf(err, errlen, "the %s's device state is %zu bytes, this library's %zu: rebuild "
                 "it with this symheap's headers", what, size, sizeof d->st);
        return SHMI_ERANGE;
    }
    int i = 0;
    while (i < d->nmodules && d->modules[i] != dptr) i++;
    if (!attach) {
        if (i < d->nmodules) {
            d->modules[i] = d->modules[--d->nmodules];
            return SHMI_OK;
        }
        snprintf(err, errlen, "this %s's state (at 0x%llx) is not initialized: call the _init "
                 "form first (or it was finalized already)", what, (unsigned long long)dptr);
        return SHMI_EINVAL;
    }
    const int added = i == d->nmodules;
    if (added) {
        if (d->nmodules == SHMI_GPU_MODULES) {
            snprintf(err, errlen, "%d modules and libraries are initialized already, the most "
                     "there may be: finalize one that is no longer used", SHMI_GPU_MODULES);
            return SHMI_ENOMEM;
        }
        d->modules[d->nmodules++] = dptr;
    }
    if (d->status == GPU_UP && publish_module(dptr) != SHMI_OK) {
        snprintf(err, errlen, "cannot copy the GPU heap's state into the %s (at 0x%llx): %s",
                 what, (unsigned long long)dptr, shmi_cuda_errstr());
        if (added) d->nmodules--;
        return SHMI_ESYS;
    }
    return SHMI_OK;
}

/* ---- set-up ---------------------------------------------------------------- */

/* Collective: 0 when every PE has a usable GPU, else the first PE without
 * one (shmi_g.dev.why says why). */
static int every_pe_has_gpu(const char *fn)
{
    char err[512];
    int rc = SHMI_OK, bad = -1;
    if (!shmi_g.env.GPU) {
        rc = SHMI_ENOTSUP;
        snprintf(shmi_g.dev.why, sizeof shmi_g.dev.why, "SHMEM_GPU=0");
    } else if ((rc = shmi_cuda_load(shmi_g.me, &shmi_g.dev.info, err, sizeof err)) != SHMI_OK) {
        snprintf(shmi_g.dev.why, sizeof shmi_g.dev.why, "%s", err);
    }
    int *all = calloc((size_t)shmi_g.npes, sizeof *all);
    if (!all || shmi_boot_allgather(&shmi_g.boot, &rc, all, sizeof rc) != SHMI_OK)
        shmi_fatal("%s: lost contact with the other PEs while setting up the GPU heap", fn);
    for (int pe = 0; pe < shmi_g.npes && bad < 0; pe++)
        if (all[pe] != SHMI_OK) bad = pe;
    free(all);
    if (bad >= 0 && rc == SHMI_OK) snprintf(shmi_g.dev.why, sizeof shmi_g.dev.why, "PE %d has no usable GPU", bad);
    return bad;
}

/* ---- teams in kernels ------------------------------------------------------- */
static void *ctl_block(uint32_t block)
{
    return (void *)(uintptr_t)(shmi_g.dev.st.ctl + (uint64_t)block * SHMEMX_GPU_CTL_BLOCK);
}

static int team_write(int index)
{
    return shmi_cuda_copy((shmemx_gpu_team_t *)ctl_block(1) + index, &shmi_g.dev.teams[index],
                          sizeof shmi_g.dev.teams[index]);
}

void shmi_gpu_team_set(const char *fn, int index, struct shmem_team_s *t)
{
    if (index < 0 || index >= SHMEMX_GPU_TEAMS) return; /* the caller's pool is this size */
    shmemx_gpu_team_t e = { 0 };
    if (t && t->live && t->slot >= 2 && t->slot < SHMI_TEAM_MAX)
        e = (shmemx_gpu_team_t){ .size = t->size, .rank = t->rank, .start = t->start,
                                 .stride = t->stride, .block = 2 + (uint32_t)t->slot };
    shmi_g.dev.teams[index] = e;
    if (shmi_g.dev.status != GPU_UP) return;
    static char zero[SHMEMX_GPU_CTL_BLOCK]; /* never written */
    int rc = e.size ? shmi_cuda_copy(ctl_block(e.block), zero, sizeof zero) : SHMI_OK;
    if (rc == SHMI_OK) rc = team_write(index);
    if (rc != SHMI_OK)
        shmi_fatal("%s: cannot set up the team's device state on the GPU: %s", fn,
                   shmi_cuda_errstr());
    if (e.size) shmi_team_barrier(t); /* every member's block is zero */
}

static void create_heap(const char *fn)
{
    char err[512];
    /* [0, heap) the allocator's, [heap, high) registered buffers', then control */
    size_t gran = shmi_g.dev.info.granularity;
    size_t heap = (shmi_g.env.GPU_HEAP_SIZE + gran - 1) / gran * gran;
    size_t reg = heap < GPU_REG_MAX ? heap : GPU_REG_MAX;
    int rc = shmi_cuda_seg_create(&shmi_g.dev.seg, &shmi_g.boot, heap + reg + GPU_CTL_SIZE,
                                  GPU_CTL_SIZE, gran, err, sizeof err);
    if (rc != SHMI_OK) shmi_fatal("%s: cannot set up the GPU heap: %s", fn, err);
    shmi_g.gpu.size = heap;
    shmi_g.gpu.kind = &shmi_gpu_kind;
    if (shmi_alloc_create(&shmi_g.gpu.alloc, shmi_g.gpu.size) != SHMI_OK ||
        shmi_alloc_create(&shmi_g.dev.reg, shmi_g.dev.seg.high - heap) != SHMI_OK)
        shmi_fatal("%s: cannot create the GPU heap's allocator: out of host memory", fn);
    const struct shmi_cuda_seg *seg = &shmi_g.dev.seg;
    shmi_g.dev.st = (shmemx_gpu_state_t){ SHMEMX_GPU_STATE_VERSION, shmi_g.me, shmi_g.npes,
                                          shmi_g.dev.info.device, seg->base, seg->size,
                                          seg->slots, seg->base + seg->high };
    shmi_g.gpu.base = (char *)seg->base;
    /* host operations on this memory now go to the copy engines (tp.h) */
    struct shmi_tp_dev dev = { seg->base, seg->high, seg->slots, seg->size };
    if (shmi_tp_dev_attach(&shmi_g.tp, &dev) != SHMI_OK)
        shmi_fatal("%s: cannot set up the GPU heap: out of host memory", fn);
    shmi_g.dev.status = GPU_UP;
    /* teams split before the heap existed (their blocks are zero: new memory) */
    for (int i = 0; i < SHMEMX_GPU_TEAMS; i++)
        if (shmi_g.dev.teams[i].size && team_write(i) != SHMI_OK)
            shmi_fatal("%s: cannot write the device team table: %s", fn, shmi_cuda_errstr());
    publish();
    if (shmi_g.me == 0 && (shmi_g.env.INFO || shmi_g.env.VERSION)) {
        char a[32];
        const struct shmi_cuda_info *in = &shmi_g.dev.info;
        shmi_log_info("GPU heap: %s at %p on GPU %d (%s), %d PE(s), driver %d.%d",
                      shmi_fmt_size(shmi_g.gpu.size, a, sizeof a), (void *)seg->base,
                      in->device, in->name, shmi_g.npes, in->driver_version / 1000,
                      in->driver_version % 1000 / 10);
    }
}

/* Collective.  required: no GPU heap is fatal (saying why); else every PE
 * stays host-only.  Returns 1 when the GPU heap is up. */
static int gpu_up(const char *fn, int required)
{
    if (shmi_g.dev.status == GPU_UNTRIED) {
        if (every_pe_has_gpu(fn) < 0) {
            create_heap(fn);
        } else {
            shmi_g.dev.status = GPU_NONE;
            shmi_log_debug("no GPU heap: %s", shmi_g.dev.why);
        }
    }
    if (shmi_g.dev.status != GPU_UP && required)
        shmi_fatal("%s: GPU memory was asked for but there is no GPU heap: %s; drop the "
                   "GPU hint / SHMEM_MALLOC_GPU=1, or run where every PE sees a GPU",
                   fn, shmi_g.dev.why);
    return shmi_g.dev.status == GPU_UP;
}

void shmi_gpu_init(void)
{
    shmi_g.dev.status = GPU_UNTRIED; /* a new shmem_init (tests) starts over */
    if (!shmi_g.env.GPU || (npublishers == 0 && !shmi_g.env.MALLOC_GPU)) return;
    gpu_up("shmem_init", shmi_g.env.MALLOC_GPU);
}

void shmi_gpu_fini(void)
{
    if (shmi_g.dev.status != GPU_UP) return;
    shmi_cuda_device_sync(); /* this PE's kernels may still use the heap */
    shmi_tp_dev_detach(&shmi_g.tp);
    shmi_cuda_seg_destroy(&shmi_g.dev.seg);
    shmi_alloc_destroy(shmi_g.gpu.alloc);
    shmi_alloc_destroy(shmi_g.dev.reg);
    shmi_g.dev.reg = NULL;
    memset(&shmi_g.gpu, 0, sizeof shmi_g.gpu);
    shmi_g.dev.status = GPU_UNTRIED;
}

int shmi_gpu_up(void) { return shmi_g.dev.status == GPU_UP; }

/* ---- allocation -------------------------------------------------------------- */

int shmi_gpu_default(void) { return shmi_g.env.MALLOC_GPU; }

int shmi_gpu_hinted(const char *fn, long hints)
{
    if (hints & SHMEMX_MALLOC_DEVICE) return 1; /* gpu_up(required) at the allocation */
    if (!(hints & SHMEMX_MALLOC_DEVICE_AUTO)) return 0;
    if (shmi_g.dev.status == GPU_UP) return 1;
    if (shmi_g.dev.status == GPU_NONE || !shmi_g.env.GPU) return 0;
    /* AUTO: only programs with CUDA code, or a CUmodule/CUlibrary given to
     * nvshmemx_cumodule_init (or SHMEM_MALLOC_GPU=1), want the GPU; a C
     * program's nvshmem_malloc keeps host memory it can loop over. */
    if (npublishers == 0 && shmi_g.dev.nmodules == 0 && !shmi_g.env.MALLOC_GPU) return 0;
    shmi_barrier_checked(fn, SHMI_OP_GPU_INIT, 0, 0, 0);
    return gpu_up(fn, 0);
}

int shmi_gpu_hinted_soft(const char *fn, long hints)
{
    if (!(hints & SHMEMX_MALLOC_DEVICE)) return shmi_gpu_hinted(fn, hints);
    static int warned;
    if (shmi_g.dev.status == GPU_UP) return 1;
    if (shmi_g.dev.status == GPU_UNTRIED && shmi_g.env.GPU) {
        shmi_barrier_checked(fn, SHMI_OP_GPU_INIT, 0, 0, 0);
        if (gpu_up(fn, 0)) return 1;
    }
    if (!warned++ && shmi_g.me == 0)
        shmi_log_warn("%s: hints ask for GPU memory (SHMEMX_MALLOC_DEVICE), but there is no GPU "
                      "heap (%s): giving host memory, as the spec says hints are only advice",
                      fn, shmi_g.dev.why[0] ? shmi_g.dev.why : "SHMEM_GPU=0");
    return 0;
}

void shmi_gpu_ensure(const char *fn)
{
    if (shmi_g.dev.status == GPU_UP) return;
    shmi_check_running(fn);
    shmi_barrier_checked(fn, SHMI_OP_GPU_INIT, 0, 0, 0);
    gpu_up(fn, 1);
}

/* ---- the GPU memory kind (core/state.h): what the one allocation path of
 * api/mem.c asks of it -------------------------------------------------------- */

/* Collective: back [0, end) on every PE, growing by SHMEM_GPU_CHUNK. */
static int kind_grow(struct shmi_sheap *h, const char *fn, size_t end, size_t size)
{
    (void)h, (void)size;
    char err[512];
    int rc = shmi_cuda_seg_grow(&shmi_g.dev.seg, &shmi_g.boot, end, shmi_g.env.GPU_CHUNK, err,
                                sizeof err);
    if (rc == SHMI_ENOMEM) {
        if (shmi_g.me == 0) { /* the same on every PE: say it once */
            char a[32], b[32], c[32];
            shmi_cuda_meminfo(&shmi_g.dev.info.free_mem, &shmi_g.dev.info.total_mem);
            shmi_log_warn("%s: %s: returning NULL on every PE; the PEs of this GPU hold %s of "
                          "GPU heap each (%s of the GPU's %s); free blocks, use fewer PEs per "
                          "GPU, or lower SHMEM_GPU_CHUNK", fn, err,
                          shmi_fmt_size(shmi_cuda_seg_backed(&shmi_g.dev.seg), a, sizeof a),
                          shmi_fmt_size(shmi_g.dev.info.total_mem - shmi_g.dev.info.free_mem, b, sizeof b),
                          shmi_fmt_size(shmi_g.dev.info.total_mem, c, sizeof c));
        }
        return rc;
    }
    if (rc != SHMI_OK) shmi_fatal("%s: cannot grow the GPU heap: %s", fn, err);
    return SHMI_OK;
}

const struct shmi_sheap_kind shmi_gpu_kind = {
    .name = "GPU symmetric heap", .size_var = "SHMEM_GPU_HEAP_SIZE", .cpu = 0,
    .op_malloc = SHMI_OP_GPU_MALLOC, .grow = kind_grow, .zero = shmi_cuda_zero,
    .copy = shmi_cuda_copy, .errstr = shmi_cuda_errstr,
};

/* The registered buffer holding a (an address past the allocator's part). */
static int registered(const void *a, struct shmi_block_info *b)
{
    size_t off = (uintptr_t)a - shmi_g.dev.seg.base - shmi_g.gpu.size;
    return shmi_g.dev.reg && shmi_alloc_find(shmi_g.dev.reg, off, b) == SHMI_OK && b->live &&
           off - b->off < b->size;
}

void *shmi_gpu_ptr(const char *fn, const void *a, size_t n, int pe)
{
    size_t off = (uintptr_t)a - shmi_g.dev.seg.base, size = shmi_g.gpu.size;
    struct shmi_block_info b;
    if (off >= size && off < shmi_g.dev.seg.high) { /* a registered buffer's */
        if (!registered(a, &b))
            shmi_fatal("%s: %p (pe=%d) is in the GPU heap's range for registered buffers but "
                       "in none of them (unregistered already?): use an address "
                       "nvshmemx_buffer_register_symmetric returned", fn, a, pe);
        char *start = shmi_g.gpu.base + size + b.off;
        if ((size_t)((const char *)a - start) + n > b.size)
            shmi_fatal("%s: %p with %zu bytes (pe=%d) runs past the end of the registered "
                       "buffer [%p, %p): shorten the transfer", fn, a, n, pe, (void *)start,
                       (void *)(start + b.size));
    } else if (off >= size || n > size - off) {
        shmi_fatal("%s: %p with %zu bytes (pe=%d) runs %zu bytes past the end of the GPU "
                   "symmetric heap [%p, %p): shorten the transfer", fn, a, n, pe,
                   n - (size - off), (void *)shmi_g.gpu.base, (void *)(shmi_g.gpu.base + size));
    }
    return shmi_cuda_seg_peer(&shmi_g.dev.seg, a, pe);
}

void *shmi_sym_any(const char *fn, const char *what, const void *a, size_t n, int pe)
{
    /* the GPU heap and its registered buffers have their own translation;
     * anything else is host memory */
    if ((uintptr_t)a - shmi_g.dev.seg.base < shmi_g.dev.seg.high)
        return shmi_gpu_ptr(fn, a, n, pe);
    return shmi_sym(fn, what, a, n, pe);
}

/* ---- buffers of the program's own (nvshmemx_buffer_register_symmetric) -------------- */

void *shmi_gpu_adopt(const char *fn, void *buf, size_t size, char *err, size_t errlen)
{
    char a[32];
    shmi_gpu_ensure(fn);
    shmi_barrier_checked(fn, SHMI_OP_GPU_REGISTER, size, 0, 0); /* same size on every PE */
    size_t gran = shmi_g.dev.seg.gran, off;
    if (size == 0 || size % gran) {
        snprintf(err, errlen, "size %zu is not a positive multiple of the GPU's mapping "
                 "granularity (%s): allocate and register whole granules "
                 "(cuMemGetAllocationGranularity)", size, shmi_fmt_size(gran, a, sizeof a));
        return NULL;
    }
    if (shmi_alloc_alloc(shmi_g.dev.reg, size, gran, &off) != SHMI_OK) {
        struct shmi_alloc_stats st;
        shmi_alloc_stats(shmi_g.dev.reg, &st);
        snprintf(err, errlen, "no room for %zu more bytes: registered buffers hold %zu of the "
                 "%zu bytes of addresses kept for them (as large as SHMEM_GPU_HEAP_SIZE, at most "
                 "256 GiB): unregister buffers, or raise SHMEM_GPU_HEAP_SIZE", size, st.used,
                 st.size);
        return NULL;
    }
    size_t at = shmi_g.gpu.size + off;
    if (shmi_cuda_seg_adopt(&shmi_g.dev.seg, &shmi_g.boot, at, size, buf, err, errlen) != SHMI_OK) {
        shmi_alloc_free(shmi_g.dev.reg, off);
        return NULL;
    }
    return shmi_g.gpu.base + at;
}

int shmi_gpu_unadopt(const char *fn, void *p, size_t size, char *err, size_t errlen)
{
    struct shmi_block_info b;
    uintptr_t off = (uintptr_t)p - (uintptr_t)shmi_g.gpu.base;
    shmi_check_running(fn);
    shmi_barrier_checked(fn, SHMI_OP_GPU_UNREGISTER, off, size, 0);
    if (shmi_g.dev.status != GPU_UP || !registered(p, &b) ||
        (char *)p != shmi_g.gpu.base + shmi_g.gpu.size + b.off || b.size != size) {
        snprintf(err, errlen, "%p with %zu bytes is not a buffer that "
                 "nvshmemx_buffer_register_symmetric returned (with that size)", p, size);
        return SHMI_EINVAL;
    }
    /* every PE's kernels are done with it before anyone unmaps */
    shmi_cuda_device_sync();
    shmi_barrier();
    shmi_cuda_seg_remove(&shmi_g.dev.seg, shmi_g.gpu.size + b.off, b.size);
    shmi_alloc_free(shmi_g.dev.reg, b.off);
    return SHMI_OK;
}
