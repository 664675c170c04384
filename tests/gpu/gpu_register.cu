/* gpu_register.cu - nvshmemx_buffer_register_symmetric: each PE's own GPU
 * buffer (cuMemCreate, exportable as a POSIX fd) mapped at one symmetric
 * address, used by device RMA, host RMA (copy engines), a reduction on a
 * stream and nvshmem_ptr; unregistered and registered again (the address
 * range is reused), several at once; and the misuse cases, which return
 * NULL / an error on every PE with a message instead of stopping.
 *
 *   gpu_register            the normal cases
 *   gpu_register misuse     cudaMalloc memory, a size not a multiple of the
 *                           granularity, no fd handle type, unregistering twice */
#include "gpu_test.h"

#include <cuda.h>
#include <string.h>

/* The driver's entry points through the runtime, so that the test does not
 * link libcuda (on a machine without a driver it must reach its SKIP). */
#define DRV_FNS(X)                                                                        \
    X(cuGetErrorString) X(cuMemGetAllocationGranularity) X(cuMemCreate)                   \
    X(cuMemAddressReserve) X(cuMemMap) X(cuMemSetAccess) X(cuMemRelease) X(cuMemUnmap)    \
    X(cuMemAddressFree)
static struct {
#define DRV_FIELD(name) decltype(&::name) name;
    DRV_FNS(DRV_FIELD)
#undef DRV_FIELD
} drv;

static void load_driver(void)
{
    cudaDriverEntryPointQueryResult q;
#define DRV_LOAD(name)                                                                    \
    CK(cudaGetDriverEntryPointByVersion(#name, (void **)&drv.name, 12000, cudaEnableDefault, &q)); \
    EXPECT(q == cudaDriverEntryPointSuccess && drv.name, "no driver entry point %s", #name);
    DRV_FNS(DRV_LOAD)
#undef DRV_LOAD
}

#define CU(call)                                                                          \
    do {                                                                                  \
        CUresult r_ = (drv.call);                                                         \
        if (r_ != CUDA_SUCCESS) {                                                         \
            const char *s_ = "?";                                                         \
            drv.cuGetErrorString(r_, &s_);                                                \
            fprintf(stderr, "[pe %d] %s:%d: %s: %s\n", nvshmem_my_pe(), __FILE__,         \
                    __LINE__, #call, s_);                                                 \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static size_t granularity(int dev)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t g = 0;
    CU(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return g;
}

/* A buffer of the program's own, as NVIDIA's user-buffer example makes it. */
static void *user_buffer(int dev, size_t size, int fd_handle)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes =
        fd_handle ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
    CUmemGenericAllocationHandle h;
    CUdeviceptr p;
    CU(cuMemCreate(&h, size, &prop, 0));
    CU(cuMemAddressReserve(&p, size, 0, 0, 0));
    CU(cuMemMap(p, size, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = dev;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(p, size, &acc, 1));
    CU(cuMemRelease(h)); /* the mapping keeps it */
    return (void *)p;
}

static void release_buffer(void *p, size_t size)
{
    CU(cuMemUnmap((CUdeviceptr)p, size));
    CU(cuMemAddressFree((CUdeviceptr)p, size));
}

__global__ void fill(float *a, size_t n, float base)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] = base + (float)i;
}

/* Put our n floats into the next PE's copy of dst, from a kernel. */
__global__ void put_next(float *dst, const float *src, size_t n)
{
    int next = (nvshmem_my_pe() + 1) % nvshmem_n_pes();
    nvshmemx_float_put_block(dst, src, n, next);
}

static void check(const float *d, size_t n, float base, float step, const char *what)
{
    float *h = (float *)malloc(n * sizeof *h);
    CK(cudaMemcpy(h, d, n * sizeof *h, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        EXPECT(h[i] == base + step * (float)i, "%s: element %zu is %g, expected %g", what, i,
               (double)h[i], (double)(base + step * (float)i));
    free(h);
}

static void normal(int dev, size_t g)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int prev = (me + n - 1) % n;
    size_t size = 2 * g, nel = size / sizeof(float) / 2;
    void *mine = user_buffer(dev, size, 1);
    float *sym = (float *)nvshmemx_buffer_register_symmetric(mine, size, 0);
    EXPECT(sym != NULL, "register_symmetric(%p, %zu) returned NULL", mine, size);
    EXPECT(gpu_test_same_everywhere((unsigned long long)(uintptr_t)sym),
           "registered address %p differs between PEs", (void *)sym);
    float *src = sym, *dst = sym + nel;
    fill<<<8, 256>>>(src, nel, 1000.0f * (float)me);
    CK(cudaMemset(dst, 0, nel * sizeof(float)));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();

    /* device RMA into the next PE's registered buffer */
    put_next<<<1, 256>>>(dst, src, nel);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    check(dst, nel, 1000.0f * (float)prev, 1.0f, "device put into a registered buffer");

    /* the program's own mapping sees the same memory */
    check((float *)mine + nel, nel, 1000.0f * (float)prev, 1.0f, "the buffer at its own address");

    /* host RMA (copy engines) and nvshmem_ptr */
    nvshmem_barrier_all();
    nvshmem_float_get(dst, src, nel, prev);
    check(dst, nel, 1000.0f * (float)prev, 1.0f, "host get from a registered buffer");
    EXPECT(nvshmem_ptr(src, prev) != NULL, "nvshmem_ptr of a registered buffer is NULL");

    /* a reduction on a stream, as NVIDIA's user-buffer example does */
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    fill<<<8, 256, 0, st>>>(src, nel, 0.0f);
    nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, st);
    nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, nel, st);
    CK(cudaStreamSynchronize(st));
    check(dst, nel, 0.0f, (float)n, "sum_reduce_on_stream over registered buffers");
    CK(cudaStreamDestroy(st));

    /* a second buffer beside the first, then unregister both and register
     * again: the range is reused and the data are the new buffer's */
    void *mine2 = user_buffer(dev, g, 1);
    float *sym2 = (float *)nvshmemx_buffer_register_symmetric(mine2, g, 0);
    EXPECT(sym2 != NULL && sym2 != sym, "second register gave %p (first %p)", (void *)sym2,
           (void *)sym);
    EXPECT(nvshmemx_buffer_unregister_symmetric(sym, size) == 0, "unregister failed");
    EXPECT(nvshmemx_buffer_unregister_symmetric(sym2, g) == 0, "unregister 2 failed");
    release_buffer(mine2, g);
    CK(cudaMemset(mine, 0x7f, size));
    CK(cudaDeviceSynchronize());
    float *again = (float *)nvshmemx_buffer_register_symmetric(mine, size, 0);
    EXPECT(again == sym, "registering again gave %p, not the freed %p", (void *)again, (void *)sym);
    int seen = 0;
    CK(cudaMemcpy(&seen, again, sizeof seen, cudaMemcpyDeviceToHost));
    EXPECT(seen == 0x7f7f7f7f, "registered again, the buffer reads %#x", seen);

    /* left registered: nvshmem_finalize unmaps it, then we release it */
    nvshmem_barrier_all();
    nvshmem_finalize();
    release_buffer(mine, size);
    printf("[pe %d] gpu_register: ok (%d PEs, %zu-byte buffers at %p)\n", me, n, size,
           (void *)sym);
}

static void misuse(int dev, size_t g)
{
    int me = nvshmem_my_pe();
    void *p = NULL;
    /* cudaMalloc memory: not a VMM allocation */
    CK(cudaMalloc(&p, g));
    EXPECT(nvshmemx_buffer_register_symmetric(p, g, 0) == NULL, "cudaMalloc memory registered");
    CK(cudaFree(p));
    /* size not a multiple of the granularity (same on every PE) */
    void *u = user_buffer(dev, g, 1);
    EXPECT(nvshmemx_buffer_register_symmetric(u, g / 2, 0) == NULL, "half a granule registered");
    /* only PE 0's buffer lacks the fd handle type: NULL on every PE */
    void *v = user_buffer(dev, g, me != 0);
    EXPECT(nvshmemx_buffer_register_symmetric(v, g, 0) == NULL, "a buffer without an fd "
                                                                "handle type registered");
    /* the good one still works after the failures, and unregistering twice fails */
    void *s = nvshmemx_buffer_register_symmetric(u, g, 0);
    EXPECT(s != NULL, "register after failures returned NULL");
    EXPECT(nvshmemx_buffer_unregister_symmetric(s, g) == 0, "unregister failed");
    EXPECT(nvshmemx_buffer_unregister_symmetric(s, g) != 0, "unregistering twice succeeded");
    nvshmem_finalize();
    release_buffer(u, g);
    release_buffer(v, g);
    printf("[pe %d] gpu_register misuse: ok\n", me);
}

int main(int argc, char **argv)
{
    gpu_test_init();
    int dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaFree(0)); /* the runtime's context is the driver API's current one */
    load_driver();
    size_t g = granularity(dev);
    if (argc > 1 && strcmp(argv[1], "misuse") == 0)
        misuse(dev, g);
    else
        normal(dev, g);
    return 0;
}
