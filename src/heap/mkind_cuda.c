/* mkind_cuda.c - GPU memory through CUDA VMM, with the driver loaded at run
 * time (see mkind_cuda.h for the contract).
 *
 * Only the driver API is used, through function pointers obtained with
 * cuGetProcAddress from a dlopen'ed libcuda.so.1: the prototypes come from
 * the toolkit's cuda.h at build time (so the ABI is checked by the compiler),
 * the code comes from whatever driver the machine has, or none.  The entry
 * points are asked for at the version of our headers or of the driver,
 * whichever is older.
 *
 * Chunks: create() keeps the allocation handle in a small table keyed by the
 * exported fd, so that our own map() of it needs no import; peers' fds are
 * imported, mapped, and their handles released at once (the mapping holds
 * the memory).  Access is granted to our device only: the PEs of one GPU
 * (or of GPUs linked by NVLink/P2P) then load and store each other's chunks. */
#include "util/tls.h"
#include "heap/mkind_cuda.h"
#include "heap/cuda_drv.h"
#include "util/err.h"
#include "util/log.h"

#ifdef SYMHEAP_CUDA /* the build found a CUDA toolkit (its headers only) */
#include <cuda.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct shmi_cu shmi_cu;

static struct {
    int loaded;            /* 1 ok, <0 the failure code (sticky) */
    char why[400];         /* the failure's message */
    void *lib;
    CUcontext ctx;
    CUstream copies;       /* private, non-blocking: host-side copies */
    CUdevice dev;
    struct shmi_cuda_info info;
} g;

enum { MAX_OWN = 1024 };
static struct { int fd; CUmemGenericAllocationHandle h; } own[MAX_OWN];
static int nown;
static pthread_mutex_t own_lock = PTHREAD_MUTEX_INITIALIZER;

static SHMI_TLS_COLD char last_err[256];

/* Record a failed call; returns SHMI_ESYS. */
int shmi_cuda_fail(const char *call, CUresult r)
{
    const char *name = NULL, *text = NULL;
    if (shmi_cu.cuGetErrorName) shmi_cu.cuGetErrorName(r, &name);
    if (shmi_cu.cuGetErrorString) shmi_cu.cuGetErrorString(r, &text);
    snprintf(last_err, sizeof last_err, "%s: %s (%s)", call, name ? name : "CUDA error",
             text ? text : "no description");
    return SHMI_ESYS;
}
#define CU SHMI_CU

const char *shmi_cuda_errstr(void) { return last_err[0] ? last_err : "no error"; }
int shmi_cuda_ready(void) { return g.loaded == 1; }

static int resolve(int version, char *err, size_t errlen)
{
    typedef CUresult (*gpa2_t)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);
    typedef CUresult (*gpa1_t)(const char *, void **, int, cuuint64_t);
    gpa2_t gpa2 = (gpa2_t)dlsym(g.lib, "cuGetProcAddress_v2");
    gpa1_t gpa1 = (gpa1_t)dlsym(g.lib, "cuGetProcAddress");
    if (!gpa2 && !gpa1) {
        snprintf(err, errlen, "the CUDA driver in libcuda.so.1 is too old (no "
                 "cuGetProcAddress); symheap's GPU heap needs a driver for CUDA 12 or newer");
        return SHMI_ENOTSUP;
    }
#define SHMI_CU_RESOLVE(name)                                                             \
    {                                                                                     \
        void *p = NULL;                                                                   \
        CUdriverProcAddressQueryResult st;                                                \
        CUresult r = gpa2 ? gpa2(#name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &st)    \
                          : gpa1(#name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT);        \
        if (r != CUDA_SUCCESS || !p) {                                                    \
            snprintf(err, errlen, "the CUDA driver lacks %s (driver %d.%d); update the "  \
                     "NVIDIA driver", #name, version / 1000, version % 1000 / 10);        \
            return SHMI_ENOTSUP;                                                          \
        }                                                                                 \
        memcpy(&shmi_cu.name, &p, sizeof p);                                                   \
    }
    SHMI_CU_FNS(SHMI_CU_RESOLVE)
#undef SHMI_CU_RESOLVE
    return SHMI_OK;
}

static int open_driver(char *err, size_t errlen)
{
    g.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!g.lib) {
        snprintf(err, errlen, "no CUDA driver: dlopen(libcuda.so.1): %s; install the NVIDIA "
                 "driver or run on a machine with a GPU", dlerror());
        return SHMI_ENOTSUP;
    }
    typedef CUresult (*ver_t)(int *);
    ver_t ver = (ver_t)dlsym(g.lib, "cuDriverGetVersion");
    int v = 0;
    if (!ver || ver(&v) != CUDA_SUCCESS || v < 12000) {
        snprintf(err, errlen, "the CUDA driver supports CUDA %d.%d; the GPU heap needs 12.0 "
                 "or newer: update the NVIDIA driver", v / 1000, v % 1000 / 10);
        return SHMI_ENOTSUP;
    }
    g.info.driver_version = v;
    return resolve(v < CUDA_VERSION ? v : CUDA_VERSION, err, errlen);
}

static int pick_device(int local_rank, char *err, size_t errlen)
{
    CUresult r;
    if ((r = shmi_cu.cuInit(0)) != CUDA_SUCCESS) {
        shmi_cuda_fail("cuInit", r);
        snprintf(err, errlen, "no usable GPU: %s%s", last_err,
                 r == CUDA_ERROR_NO_DEVICE ? "; check CUDA_VISIBLE_DEVICES" : "");
        return SHMI_ENOTSUP;
    }
    int n = 0;
    if (CU(cuDeviceGetCount, (&n)) || n == 0) {
        snprintf(err, errlen, "no GPU visible to this process (cuDeviceGetCount = %d); check "
                 "CUDA_VISIBLE_DEVICES", n);
        return SHMI_ENOTSUP;
    }
    g.info.ndevices = n;
    CUcontext cur = NULL;
    if (CU(cuCtxGetCurrent, (&cur)) == 0 && cur) { /* the program chose its device */
        g.ctx = cur;
        if (CU(cuCtxGetDevice, (&g.dev))) goto driver_err;
    } else {
        if (CU(cuDeviceGet, (&g.dev, local_rank % n)) ||
            CU(cuDevicePrimaryCtxRetain, (&g.ctx, g.dev)) || CU(cuCtxSetCurrent, (g.ctx)))
            goto driver_err;
    }
    g.info.device = (int)g.dev;
    return SHMI_OK;
driver_err:
    snprintf(err, errlen, "cannot set up a CUDA context: %s", last_err);
    return SHMI_ESYS;
}

static int check_vmm(char *err, size_t errlen)
{
    CUresult r;
    int vmm = 0, fd = 0;
    CU(cuDeviceGetAttribute, (&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, g.dev));
    CU(cuDeviceGetAttribute, (&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, g.dev));
    shmi_cu.cuDeviceGetName(g.info.name, (int)sizeof g.info.name, g.dev);
    if (!vmm || !fd) {
        snprintf(err, errlen, "GPU %d (%s) lacks %s, which the GPU heap needs", (int)g.dev,
                 g.info.name, !vmm ? "virtual memory management (cuMemCreate)"
                                   : "POSIX fd export of memory handles");
        return SHMI_ENOTSUP;
    }
    CUmemAllocationProp prop = { 0 };
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)g.dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if (CU(cuMemGetAllocationGranularity, (&g.info.granularity, &prop,
                                           CU_MEM_ALLOC_GRANULARITY_MINIMUM))) {
        snprintf(err, errlen, "%s", last_err);
        return SHMI_ESYS;
    }
    shmi_cu.cuMemGetInfo(&g.info.free_mem, &g.info.total_mem);
    if (CU(cuStreamCreate, (&g.copies, CU_STREAM_NON_BLOCKING))) {
        snprintf(err, errlen, "%s", last_err);
        return SHMI_ESYS;
    }
    return SHMI_OK;
}

int shmi_cuda_load(int local_rank, struct shmi_cuda_info *info, char *err, size_t errlen)
{
    if (g.loaded == 0) {
        int rc = open_driver(g.why, sizeof g.why);
        if (rc == SHMI_OK) rc = pick_device(local_rank, g.why, sizeof g.why);
        if (rc == SHMI_OK) rc = check_vmm(g.why, sizeof g.why);
        g.loaded = rc == SHMI_OK ? 1 : rc;
    }
    if (g.loaded != 1) {
        snprintf(err, errlen, "%s", g.why);
        return g.loaded;
    }
    if (info) *info = g.info;
    return SHMI_OK;
}

/* Driver calls need a current context on the calling thread: make ours
 * current on threads that have none (never replace the program's). */
void shmi_cuda_bind(void)
{
    CUcontext cur = NULL;
    if (shmi_cu.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && !cur) shmi_cu.cuCtxSetCurrent(g.ctx);
}

int shmi_cuda_reserve(size_t size, size_t align, uintptr_t hint, uintptr_t *out)
{
    CUresult r;
    CUdeviceptr p = 0;
    shmi_cuda_bind();
    if (CU(cuMemAddressReserve, (&p, size, align, (CUdeviceptr)hint, 0))) return SHMI_ESYS;
    *out = (uintptr_t)p;
    return SHMI_OK;
}

void shmi_cuda_unreserve(uintptr_t addr, size_t size)
{
    if (addr && g.loaded == 1) shmi_cu.cuMemAddressFree((CUdeviceptr)addr, size);
}

/* ---- the memory kind ------------------------------------------------------ */

static int cuda_create(const char *name, size_t size, int *fd)
{
    (void)name;
    CUresult r;
    CUmemAllocationProp prop = { 0 };
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = (int)g.dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle h;
    int f = -1;
    shmi_cuda_bind();
    if (nown == MAX_OWN) {
        snprintf(last_err, sizeof last_err, "more than %d GPU heap chunks: raise "
                 "SHMEM_GPU_CHUNK", MAX_OWN);
        return SHMI_ENOMEM;
    }
    if (CU(cuMemCreate, (&h, size, &prop, 0)))
        return r == CUDA_ERROR_OUT_OF_MEMORY ? SHMI_ENOMEM : SHMI_ESYS;
    if (CU(cuMemExportToShareableHandle, (&f, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0))) {
        shmi_cu.cuMemRelease(h);
        return SHMI_ESYS;
    }
    pthread_mutex_lock(&own_lock);
    own[nown].fd = f;
    own[nown++].h = h;
    pthread_mutex_unlock(&own_lock);
    *fd = f;
    return SHMI_OK;
}

int shmi_cuda_adopt(void *ptr, size_t len, int *fd)
{
    CUresult r;
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop;
    CUdeviceptr start = 0;
    size_t range = 0;
    int f = -1;
    shmi_cuda_bind();
    if ((r = shmi_cu.cuMemRetainAllocationHandle(&h, ptr)) != CUDA_SUCCESS) {
        snprintf(last_err, sizeof last_err, "%p is not GPU memory mapped with the CUDA VMM API "
                 "(cuMemRetainAllocationHandle: %d): allocate it with cuMemCreate + "
                 "cuMemAddressReserve + cuMemMap, not cudaMalloc", ptr, (int)r);
        return SHMI_EINVAL;
    }
    int rc = SHMI_EINVAL;
    if ((r = shmi_cu.cuMemGetAllocationPropertiesFromHandle(&prop, h)) != CUDA_SUCCESS) {
        shmi_cuda_fail("cuMemGetAllocationPropertiesFromHandle", r);
    } else if (prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE || prop.location.id != (int)g.dev) {
        snprintf(last_err, sizeof last_err, "%p is memory of GPU %d, this PE's GPU is %d: "
                 "allocate it on the PE's GPU (prop.location.id)", ptr, prop.location.id,
                 (int)g.dev);
    } else if (!(prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        snprintf(last_err, sizeof last_err, "%p was allocated without "
                 "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in prop.requestedHandleTypes, so "
                 "the other PEs cannot map it: add it to cuMemCreate's properties", ptr);
    } else if (shmi_cu.cuMemGetAddressRange(&start, &range, (CUdeviceptr)ptr) == CUDA_SUCCESS &&
               start + range < (CUdeviceptr)ptr + len) {
        snprintf(last_err, sizeof last_err, "%p with %zu bytes runs past the end of its "
                 "mapped range [%p, +%zu): register the allocation with its own size", ptr,
                 len, (void *)start, range);
    } else if (nown == MAX_OWN) {
        snprintf(last_err, sizeof last_err, "more than %d GPU heap chunks", MAX_OWN);
        rc = SHMI_ENOMEM;
    } else if (!CU(cuMemExportToShareableHandle, (&f, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0))) {
        pthread_mutex_lock(&own_lock);
        own[nown].fd = f;
        own[nown++].h = h; /* our retained reference: shmi_cuda_drop releases it */
        pthread_mutex_unlock(&own_lock);
        *fd = f;
        return SHMI_OK;
    }
    shmi_cu.cuMemRelease(h);
    return rc;
}

static int own_handle(int fd, CUmemGenericAllocationHandle *h)
{
    int found = 0;
    pthread_mutex_lock(&own_lock);
    for (int i = 0; i < nown && !found; i++)
        if (own[i].fd == fd) {
            *h = own[i].h;
            found = 1;
        }
    pthread_mutex_unlock(&own_lock);
    return found;
}

static int cuda_map(int fd, size_t size, void *at, int fixed, void **out)
{
    CUresult r;
    CUmemGenericAllocationHandle h;
    int imported = 0;
    if (!fixed || !at) {
        snprintf(last_err, sizeof last_err, "cuda memory kind: map needs a reserved address");
        return SHMI_EINVAL;
    }
    shmi_cuda_bind();
    if (!own_handle(fd, &h)) {
        if (CU(cuMemImportFromShareableHandle, (&h, (void *)(intptr_t)fd,
                                                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)))
            return SHMI_ESYS;
        imported = 1;
    }
    int rc = CU(cuMemMap, ((CUdeviceptr)at, size, 0, h, 0));
    if (imported) shmi_cu.cuMemRelease(h); /* the mapping keeps the memory */
    if (rc) return rc;
    CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, (int)g.dev },
                            CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    if (CU(cuMemSetAccess, ((CUdeviceptr)at, size, &acc, 1))) {
        shmi_cu.cuMemUnmap((CUdeviceptr)at, size);
        return SHMI_ESYS;
    }
    *out = at;
    return SHMI_OK;
}

static void cuda_unmap(void *addr, size_t size)
{
    if (g.loaded == 1) {
        shmi_cuda_bind();
        shmi_cu.cuMemUnmap((CUdeviceptr)addr, size);
    }
}

const struct shmi_mkind_ops shmi_mkind_cuda = { "cuda", cuda_create, cuda_map, cuda_unmap };

void shmi_cuda_drop(int fd)
{
    pthread_mutex_lock(&own_lock);
    for (int i = 0; i < nown; i++)
        if (own[i].fd == fd) {
            shmi_cu.cuMemRelease(own[i].h);
            own[i] = own[--nown];
            break;
        }
    pthread_mutex_unlock(&own_lock);
    if (fd >= 0) close(fd);
}

/* Host-side operations go through a private non-blocking stream and are
 * waited for (transport/cuda_copy.c says why). */
CUstream shmi_cuda_copies(void) { return g.copies; }

int shmi_cuda_zero(void *dst, size_t n)
{
    CUresult r;
    shmi_cuda_bind();
    if (CU(cuMemsetD8Async, ((CUdeviceptr)dst, 0, n, g.copies))) return SHMI_ESYS;
    return CU(cuStreamSynchronize, (g.copies));
}

int shmi_cuda_stream_sync(void *stream)
{
    CUresult r;
    shmi_cuda_bind();
    return CU(cuStreamSynchronize, ((CUstream)stream));
}

int shmi_cuda_device_sync(void)
{
    CUresult r;
    shmi_cuda_bind();
    return CU(cuCtxSynchronize, ());
}

int shmi_cuda_meminfo(size_t *free_bytes, size_t *total_bytes)
{
    CUresult r;
    shmi_cuda_bind();
    return CU(cuMemGetInfo, (free_bytes, total_bytes));
}

#else /* !SYMHEAP_CUDA: the kind exists and says why it cannot work */

#include <stdio.h>

static int none_create(const char *name, size_t size, int *fd)
{
    (void)name; (void)size; (void)fd;
    return SHMI_ENOTSUP;
}
static int none_map(int fd, size_t size, void *at, int fixed, void **out)
{
    (void)fd; (void)size; (void)at; (void)fixed; (void)out;
    return SHMI_ENOTSUP;
}
static void none_unmap(void *addr, size_t size) { (void)addr; (void)size; }
const struct shmi_mkind_ops shmi_mkind_cuda = { "cuda", none_create, none_map, none_unmap };

int shmi_cuda_load(int local_rank, struct shmi_cuda_info *info, char *err, size_t errlen)
{
    (void)local_rank; (void)info;
    snprintf(err, errlen, "this symheap was built without CUDA (no CUDA toolkit was found at "
             "configure time); rebuild it on a machine with nvcc to use GPU memory");
    return SHMI_ENOTSUP;
}
int shmi_cuda_ready(void) { return 0; }
const char *shmi_cuda_errstr(void) { return "symheap was built without CUDA"; }
/* Unreachable without shmi_cuda_load: each fails like the kind itself. */
int shmi_cuda_reserve(size_t size, size_t align, uintptr_t hint, uintptr_t *out)
{ (void)size; (void)align; (void)hint; (void)out; return SHMI_ENOTSUP; }
void shmi_cuda_unreserve(uintptr_t addr, size_t size) { (void)addr; (void)size; }
void shmi_cuda_drop(int fd) { (void)fd; }
int shmi_cuda_adopt(void *ptr, size_t len, int *fd) { (void)ptr, (void)len, (void)fd; return SHMI_ENOTSUP; }
int shmi_cuda_zero(void *dst, size_t n) { (void)dst; (void)n; return SHMI_ENOTSUP; }
int shmi_cuda_stream_sync(void *stream) { (void)stream; return SHMI_ENOTSUP; }
int shmi_cuda_device_sync(void) { return SHMI_ENOTSUP; }
int shmi_cuda_meminfo(size_t *free_bytes, size_t *total_bytes)
{ (void)free_bytes; (void)total_bytes; return SHMI_ENOTSUP; }

#endif
