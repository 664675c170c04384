/* cuda_copy.c - the copy engines: host-side copies between any memory the
 * GPU can address (UVA: host or device pointers), for the cuda transport
 * row (cuda.c) and stream-ordered RMA.  The driver is the one the memory
 * kind loaded (heap/cuda_drv.h); the heap itself moves no data. */
#include "transport/cuda.h"
#include "heap/cuda_drv.h"
#include "util/err.h"

#ifdef SYMHEAP_CUDA

/* Host-side copies go through a private non-blocking stream and are waited
 * for: never through the legacy default stream, which would wait for the
 * program's kernels in blocking streams, and so deadlock against a kernel
 * that waits for this very put (a device wait_until released by a host put
 * from another PE). */
static int sync_copies(void)
{
    CUresult r;
    return SHMI_CU(cuStreamSynchronize, (shmi_cuda_copies()));
}

int shmi_cuda_copy(void *dst, const void *src, size_t n)
{
    CUresult r;
    shmi_cuda_bind();
    if (SHMI_CU(cuMemcpyAsync, ((CUdeviceptr)dst, (CUdeviceptr)src, n, shmi_cuda_copies()))) return SHMI_ESYS;
    return sync_copies();
}

int shmi_cuda_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                     size_t count)
{
    CUresult r;
    CUDA_MEMCPY2D c = { 0 };
    c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.srcDevice = (CUdeviceptr)src;
    c.srcPitch = spitch;
    c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    c.dstDevice = (CUdeviceptr)dst;
    c.dstPitch = dpitch;
    c.WidthInBytes = elem;
    c.Height = count;
    shmi_cuda_bind();
    if (SHMI_CU(cuMemcpy2DAsync, (&c, shmi_cuda_copies()))) return SHMI_ESYS;
    return sync_copies();
}

int shmi_cuda_copy_async(void *dst, const void *src, size_t n, void *stream)
{
    CUresult r;
    shmi_cuda_bind();
    return SHMI_CU(cuMemcpyAsync, ((CUdeviceptr)dst, (CUdeviceptr)src, n, (CUstream)stream));
}

int shmi_cuda_global(void *obj, int library, const char *name, uint64_t *dptr, size_t *size)
{
    CUdeviceptr p = 0;
    size_t n = 0;
    shmi_cuda_bind();
    CUresult r = library ? shmi_cu.cuLibraryGetGlobal(&p, &n, (CUlibrary)obj, name)
                         : shmi_cu.cuModuleGetGlobal(&p, &n, (CUmodule)obj, name);
    if (r == CUDA_ERROR_NOT_FOUND) return SHMI_EINVAL;
    if (r != CUDA_SUCCESS) return shmi_cuda_fail(library ? "cuLibraryGetGlobal" : "cuModuleGetGlobal", r);
    *dptr = (uint64_t)p;
    *size = n;
    return SHMI_OK;
}

#else /* !SYMHEAP_CUDA: unreachable without a loaded driver; each fails as the kind does */

int shmi_cuda_copy(void *dst, const void *src, size_t n)
{ (void)dst; (void)src; (void)n; return SHMI_ENOTSUP; }
int shmi_cuda_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                     size_t count)
{ (void)dst; (void)dpitch; (void)src; (void)spitch; (void)elem; (void)count; return SHMI_ENOTSUP; }
int shmi_cuda_copy_async(void *dst, const void *src, size_t n, void *stream)
{ (void)dst; (void)src; (void)n; (void)stream; return SHMI_ENOTSUP; }
int shmi_cuda_global(void *obj, int library, const char *name, uint64_t *dptr, size_t *size)
{ (void)obj; (void)library; (void)name; (void)dptr; (void)size; return SHMI_ENOTSUP; }

#endif
