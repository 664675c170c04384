/* nvshmem.h - NVSHMEM-style host API of symheap, mapped onto its OpenSHMEM API.
 *
 * Lets NVSHMEM programs (and the tutorial symheap started from) compile with
 * symcc: host code anywhere, CUDA code (.cu) on machines with a GPU.
 * Every routine here is a static inline one-liner over the shmem_* routine of
 * the same meaning, so semantics, errors and thread safety are shmem.h's:
 * allocation is collective over all PEs and gives the same address on every
 * PE; RMA/AMO take symmetric addresses; wait_until spins on local memory.
 *
 * The typed families are generated from SHMEM_TYPE_TABLE (shmem.h), so they
 * cannot drift from the OpenSHMEM ones.  The table holds every NVSHMEM
 * TYPENAME with the same spelling (float ... ptrdiff, longlong, ulonglong)
 * plus longdouble, which NVSHMEM lacks (GPUs have no long double) and which
 * is harmless here.  Per-family subsets (AMO, bitwise AMO, wait_until) are
 * the same in both specs.
 *
 * GPU (docs/gpu.md): compiled by nvcc, this header also brings the device
 * API (nvshmem_device.cuh), and nvshmem_malloc/calloc/align give GPU memory
 * when a GPU is present.  In C programs, and without a GPU, symmetric memory
 * is ordinary host memory, which host loops may read and write directly.
 *
 * Differences from NVSHMEM, on purpose:
 *  - No collective launch; device collectives other than barrier/sync are
 *    not there yet.
 *  - nvshmem_realloc is provided (OpenSHMEM shmem_realloc); NVSHMEM has none.
 *  - nvshmem_calloc takes (count, size) as in NVSHMEM and OpenSHMEM; the
 *    tutorial's one-argument call does not compile: write calloc(n, 1).
 *  - nvshmem_TYPENAME_wait_until/test are also host calls here (device-only
 *    in NVSHMEM) on host memory.
 *  - nvshmem_team_t is shmem_team_t (an opaque pointer), not an int32_t;
 *    code that only uses the named handles and passes them around is fine.
 *
 * This header lives in include/symheap/ so it never shadows a real NVSHMEM
 * install: only symcc, pkg-config (symheap.pc) and the CMake package add that
 * directory to the include path. */
#ifndef SYMHEAP_NVSHMEM_H
#define SYMHEAP_NVSHMEM_H

#include <shmem.h>
#include <shmemx.h> /* SHMEMX_MALLOC_DEVICE_AUTO, *_with_hints */

#ifdef __cplusplus
extern "C" {
#endif

/* Defined when nvshmem.h is symheap's compatibility header (not NVIDIA's). */
#define SYMHEAP_NVSHMEM_COMPAT 1

#define NVSHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define NVSHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN

enum {
    NVSHMEM_THREAD_SINGLE = SHMEM_THREAD_SINGLE,
    NVSHMEM_THREAD_FUNNELED = SHMEM_THREAD_FUNNELED,
    NVSHMEM_THREAD_SERIALIZED = SHMEM_THREAD_SERIALIZED,
    NVSHMEM_THREAD_MULTIPLE = SHMEM_THREAD_MULTIPLE
};

enum {
    NVSHMEM_CMP_EQ = SHMEM_CMP_EQ,
    NVSHMEM_CMP_NE = SHMEM_CMP_NE,
    NVSHMEM_CMP_GT = SHMEM_CMP_GT,
    NVSHMEM_CMP_GE = SHMEM_CMP_GE,
    NVSHMEM_CMP_LT = SHMEM_CMP_LT,
    NVSHMEM_CMP_LE = SHMEM_CMP_LE
};

/* Teams: the world team and the shared-memory team (the PEs of this node). */
typedef shmem_team_t nvshmem_team_t;
#define NVSHMEM_TEAM_WORLD SHMEM_TEAM_WORLD
#define NVSHMEM_TEAM_SHARED SHMEM_TEAM_SHARED
#define NVSHMEM_TEAM_INVALID SHMEM_TEAM_INVALID

/* ---- Setup, exit and query ------------------------------------------------- */
static inline void nvshmem_init(void) { shmem_init(); }
static inline int nvshmem_init_thread(int requested, int *provided)
{ return shmem_init_thread(requested, provided); }
static inline void nvshmem_query_thread(int *provided) { shmem_query_thread(provided); }
static inline void nvshmem_finalize(void) { shmem_finalize(); }
static inline void nvshmem_global_exit(int status) { shmem_global_exit(status); }
#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
static inline int nvshmem_my_pe(void) { return shmem_my_pe(); }
static inline int nvshmem_n_pes(void) { return shmem_n_pes(); }
#endif
static inline int nvshmem_team_my_pe(nvshmem_team_t team) { return shmem_team_my_pe(team); }
static inline int nvshmem_team_n_pes(nvshmem_team_t team) { return shmem_team_n_pes(team); }
/* Local address of dest on pe, or NULL; nvshmem_ptr(p, my_pe) == p. */
#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
static inline void *nvshmem_ptr(const void *dest, int pe) { return shmem_ptr(dest, pe); }
#endif
static inline void nvshmem_info_get_version(int *major, int *minor)
{ shmem_info_get_version(major, minor); }
static inline void nvshmem_info_get_name(char *name) { shmem_info_get_name(name); }

/* ---- Memory management (collective; same address on every PE) ------------- */
/* GPU memory in programs with CUDA code when a GPU is present, host memory
 * otherwise (shmemx_gpu.h, docs/gpu.md). */
static inline void *nvshmem_malloc(size_t size)
{ return shmem_malloc_with_hints(size, SHMEMX_MALLOC_DEVICE_AUTO); }
static inline void *nvshmem_calloc(size_t count, size_t size)
{ return shmemx_calloc_with_hints(count, size, SHMEMX_MALLOC_DEVICE_AUTO); }
static inline void *nvshmem_align(size_t alignment, size_t size)
{ return shmemx_align_with_hints(alignment, size, SHMEMX_MALLOC_DEVICE_AUTO); }
/* Not in NVSHMEM: OpenSHMEM's realloc (contents kept, same address on every PE). */
static inline void *nvshmem_realloc(void *ptr, size_t size)
{ return ptr ? shmem_realloc(ptr, size) : nvshmem_malloc(size); }
static inline void nvshmem_free(void *ptr) { shmem_free(ptr); }

/* ---- Ordering and synchronization ----------------------------------------- */
#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
static inline void nvshmem_quiet(void) { shmem_quiet(); }
static inline void nvshmem_fence(void) { shmem_fence(); }
static inline void nvshmem_barrier_all(void) { shmem_barrier_all(); }
static inline void nvshmem_sync_all(void) { shmem_sync_all(); }
#endif
static inline int nvshmem_team_sync(nvshmem_team_t team) { return shmem_team_sync(team); }
/* NVSHMEM's nvshmem_sync/nvshmem_barrier take a team; a barrier also
 * completes this PE's outstanding RMA (quiet), as barrier_all does. */
static inline int nvshmem_sync(nvshmem_team_t team) { return shmem_team_sync(team); }
static inline int nvshmem_barrier(nvshmem_team_t team)
{ shmem_quiet(); return shmem_team_sync(team); }

/* ---- Untyped RMA and broadcast ---------------------------------------------- */
#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
static inline void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe)
{ shmem_putmem(dest, source, bytes, pe); }
static inline void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe)
{ shmem_getmem(dest, source, bytes, pe); }
static inline void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{ shmem_putmem_nbi(dest, source, bytes, pe); }
static inline void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{ shmem_getmem_nbi(dest, source, bytes, pe); }
#endif
static inline int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source,
                                       size_t bytes, int PE_root)
{ return shmem_broadcastmem(team, dest, source, bytes, PE_root); }

#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
/* ---- Sized RMA: nvshmem_put8 ... nvshmem_iget128 ------------------------------ */
#define SHMI_NV_SIZED(BITS, BYTES)                                                       \
    static inline void nvshmem_put##BITS(void *d, const void *s, size_t n, int pe)       \
    { shmem_put##BITS(d, s, n, pe); }                                                    \
    static inline void nvshmem_get##BITS(void *d, const void *s, size_t n, int pe)       \
    { shmem_get##BITS(d, s, n, pe); }                                                    \
    static inline void nvshmem_put##BITS##_nbi(void *d, const void *s, size_t n, int pe) \
    { shmem_put##BITS##_nbi(d, s, n, pe); }                                              \
    static inline void nvshmem_get##BITS##_nbi(void *d, const void *s, size_t n, int pe) \
    { shmem_get##BITS##_nbi(d, s, n, pe); }                                              \
    static inline void nvshmem_iput##BITS(void *d, const void *s, ptrdiff_t dst,         \
                                          ptrdiff_t sst, size_t n, int pe)               \
    { shmem_iput##BITS(d, s, dst, sst, n, pe); }                                         \
    static inline void nvshmem_iget##BITS(void *d, const void *s, ptrdiff_t dst,         \
                                          ptrdiff_t sst, size_t n, int pe)               \
    { shmem_iget##BITS(d, s, dst, sst, n, pe); }
SHMEM_SIZE_TABLE(SHMI_NV_SIZED)
#undef SHMI_NV_SIZED

/* ---- Typed RMA and broadcast: nvshmem_TYPENAME_put/get/p/g/iput/iget(_nbi) --- */
#define SHMI_NV_RMA(N, T, A, B, S, G)                                                   \
    static inline void nvshmem_##N##_put(T *d, const T *s, size_t n, int pe)            \
    { shmem_##N##_put(d, s, n, pe); }                                                   \
    static inline void nvshmem_##N##_get(T *d, const T *s, size_t n, int pe)            \
    { shmem_##N##_get(d, s, n, pe); }                                                   \
    static inline void nvshmem_##N##_put_nbi(T *d, const T *s, size_t n, int pe)        \
    { shmem_##N##_put_nbi(d, s, n, pe); }                                               \
    static inline void nvshmem_##N##_get_nbi(T *d, const T *s, size_t n, int pe)        \
    { shmem_##N##_get_nbi(d, s, n, pe); }                                               \
    static inline void nvshmem_##N##_p(T *d, T v, int pe) { shmem_##N##_p(d, v, pe); }  \
    static inline T nvshmem_##N##_g(const T *s, int pe) { return shmem_##N##_g(s, pe); } \
    static inline void nvshmem_##N##_iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, \
                                          size_t n, int pe)                             \
    { shmem_##N##_iput(d, s, dst, sst, n, pe); }                                        \
    static inline void nvshmem_##N##_iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, \
                                          size_t n, int pe)                             \
    { shmem_##N##_iget(d, s, dst, sst, n, pe); }                                        \
    static inline int nvshmem_##N##_broadcast(nvshmem_team_t team, T *d, const T *s,   \
                                              size_t n, int PE_root)                    \
    { return shmem_##N##_broadcast(team, d, s, n, PE_root); }
SHMEM_TYPE_TABLE(SHMI_NV_RMA)
#undef SHMI_NV_RMA

/* ---- Atomics: nvshmem_TYPENAME_atomic_* (same type subsets as OpenSHMEM) ------ */
#define SHMI_NV_AMO(N, T, A, B, S, G)                                                   \
    SHMI_WHEN_##A##_EXTAMO(                                                             \
        static inline T nvshmem_##N##_atomic_fetch(const T *s, int pe)                  \
        { return shmem_##N##_atomic_fetch(s, pe); }                                     \
        static inline void nvshmem_##N##_atomic_set(T *d, T v, int pe)                  \
        { shmem_##N##_atomic_set(d, v, pe); }                                           \
        static inline T nvshmem_##N##_atomic_swap(T *d, T v, int pe)                    \
        { return shmem_##N##_atomic_swap(d, v, pe); })                                  \
    SHMI_WHEN_##A##_AMO(                                                                \
        static inline T nvshmem_##N##_atomic_compare_swap(T *d, T c, T v, int pe)       \
        { return shmem_##N##_atomic_compare_swap(d, c, v, pe); }                        \
        static inline T nvshmem_##N##_atomic_fetch_inc(T *d, int pe)                    \
        { return shmem_##N##_atomic_fetch_inc(d, pe); }                                 \
        static inline void nvshmem_##N##_atomic_inc(T *d, int pe)                       \
        { shmem_##N##_atomic_inc(d, pe); }                                              \
        static inline T nvshmem_##N##_atomic_fetch_add(T *d, T v, int pe)               \
        { return shmem_##N##_atomic_fetch_add(d, v, pe); }                              \
        static inline void nvshmem_##N##_atomic_add(T *d, T v, int pe)                  \
        { shmem_##N##_atomic_add(d, v, pe); })                                          \
    SHMI_WHEN_##B##_BIT(                                                                \
        static inline T nvshmem_##N##_atomic_fetch_and(T *d, T v, int pe)               \
        { return shmem_##N##_atomic_fetch_and(d, v, pe); }                              \
        static inline void nvshmem_##N##_atomic_and(T *d, T v, int pe)                  \
        { shmem_##N##_atomic_and(d, v, pe); }                                           \
        static inline T nvshmem_##N##_atomic_fetch_or(T *d, T v, int pe)                \
        { return shmem_##N##_atomic_fetch_or(d, v, pe); }                               \
        static inline void nvshmem_##N##_atomic_or(T *d, T v, int pe)                   \
        { shmem_##N##_atomic_or(d, v, pe); }                                            \
        static inline T nvshmem_##N##_atomic_fetch_xor(T *d, T v, int pe)               \
        { return shmem_##N##_atomic_fetch_xor(d, v, pe); }                              \
        static inline void nvshmem_##N##_atomic_xor(T *d, T v, int pe)                  \
        { shmem_##N##_atomic_xor(d, v, pe); })
SHMEM_TYPE_TABLE(SHMI_NV_AMO)
#undef SHMI_NV_AMO

/* ---- Point-to-point synchronization: nvshmem_TYPENAME_wait_until/test --------- */
#define SHMI_NV_SYNC(N, T, A, B, S, G)                                                  \
    SHMI_WHEN_##S##_SYNC(                                                               \
        static inline void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)      \
        { shmem_##N##_wait_until(ivar, cmp, cmp_value); }                               \
        static inline int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value)             \
        { return shmem_##N##_test(ivar, cmp, cmp_value); })
SHMEM_TYPE_TABLE(SHMI_NV_SYNC)
#undef SHMI_NV_SYNC
#endif /* !__CUDACC__ */

#ifdef __cplusplus
}
#endif
/* Compiled by nvcc: the device API (and the __host__ __device__ forms of the
 * routines left out above). */
#ifdef __CUDACC__
#include <nvshmem_device.cuh>
#endif
#endif /* SYMHEAP_NVSHMEM_H */
