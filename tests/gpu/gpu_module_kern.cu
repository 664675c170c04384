/* gpu_module_kern.cu - device code of gpu_module: compiled whole-program into
 * a fatbin (tests/gpu/CMakeLists.txt), which gpu_module loads at run time as
 * a CUmodule and as a CUlibrary, as programs that load their kernels do. */
#include <nvshmem.h>

/* PE me stores tag + me into the right neighbour's slot, a barrier, then
 * reads its own slot (the left neighbour's store) into out[0]. */
extern "C" __global__ void k_mod_ring(int *slot, int tag, int *out)
{
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    nvshmem_int_p(slot, tag + me, (me + 1) % np);
    nvshmem_barrier_all();
    out[0] = *(volatile int *)slot;
    out[1] = np;
}
