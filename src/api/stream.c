/* stream.c - stream-ordered host calls (nvshmemx_*_on_stream, issue 7).
 *
 * They enqueue the copy that core/rma_device.c would make (cuMemcpyAsync on
 * the peer's mapping) on the caller's stream and return at once; later work
 * on that stream sees it.  On host memory there is nothing to order: they
 * are the blocking host calls. */
#include "core/mem_device.h"
#include "heap/mkind_cuda.h"
#include "util/err.h"

#include <shmem.h>
#include <shmemx.h>

static void async_copy(const char *fn, void *d, const void *s, size_t n, int pe, void *stream)
{
    if (shmi_cuda_copy_async(d, s, n, stream) != SHMI_OK)
        shmi_fatal("%s: enqueueing a copy of %zu bytes (pe=%d) on stream %p failed: %s", fn, n,
                   pe, stream, shmi_cuda_errstr());
}

void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                             struct CUstream_st *stream)
{
    static const char fn[] = "nvshmemx_putmem_on_stream";
    shmi_check_pe(fn, pe);
    if (nelems == 0) return;
    if (!shmi_gpu_has(dest) && !shmi_gpu_has(source))
    { /* host memory only: nothing to order on the stream */
        shmem_putmem(dest, source, nelems, pe);
        return;
    }
    async_copy(fn, shmi_sym_any(fn, "dest", dest, nelems, pe), source, nelems, pe, stream);
}

void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                             struct CUstream_st *stream)
{
    static const char fn[] = "nvshmemx_getmem_on_stream";
    shmi_check_pe(fn, pe);
    if (nelems == 0) return;
    if (!shmi_gpu_has(dest) && !shmi_gpu_has(source))
    {
        shmem_getmem(dest, source, nelems, pe);
        return;
    }
    async_copy(fn, dest, shmi_sym_any(fn, "source", source, nelems, pe), nelems, pe, stream);
}

void shmemx_barrier_all_on_stream(struct CUstream_st *stream)
{
    static const char fn[] = "nvshmemx_barrier_all_on_stream";
    shmi_check_running(fn);
    if (shmemx_gpu_available() && shmi_cuda_stream_sync(stream) != SHMI_OK)
        shmi_fatal("%s: waiting for stream %p failed: %s", fn, (void *)stream, shmi_cuda_errstr());
    shmem_barrier_all();
}
