/* nvshmemx.h - NVSHMEM-style extensions of symheap.
 *
 * NVSHMEM programs usually include both nvshmem.h and nvshmemx.h; this one
 * adds the extension names, and symheap's own shmemx_ extensions
 * (shmemx_heap_info ...), which keep their shmemx_ names.  The device-side
 * extensions (nvshmemx_putmem_block ...) come with nvshmem.h in CUDA code;
 * the stream-ordered host calls (issue 7, docs/gpu.md) are below. */
#ifndef SYMHEAP_NVSHMEMX_H
#define SYMHEAP_NVSHMEMX_H

#include <nvshmem.h>
#include <shmemx.h>

/* The PEs of this node (SHMEM_TEAM_SHARED). */
#define NVSHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

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
