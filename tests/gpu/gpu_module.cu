/* gpu_module.cu - nvshmemx_cumodule_init/_finalize and nvshmemx_culibrary_
 * init/_finalize (issue 14), 1..N PEs: kernels in a fatbin the program loads
 * itself (argv[1], built from gpu_module_kern.cu) reach the GPU heap once
 * the module's state is initialized; the status codes of misuse (finalize
 * without init; a module without symheap device code). */
#include "gpu_test.h"

#include <cuda.h>
#include <dlfcn.h>

/* The driver calls of this test, from libcuda.so.1 by dlopen after the GPU
 * check (linking it would stop the test on machines without a driver
 * before it can skip).  libsymheap needs no -lcuda for the module routines. */
#define DRV_FNS(X)                                                                        \
    X(cuInit) X(cuGetErrorString) X(cuModuleLoad) X(cuModuleGetFunction)                  \
    X(cuModuleUnload) X(cuLaunchKernel) X(cuFuncGetModule) X(cuLibraryLoadFromFile)       \
    X(cuLibraryGetKernel) X(cuKernelGetFunction) X(cuLibraryUnload)
#define DRV_PTR(f) static decltype(&f) p_##f;
DRV_FNS(DRV_PTR)
static void load_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    EXPECT(h, "dlopen(libcuda.so.1): %s", dlerror());
#define DRV_LOAD(f) EXPECT((*(void **)&p_##f = dlsym(h, #f)) != NULL, "libcuda.so.1 lacks %s", #f);
    DRV_FNS(DRV_LOAD)
}

#define CU(call)                                                                          \
    do {                                                                                  \
        CUresult r_ = (p_##call);                                                         \
        if (r_ != CUDA_SUCCESS) {                                                         \
            const char *s_ = "?";                                                         \
            p_cuGetErrorString(r_, &s_);                                                  \
            fprintf(stderr, "[pe %d] %s:%d: %s: %s\n", nvshmem_my_pe(), __FILE__,         \
                    __LINE__, #call, s_);                                                 \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

__global__ void k_local(int *p) { p[0] = 1; } /* this program's own module */

static void ring(CUfunction f, int *slot, int tag, int *out)
{
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    void *args[] = { &slot, &tag, &out };
    nvshmem_barrier_all();
    CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, NULL));
    CK(cudaDeviceSynchronize());
    int h[2];
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == tag + (me + np - 1) % np && h[1] == np,
           "kernel of a loaded module, tag %d: slot %d, n_pes %d; want %d, %d", tag, h[0], h[1],
           tag + (me + np - 1) % np, np);
}

int main(int argc, char **argv)
{
    EXPECT(argc == 2, "usage: gpu_module FATBIN");
    gpu_test_init();
    int me = nvshmem_my_pe();
    int *slot = (int *)nvshmem_calloc(1, sizeof(int)), *out;
    EXPECT(slot, "nvshmem_calloc failed");
    CK(cudaMalloc(&out, 2 * sizeof(int)));
    load_driver();
    CU(cuInit(0));

    CUmodule mod;
    CU(cuModuleLoad(&mod, argv[1]));
    EXPECT(nvshmemx_cumodule_finalize(mod) == NVSHMEMX_ERROR_INVALID_VALUE,
           "finalize before init: not NVSHMEMX_ERROR_INVALID_VALUE");
    EXPECT(nvshmemx_cumodule_init(mod) == 0, "nvshmemx_cumodule_init failed");
    CUfunction f;
    CU(cuModuleGetFunction(&f, mod, "k_mod_ring"));
    ring(f, slot, 1000, out);
    EXPECT(nvshmemx_cumodule_finalize(mod) == 0, "nvshmemx_cumodule_finalize failed");
    CU(cuModuleUnload(mod));

#if CUDA_VERSION >= 12000
    CUlibrary lib;
    CU(cuLibraryLoadFromFile(&lib, argv[1], NULL, NULL, 0, NULL, NULL, 0));
    EXPECT(nvshmemx_culibrary_init(lib) == 0, "nvshmemx_culibrary_init failed");
    CUkernel k;
    CU(cuLibraryGetKernel(&k, lib, "k_mod_ring"));
    CUfunction kf;
    CU(cuKernelGetFunction(&kf, k)); /* the kernel in the current context */
    ring(kf, slot, 2000, out);
    EXPECT(nvshmemx_culibrary_finalize(lib) == 0, "nvshmemx_culibrary_finalize failed");
    EXPECT(nvshmemx_culibrary_finalize(lib) == NVSHMEMX_ERROR_INVALID_VALUE,
           "second finalize: not NVSHMEMX_ERROR_INVALID_VALUE");
    CU(cuLibraryUnload(lib));
#endif

    /* The program's own module has its state from the constructors, but
     * through the runtime's registration, not a name the driver can find:
     * a module without symheap device state is NVSHMEMX_ERROR_INVALID_VALUE. */
    k_local<<<1, 1>>>(out);
    CK(cudaDeviceSynchronize());
    CUfunction lf;
    CK(cudaGetFuncBySymbol(&lf, (const void *)k_local));
    CUmodule own;
    CU(cuFuncGetModule(&own, lf));
    int rc = nvshmemx_cumodule_init(own);
    EXPECT(rc == NVSHMEMX_ERROR_INVALID_VALUE || rc == 0,
           "cumodule_init of the program's own module: %d", rc);
    if (rc == 0) EXPECT(nvshmemx_cumodule_finalize(own) == 0, "finalize of own module");

    CK(cudaFree(out));
    nvshmem_free(slot);
    nvshmem_finalize();
    if (me == 0) printf("gpu_module: CUmodule and CUlibrary state initialized, kernels ran\n");
    return 0;
}
