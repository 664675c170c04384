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
 *                                nvshmemx_get_uniqueid: works when the processes
 *                                are already this job's PEs (started by symrun
 *                                or mpirun) with rank == PE; a rendezvous with
 *                                no launcher is not there yet, and a mismatch
 *                                stops the program saying so;
 *   NVSHMEMX_INIT_WITH_MPI_COMM  not supported yet: stops the program with a
 *                                message that says to call nvshmem_init under
 *                                mpirun (whose ranks become the PEs).
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
/* Mapping a user buffer into the symmetric heap (NVSHMEM 3.x): not provided;
 * stops the program with a message that says to use nvshmem_malloc. */
void *nvshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags);
int nvshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size);

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

#endif /* SYMHEAP_NVSHMEMX_H */
