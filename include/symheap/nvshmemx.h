/* nvshmemx.h - NVSHMEM-style extensions of symheap.
 *
 * NVSHMEM programs usually include both nvshmem.h and nvshmemx.h; this one
 * adds the extension names, and symheap's own shmemx_ extensions
 * (shmemx_heap_info ...), which keep their shmemx_ names.  The device-side
 * extensions (nvshmemx_putmem_block ...) come with nvshmem.h in CUDA code;
 * the stream-ordered host calls (issue 7, docs/gpu.md) are below. */
#ifndef SYMHEAP_NVSHMEMX_H
#define SYMHEAP_NVSHMEMX_H

#include "nvshmem.h"
#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Initialization with attributes -----------------------------------------
 * nvshmemx_init_attr(flags, attr), NVSHMEM's types and layouts:
 *   0, NVSHMEMX_INIT_WITH_SHMEM  as nvshmem_init (OpenSHMEM is symheap itself;
 *                                init/finalize pairs nest);
 *   NVSHMEMX_INIT_WITH_UNIQUEID  rank myrank of nranks with an ID from
 *                                nvshmemx_get_uniqueid, handed around by the
 *                                program: no launcher needed (torchrun, MPI,
 *                                fork); as shmemx_init_uniqueid (shmemx.h);
 *   NVSHMEMX_INIT_WITH_MPI_COMM  the ranks of *attr->mpi_comm (any MPI
 *                                communicator) are the PEs; as
 *                                shmemx_init_mpi_comm (shmemx.h).
 * Failures print one line naming the call and exit non-zero, as NVSHMEM's
 * nvshmemx_init_attr does. */
enum flags {
    NVSHMEMX_INIT_THREAD_PES = 1,
    NVSHMEMX_INIT_WITH_MPI_COMM = 1 << 1,
    NVSHMEMX_INIT_WITH_SHMEM = 1 << 2,
    NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3,
    NVSHMEMX_INIT_MAX = INT_MIN /* bit 31 */
};

typedef struct {
    int version;
    char internal[124];
} nvshmemx_uniqueid_v1;
typedef nvshmemx_uniqueid_v1 nvshmemx_uniqueid_t;
typedef struct {
    int version;
    nvshmemx_uniqueid_v1 *id;
    int myrank;
    int nranks;
} nvshmemx_uniqueid_args_v1;
typedef nvshmemx_uniqueid_args_v1 nvshmemx_uniqueid_args_t;
typedef struct {
    int version;
    nvshmemx_uniqueid_args_t uid_args;
    int cuda_device_id;
    char content[92];
} nvshmemx_init_args_v2;
typedef nvshmemx_init_args_v2 nvshmemx_init_args_t;
typedef struct {
    int version;
    void *mpi_comm; /* an MPI_Comm *, for NVSHMEMX_INIT_WITH_MPI_COMM */
    nvshmemx_init_args_t args;
} nvshmemx_init_attr_v2;
typedef nvshmemx_init_attr_v2 nvshmemx_init_attr_t;

#define NVSHMEM_INIT_ATTR_VER 1
#define NVSHMEM_INIT_ARGS_V2_IDENTIFIER ((2 << 16) + (int)sizeof(nvshmemx_init_args_t))
#define NVSHMEM_INIT_ATTR_V2_IDENTIFIER ((2 << 16) + (int)sizeof(nvshmemx_init_attr_t))
#define NVSHMEM_INIT_ATTR_V1_IDENTIFIER ((1 << 16) + (int)sizeof(nvshmemx_init_attr_t))
#define NVSHMEMX_UNIQUEID_INITIALIZER { (1 << 16) + (int)sizeof(nvshmemx_uniqueid_t), { 0 } }
#define NVSHMEMX_UNIQUEID_ARGS_INITIALIZER \
    { (1 << 16) + (int)sizeof(nvshmemx_uniqueid_args_t), NULL, -1, -1 }
#define NVSHMEMX_INIT_ARGS_V2_INITIALIZER \
    { NVSHMEM_INIT_ARGS_V2_IDENTIFIER, NVSHMEMX_UNIQUEID_ARGS_INITIALIZER, -1, { 0 } }
#define NVSHMEMX_INIT_ATTR_INITIALIZER \
    { NVSHMEM_INIT_ATTR_V2_IDENTIFIER, NULL, NVSHMEMX_INIT_ARGS_V2_INITIALIZER }

/* Set the version fields of an attr (a struct, not a pointer) as NVSHMEM does. */
#define nvshmemx_init_init_attr_ver_only(attr)                                      \
    do {                                                                            \
        (attr).version = (1 << 16) + (int)sizeof(nvshmemx_init_attr_t);             \
        (attr).args.version = (1 << 16) + (int)sizeof(nvshmemx_init_args_t);        \
        (attr).args.uid_args.version = (1 << 16) + (int)sizeof(nvshmemx_uniqueid_args_t); \
    } while (0)

/* Initialize as flags and attr say (above); 0, or the program has stopped. */
int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr);
static inline int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attributes)
{ return nvshmemx_hostlib_init_attr(flags, attributes); }
static inline void nvshmemx_hostlib_finalize(void) { nvshmemi_finalize(); }
/* A new ID (any process may make it; the program hands it to the others). */
int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *uniqueid);
/* Fill attr's unique-ID arguments (id is kept by address, as NVSHMEM does). */
int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks,
                                    const nvshmemx_uniqueid_t *uniqueid,
                                    nvshmemx_init_attr_t *attr);
int nvshmemx_set_attr_mpi_comm_args(void *mpi_comm, nvshmemx_init_attr_t *nvshmem_attr);
/* NVSHMEM_STATUS_IS_INITIALIZED between init and the last finalize, else
 * NVSHMEM_STATUS_NOT_INITIALIZED. */
static inline int nvshmemx_init_status(void)
{
    int initialized = 0;
    shmem_query_initialized(&initialized);
    return initialized ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}

/* ---- Local buffers for RMA -------------------------------------------------------
 * Any local memory may be the local side of host RMA here, so registration
 * only records the range: 0, or NVSHMEMX_ERROR_INVALID_VALUE (with a message)
 * for NULL / zero length, a range that overlaps a registered one, or
 * unregistering an address that does not start a registered range, as
 * NVSHMEM does.  unregister_all forgets every range (also done by the last
 * finalize).  Thread-safe. */
int nvshmemx_buffer_register(void *addr, size_t length);
int nvshmemx_buffer_unregister(void *addr);
void nvshmemx_buffer_unregister_all(void);
/* Collective: map each PE's own GPU buffer (a cuMemCreate allocation on the
 * PE's GPU, mapped at buf_ptr, with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
 * in its requested handle types; size a multiple of the allocation
 * granularity and the same on every PE) at one symmetric address, so that
 * RMA, signals and collectives (host, stream and device) use it like
 * nvshmem_malloc memory.  flags: 0.  Returns that address, or NULL on every
 * PE with a message.  Unregister (collective, same pointer and size) before
 * releasing the buffer; nvshmem_finalize unmaps what is left. */
void *nvshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags);
int nvshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size);

/* ---- CUmodules and CUlibraries the program loads itself (docs/gpu.md) -------
 * Device code reads its state from its own module (shmi_dstate, one per CUDA
 * translation unit: nvshmem_device.cuh); the units linked into the program
 * get it from constructors, a module loaded with cuModuleLoad* or
 * cuLibraryLoad* does not.  _init finds that module's state (a whole-program
 * module: nvcc -cubin/-fatbin/-ptx or NVRTC, without -rdc, whose CUDA code
 * includes symheap's nvshmem.h) and the library fills it now, or when the
 * GPU heap comes up (a host-only program's nvshmem_malloc then gives GPU
 * memory); _finalize stops that (call it before unloading).  0;
 * NVSHMEMX_ERROR_INVALID_VALUE before nvshmem_init, without a usable GPU, for
 * a module without that state, or a _finalize without _init;
 * NVSHMEMX_ERROR_INTERNAL for a module built with another symheap's headers
 * or a failed copy; each with one line on stderr.  The types are cuda.h's
 * CUmodule and CUlibrary (struct CUmod_st *, struct CUlib_st *), so C
 * programs without the CUDA headers can call them too; the library uses the
 * driver it loaded itself (no -lcuda needed). */
struct CUmod_st;
struct CUlib_st;
int nvshmemx_cumodule_init(struct CUmod_st *module);
int nvshmemx_cumodule_finalize(struct CUmod_st *module);
int nvshmemx_culibrary_init(struct CUlib_st *library);
int nvshmemx_culibrary_finalize(struct CUlib_st *library);

#ifdef __cplusplus
}
#endif

/* ---- Stream-ordered host calls (cudaStream_t is struct CUstream_st *) -------
 * Enqueued on the stream, return at once.  put/get copy with the copy
 * engines into / out of the peer's mapping of the GPU heap.  quiet_on_stream
 * enqueues nothing: copies on a stream complete in stream order, and device
 * puts are complete when their kernel ends.  In CUDA code the barriers are a
 * one-thread kernel (nvshmem_device.cuh); from C they wait on the host. */
static inline void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes,
                                             int pe, struct CUstream_st *stream)
{ shmemx_putmem_on_stream(dest, source, bytes, pe, stream); }
static inline void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes,
                                             int pe, struct CUstream_st *stream)
{ shmemx_getmem_on_stream(dest, source, bytes, pe, stream); }
static inline void nvshmemx_quiet_on_stream(struct CUstream_st *stream) { (void)stream; }
#ifndef __CUDACC__
static inline void nvshmemx_barrier_all_on_stream(struct CUstream_st *stream)
{ shmemx_barrier_all_on_stream(stream); }
static inline void nvshmemx_sync_all_on_stream(struct CUstream_st *stream)
{ shmemx_barrier_all_on_stream(stream); }
#endif

/* ---- Collective launch (needs the CUDA runtime: CUDA code, or a host file
 * with the toolkit's headers; see nvshmem.h) ----------------------------------
 * nvshmemx_collective_launch(func, grid, block, args, sharedMem, stream)
 * launches func as a cooperative kernel (cudaLaunchCooperativeKernel; a plain
 * launch where the GPU has no cooperative launch) after checking that the
 * grid fits co-resident: with k PEs on this GPU, each gets 1/k of it
 * (blocks per SM for func at this block size and shared memory, times the
 * SMs, divided by k), so device barriers in the kernels cannot wait for
 * blocks that never run.  A grid of 0 x 0 x 0 launches the largest that
 * fits.  A grid too large, or some dimensions 0, is
 * NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED with one line on stderr saying
 * what fits; nothing is launched.  Collective: every PE calls it.
 * nvshmemx_collective_launch_query_gridsize gives that largest grid (0 when
 * no block fits); NVSHMEMX_ERROR_INTERNAL when CUDA cannot tell.  k comes
 * from the PEs' GPU identities in CUDA code, and is the PEs of the node
 * over the visible GPUs (rounded up) in host-only files. */
#ifdef SYMHEAP_NVSHMEM_CUDA
#include <stdio.h>

#ifdef __CUDACC__
static inline int shmi_gpu_sharers(void); /* nvshmem_coll_device.cuh */
#else
static inline int shmi_gpu_sharers(void)
{
    int ndev = 0, node = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) ndev = 1;
    if (node < 1) node = 1;
    return (node + ndev - 1) / ndev;
}
#endif

/* The largest co-resident grid for func (0: none fits), or -1 with a message. */
static inline int shmi_claunch_max(const char *fn, const void *func, dim3 blockDims,
                                   size_t sharedMem, int *per_sm, int *sms, int *sharers)
{
    int dev = 0, bps = 0, nsm = 0;
    int threads = (int)(blockDims.x * blockDims.y * blockDims.z);
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, func, threads, sharedMem);
    if (e != cudaSuccess) {
        fprintf(stderr, "[pe %d] symheap error: %s: cannot tell how many blocks of %d threads "
                "fit on the GPU: %s\n", shmem_my_pe(), fn, threads, cudaGetErrorString(e));
        return -1;
    }
    int k = shmi_gpu_sharers();
    *per_sm = bps;
    *sms = nsm;
    *sharers = k;
    return bps * nsm / k;
}

static inline int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims,
                                                            void **args, size_t sharedMem,
                                                            int *gridsize)
{
    int bps, nsm, k;
    (void)args;
    int max = shmi_claunch_max("nvshmemx_collective_launch_query_gridsize", func, blockDims,
                               sharedMem, &bps, &nsm, &k);
    if (max < 0) return NVSHMEMX_ERROR_INTERNAL;
    if (gridsize) *gridsize = max;
    return NVSHMEMX_SUCCESS;
}

static inline int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims,
                                             void **args, size_t sharedMem, cudaStream_t stream)
{
    const char *fn = "nvshmemx_collective_launch";
    int bps, nsm, k, me = shmem_my_pe();
    int max = shmi_claunch_max(fn, func, blockDims, sharedMem, &bps, &nsm, &k);
    if (max < 0) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
    unsigned long long blocks = (unsigned long long)gridDims.x * gridDims.y * gridDims.z;
    int zeros = (gridDims.x == 0) + (gridDims.y == 0) + (gridDims.z == 0);
    if (zeros == 3 && max > 0) { /* as NVSHMEM: the largest grid that fits */
        gridDims.x = (unsigned)max;
        gridDims.y = gridDims.z = 1;
        blocks = (unsigned long long)max;
    } else if (zeros) {
        fprintf(stderr, "[pe %d] symheap error: %s: grid %ux%ux%u: give every dimension, or "
                "none (0x0x0: the largest grid that fits)\n", me, fn, gridDims.x, gridDims.y,
                gridDims.z);
        return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
    }
    if (max == 0 || blocks > (unsigned long long)max) {
        fprintf(stderr, "[pe %d] symheap error: %s: grid %ux%ux%u (%llu blocks of %u threads, "
                "%zu bytes of shared memory) cannot be resident at once: at most %d fit (%d per "
                "SM x %d SMs / %d PE%s on this GPU), and device barriers need every block "
                "running; use nvshmemx_collective_launch_query_gridsize\n", me, fn, gridDims.x,
                gridDims.y, gridDims.z, blocks, blockDims.x * blockDims.y * blockDims.z,
                sharedMem, max, bps, nsm, k, k == 1 ? "" : "s");
        return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
    }
    int dev = 0, coop = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
    cudaError_t e = cudaErrorNotSupported;
    if (coop) e = cudaLaunchCooperativeKernel(func, gridDims, blockDims, args, sharedMem, stream);
    if (e == cudaErrorNotSupported) { /* e.g. no cooperative launch here: the check above holds */
        (void)cudaGetLastError();
        e = cudaLaunchKernel(func, gridDims, blockDims, args, sharedMem, stream);
    }
    if (e != cudaSuccess) {
        fprintf(stderr, "[pe %d] symheap error: %s: launch of %ux%ux%u blocks failed: %s\n", me,
                fn, gridDims.x, gridDims.y, gridDims.z, cudaGetErrorString(e));
        return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
    }
    return NVSHMEMX_SUCCESS;
}
#endif /* SYMHEAP_NVSHMEM_CUDA */

#endif /* SYMHEAP_NVSHMEMX_H */
