/* shmemx_gpu.h - symheap's GPU extensions (issue 7, docs/gpu.md); included by
 * shmemx.h.  Plain C: no CUDA header is needed to use them.
 *
 * GPU memory comes from the GPU symmetric heap: CUDA VMM memory at the SAME
 * address on every PE, every peer's copy mapped into each PE, so kernels
 * reach any PE's copy with loads and stores (nvshmem.h's device API).  Which
 * calls give GPU memory:
 *   - shmem_malloc_with_hints(size, SHMEMX_MALLOC_DEVICE): when every PE
 *     has a GPU; without one, host memory and a warning (hints are advice,
 *     spec), and also when the hint word has bits symheap does not know;
 *   - the _with_hints forms below: always (fatal without a usable GPU);
 *   - nvshmem_malloc/calloc/align (SHMEMX_MALLOC_DEVICE_AUTO): in programs
 *     with CUDA code compiled against nvshmem.h when a GPU is present, host
 *     memory otherwise (so the CPU examples keep working on GPU machines);
 *   - shmem_malloc/calloc/align: host memory unless SHMEM_MALLOC_GPU=1.
 * shmem_free/realloc/ptr take either kind.  Allocation rules are the host
 * heap's: collective, checked across PEs, all-or-nothing NULL when full. */
#ifndef SYMHEAP_SHMEMX_GPU_H
#define SYMHEAP_SHMEMX_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* shmem_malloc_with_hints bits (above the spec's). */
#define SHMEMX_MALLOC_DEVICE (1L << 16)      /* GPU memory (see above without a GPU) */
#define SHMEMX_MALLOC_DEVICE_AUTO (1L << 17) /* GPU memory when the program uses the GPU heap */

/* calloc/align with hints (GPU bits as above; other bits as shmem_malloc_with_hints). */
void *shmemx_calloc_with_hints(size_t count, size_t size, long hints);
void *shmemx_align_with_hints(size_t alignment, size_t size, long hints);

/* 1 when this PE has a GPU heap now (after shmem_init; it may also appear at
 * the first GPU allocation).  Not collective. */
int shmemx_gpu_available(void);
/* Occupancy of the GPU heap (as shmemx_heap_info); -1 when there is none. */
int shmemx_gpu_heap_info(shmemx_heap_info_t *info);

/* ---- Stream-ordered host operations (cudaStream_t is struct CUstream_st *) ----
 * Enqueued on stream; they return at once.  put/get use the copy engines
 * (cuMemcpyAsync on the peer's mapping).  barrier_all here is the fallback
 * for C callers: it waits for the stream, then for every PE (nvshmemx.h in
 * CUDA code uses a one-thread kernel instead, which does not block the host). */
struct CUstream_st;
void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                             struct CUstream_st *stream);
void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                             struct CUstream_st *stream);
void shmemx_barrier_all_on_stream(struct CUstream_st *stream);

/* ---- What device code needs (used by nvshmem_device.cuh, not by programs) ----
 * Each CUDA translation unit that includes nvshmem.h keeps this state in its
 * own __constant__ memory and registers a function that copies it there; the
 * library calls it once the GPU heap exists (at once if it already does). */
#define SHMEMX_GPU_STATE_VERSION 2
/* The device control region starts at `ctl` below, in blocks of
 * SHMEMX_GPU_CTL_BLOCK bytes, each PE's own (peers' at the same symmetric
 * address): block 0 is the world team's (barrier flags, low-latency slots,
 * reduction scratch; NVSHMEM_TEAM_SHARED and NVSHMEMX_TEAM_NODE use it too),
 * block 1 this PE's team table, then one block per team slot of the host
 * library, each team's own (its barrier epoch, slots and scratch: teams
 * never share flags).  Entry i of the table describes NVSHMEM team index i
 * on this PE (size 0: no team there, or this PE is not a member); the
 * library writes it when nvshmem_team_split_* makes the team, after zeroing
 * the team's block on every member. */
#define SHMEMX_GPU_CTL_BLOCK 65536
#define SHMEMX_GPU_TEAMS 192 /* entries: NVSHMEM team indices 0 .. 191 */
typedef struct shmemx_gpu_team {
    int32_t size;   /* members; 0: no team at this index on this PE */
    int32_t rank;   /* this PE's rank in it */
    int32_t start;  /* world PE of rank r: start + r * stride */
    int32_t stride;
    uint32_t block; /* its control block: ctl + block * SHMEMX_GPU_CTL_BLOCK */
    uint32_t pad[3];
} shmemx_gpu_team_t;
typedef struct shmemx_gpu_state {
    uint32_t version;   /* SHMEMX_GPU_STATE_VERSION */
    int32_t me, npes;
    int32_t device;     /* CUDA device ordinal of this PE */
    uint64_t base;      /* the GPU heap's start, the same on every PE */
    uint64_t size;      /* its reserved size, also the distance between peer slots */
    uint64_t slots;     /* PE p's copy of a is a - base + slots + p * size (p != me) */
    uint64_t ctl;       /* device control region (see above), a symmetric address */
} shmemx_gpu_state_t;
typedef void (*shmemx_gpu_publish_t)(const shmemx_gpu_state_t *state);
/* Returns 0, or -1 when version differs from the library's (then the device
 * API of that unit cannot work: rebuild it with this symheap's headers). */
int shmemx_gpu_register(shmemx_gpu_publish_t fn, unsigned version);

#ifdef __cplusplus
}
#endif
#endif
