/* stream.c - stream-ordered host calls (nvshmemx_*_on_stream, issue 7).
 *
 * On GPU memory they enqueue the copy engines' copy (cuMemcpyAsync on the
 * peer's mapping, the transport's put_stream/get_stream) on the caller's
 * stream and return at once; later work on that stream sees it.  On host
 * memory there is nothing to order: they are the blocking host calls. */
#include "core/mem_device.h"
#include "heap/mkind_cuda.h"
#include "util/err.h"

#include <shmem.h>
#include <shmemx.h>

/* Enqueued on the stream by a route that can (the copy engines); on any
 * other route there is nothing to order on a stream: the blocking call. */
void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                             struct CUstream_st *stream)
{
    static const char fn[] = "nvshmemx_putmem_on_stream";
    shmi_check_pe(fn, pe);
    if (nelems == 0) return;
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, dest, source, pe);
    if (SHMI_TP_DIRECT(via) || !via->put_stream) {
        shmem_putmem(dest, source, nelems, pe);
        return;
    }
    shmi_sym_any(fn, "dest", dest, nelems, pe);
    int rc = via->put_stream(&shmi_g.tp, dest, source, nelems, pe, stream);
    if (rc) shmi_tp_fail(fn, via, pe, rc);
}

void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                             struct CUstream_st *stream)
{
    static const char fn[] = "nvshmemx_getmem_on_stream";
    shmi_check_pe(fn, pe);
    if (nelems == 0) return;
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, source, dest, pe);
    if (SHMI_TP_DIRECT(via) || !via->get_stream) {
        shmem_getmem(dest, source, nelems, pe);
        return;
    }
    shmi_sym_any(fn, "source", source, nelems, pe);
    int rc = via->get_stream(&shmi_g.tp, dest, source, nelems, pe, stream);
    if (rc) shmi_tp_fail(fn, via, pe, rc);
}

void shmemx_barrier_all_on_stream(struct CUstream_st *stream)
{
    static const char fn[] = "nvshmemx_barrier_all_on_stream";
    shmi_check_running(fn);
    if (shmemx_gpu_available() && shmi_cuda_stream_sync(stream) != SHMI_OK)
        shmi_fatal("%s: waiting for stream %p failed: %s", fn, (void *)stream, shmi_cuda_errstr());
    shmem_barrier_all();
}
