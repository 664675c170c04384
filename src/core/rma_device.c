/* rma_device.c - host-side puts, gets and broadcasts on GPU memory (issue 7).
 *
 * The CPU cannot load or store GPU memory, so where rma.c would memcpy into
 * a peer's mapping, these routines copy with the GPU's copy engines
 * (cuMemcpy on the peer's mapping in our GPU address space; with unified
 * addressing either side may be host or GPU memory).  The blocking forms
 * wait for the copy, so on return it is complete and visible to every PE:
 * shmem_quiet and the barriers need nothing more.  Host-initiated copies
 * cost a driver call (~10 us); kernels use the device API instead.
 *
 * The stream-ordered forms (api/stream.c) enqueue the same copy on the
 * caller's stream. */
#include "core/mem_device.h"
#include "heap/mkind_cuda.h"
#include "util/err.h"

#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>

void *shmi_sym_any(const char *fn, const char *what, const void *a, size_t n, int pe)
{
    return shmi_gpu_has(a) ? shmi_gpu_ptr(fn, a, n, pe) : shmi_sym(fn, what, a, n, pe);
}

static void copy_or_die(const char *fn, void *d, const void *s, size_t n, int pe)
{
    if (shmi_cuda_copy(d, s, n) != SHMI_OK)
        shmi_fatal("%s: copying %zu bytes %p -> %p (pe=%d) failed: %s: is the local buffer "
                   "valid GPU or host memory?", fn, n, s, d, pe, shmi_cuda_errstr());
}

void shmi_gpu_put(const char *fn, void *dest, const void *src, size_t n, int pe)
{
    copy_or_die(fn, shmi_sym_any(fn, "dest", dest, n, pe), src, n, pe);
}

void shmi_gpu_get(const char *fn, void *dest, const void *src, size_t n, int pe)
{
    copy_or_die(fn, dest, shmi_sym_any(fn, "source", src, n, pe), n, pe);
}

void shmi_gpu_blocks(const char *fn, char *dest, const char *src, size_t dstep, size_t sstep,
                     size_t width, size_t nblocks, int pe, int is_put)
{
    if (nblocks == 0 || width == 0) return;
    size_t span = (is_put ? dstep : sstep) * (nblocks - 1) + width;
    char *sym = shmi_sym_any(fn, is_put ? "dest" : "source", is_put ? dest : src, span, pe);
    if (shmi_cuda_copy2d(is_put ? sym : dest, dstep, is_put ? src : sym, sstep, width,
                         nblocks) != SHMI_OK)
        shmi_fatal("%s: strided copy of %zu blocks of %zu bytes (pe=%d) failed: %s", fn,
                   nblocks, width, pe, shmi_cuda_errstr());
}

_Noreturn void shmi_gpu_refuse(const char *fn, const char *what, const void *addr)
{
    shmi_fatal("%s: %s=%p is GPU memory, which host atomics and waits cannot reach: do it in "
               "a kernel with the device API (nvshmem.h in CUDA code, e.g. "
               "nvshmem_int_atomic_add, nvshmem_int_wait_until), or wait with "
               "nvshmemx_..._wait_until_on_stream", fn, what, addr);
}
