/* cuda_drv.h - the CUDA driver as the "cuda" memory kind loaded it
 * (mkind_cuda.c), for the layer above that moves data with it (the copy
 * engines of transport/cuda_copy.c): the entry points, the private stream of
 * host-side operations, making our context current, recording a failure for
 * shmi_cuda_errstr.  Only in sources compiled with SYMHEAP_CUDA (cuda.h), and
 * only after shmi_cuda_load succeeded. */
#ifndef SHMI_CUDA_DRV_H
#define SHMI_CUDA_DRV_H
#ifdef SYMHEAP_CUDA
#include <cuda.h>

/* Driver entry points we use.  X(name): name as cuda.h spells the call (it
 * may be a macro for a _v2 symbol; #name is the base name cuGetProcAddress
 * wants). */
#define SHMI_CU_FNS(X)                                                                    \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)                    \
    X(cuDeviceGetAttribute) X(cuDeviceGetName) X(cuDevicePrimaryCtxRetain)                \
    X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuCtxSynchronize)           \
    X(cuGetErrorName) X(cuGetErrorString) X(cuMemGetInfo)                                 \
    X(cuMemGetAllocationGranularity) X(cuMemAddressReserve) X(cuMemAddressFree)           \
    X(cuMemCreate) X(cuMemRelease) X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess)            \
    X(cuMemExportToShareableHandle) X(cuMemImportFromShareableHandle)                     \
    X(cuMemcpyAsync) X(cuMemcpy2DAsync) X(cuMemsetD8Async) X(cuStreamSynchronize)            \
    X(cuStreamCreate) X(cuMemRetainAllocationHandle) X(cuMemGetAllocationPropertiesFromHandle) \
    X(cuMemGetAddressRange) X(cuModuleGetGlobal) X(cuLibraryGetGlobal)

struct shmi_cu {
#define SHMI_CU_FIELD(name) __typeof__(name) *name;
    SHMI_CU_FNS(SHMI_CU_FIELD)
#undef SHMI_CU_FIELD
};
extern struct shmi_cu shmi_cu;

/* The private non-blocking stream of host-side operations. */
CUstream shmi_cuda_copies(void);
/* Make our context current on a thread that has none (never replace the
 * program's). */
void shmi_cuda_bind(void);
/* Record a failed call for shmi_cuda_errstr; returns SHMI_ESYS. */
int shmi_cuda_fail(const char *call, CUresult r);
/* 0, or the failure recorded: `CUresult r;` in scope. */
#define SHMI_CU(call, args) ((r = shmi_cu.call args) == CUDA_SUCCESS ? 0 : shmi_cuda_fail(#call, r))

#endif
#endif
