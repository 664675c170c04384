/* nvshmem.h - NVSHMEM-style host API of symheap, mapped onto its OpenSHMEM API.
 *
 * Lets NVSHMEM programs (and the tutorial symheap started from) compile with
 * symcc: host code anywhere, CUDA code (.cu) on machines with a GPU.
 * Every routine here is a static inline one-liner over the shmem_* routine of
 * the same meaning, so semantics, errors and thread safety are shmem.h's:
 * allocation is collective over all PEs and gives the same address on every
 * PE; RMA/AMO take symmetric addresses; wait_until spins on local memory.
 *
 * The typed families are generated from NVSHMEM_TYPE_TABLE and
 * NVSHMEM_REDUCE_TABLE below: OpenSHMEM's tables (shmem.h) plus NVSHMEM's
 * 16-bit floating rows, half and bfloat16 (symheap/shmemx_fp16.h), so they
 * cannot drift from the OpenSHMEM ones.  The tables hold every NVSHMEM
 * TYPENAME with the same spelling (float ... ptrdiff, longlong, ulonglong,
 * half, bfloat16) plus longdouble, which NVSHMEM lacks (GPUs have no long
 * double) and which is harmless here.  Per-family subsets (AMO, bitwise AMO,
 * wait_until) are the same in both specs; half and bfloat16 have RMA,
 * signals, collectives and sum/prod/min/max reductions, as in NVSHMEM.
 *
 * GPU (docs/gpu.md): compiled by nvcc, this header also brings the device
 * API (nvshmem_device.cuh), and nvshmem_malloc/calloc/align give GPU memory
 * when a GPU is present.  In C programs, and without a GPU, symmetric memory
 * is ordinary host memory, which host loops may read and write directly.
 *
 * Names, signatures and constants are NVSHMEM's (3.4.5): nvshmem_team_t is
 * an int32_t index (NVSHMEM_TEAM_WORLD is 0), NVSHMEM_CMP_* and
 * NVSHMEM_SIGNAL_* have NVSHMEM's values (translated to OpenSHMEM's in the
 * one-liners), and, as with NVSHMEM, nvshmem.h also brings nvshmemx.h.
 * Routines that need state of their own (team handles, reducescatter, maxloc,
 * init with attributes, buffer registration) are in src/api/nvshmem_host.c,
 * written over the public shmem_* API.
 *
 * Differences from NVSHMEM, on purpose (docs/gpu.md lists them all):
 *  - Device collectives (nvshmem_coll_device.cuh) work on every team,
 *    split ones included (a device team table, a control block per team).
 *    The _on_stream collectives and
 *    nvshmemx_collective_launch need CUDA code (a .cu file), except the
 *    collective launch, which host C/C++ files get too when CUDA is there.
 *  - nvshmem_realloc is provided (OpenSHMEM shmem_realloc); NVSHMEM has none.
 *  - nvshmem_calloc takes (count, size) as in NVSHMEM and OpenSHMEM; the
 *    tutorial's one-argument call does not compile: write calloc(n, 1).
 *  - Host forms of what NVSHMEM has on the device only, on host memory:
 *    nvshmem_TYPENAME_wait_until/test and the _all/_any/_some(_vector)
 *    families, put_signal(_nbi), nvshmem_signal_wait_until.
 *  - NVSHMEMX_TEAM_NODE and NVSHMEM_TEAM_SHARED are every PE of this node;
 *    NVSHMEMX_TEAM_SAME_MYPE_NODE is not set up (NVSHMEM_TEAM_INVALID).
 *
 * This header lives in include/symheap/ so it never shadows a real NVSHMEM
 * install: only symcc, pkg-config (symheap.pc) and the CMake package add that
 * directory to the include path. */
#ifndef SYMHEAP_NVSHMEM_H
#define SYMHEAP_NVSHMEM_H

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <shmem.h>
#include <shmemx.h> /* SHMEMX_MALLOC_DEVICE_AUTO, *_with_hints */

/* As NVIDIA's nvshmem.h: the CUDA runtime (cuda_runtime.h) and the driver
 * API's types (cuda.h) come with it, in CUDA code and in host-only C and C++
 * files whenever the toolkit's headers are on the include path (symcc adds
 * them when symheap was built with CUDA).  Without a toolkit, or with
 * SYMHEAP_NVSHMEM_NO_CUDA defined, a host program gets the host API alone.
 * SYMHEAP_NVSHMEM_CUDA is defined when they came. */
#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <cuda.h>
#define SYMHEAP_NVSHMEM_CUDA 1
#elif !defined(SYMHEAP_NVSHMEM_NO_CUDA) && defined(__has_include)
#if __has_include(<cuda_runtime.h>) && __has_include(<cuda.h>)
#include <cuda_runtime.h>
#include <cuda.h>
#define SYMHEAP_NVSHMEM_CUDA 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Defined when nvshmem.h is symheap's compatibility header (not NVIDIA's). */
#define SYMHEAP_NVSHMEM_COMPAT 1

/* The type tables of the NVSHMEM API: OpenSHMEM's rows, then half and
 * bfloat16 (CUDA's __half and __nv_bfloat16 in C++ with CUDA, a 16-bit
 * struct of the same layout in C: shmemx_fp16.h).  Columns: shmem.h. */
#define NVSHMEM_TYPE_TABLE(X) SHMEM_TYPE_TABLE(X) SHMEMX_FP16_TYPE_ROWS(X)
#define NVSHMEM_REDUCE_TABLE(X) SHMEM_REDUCE_TABLE(X) SHMEMX_FP16_REDUCE_ROWS(X)

/* ---- Versions ----------------------------------------------------------------
 * NVSHMEM_MAJOR/MINOR_VERSION: the OpenSHMEM level NVSHMEM declares (1.3), what
 * nvshmem_info_get_version returns.  NVSHMEM_VENDOR_*: the NVSHMEM release
 * whose API this header follows, so programs that test it for a feature
 * (#if NVSHMEM_VENDOR_VERSION >= 30000) see what they would with it; the
 * library's own name and version: NVSHMEM_VENDOR_STRING, shmem_info_get_name. */
#define NVSHMEM_MAJOR_VERSION 1
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_VENDOR_MAJOR_VERSION 3
#define NVSHMEM_VENDOR_MINOR_VERSION 4
#define NVSHMEM_VENDOR_PATCH_VERSION 5
#define NVSHMEM_VENDOR_PACKAGE_VERSION 0
#define NVSHMEM_VENDOR_VERSION                                                   \
    (NVSHMEM_VENDOR_MAJOR_VERSION * 10000 + NVSHMEM_VENDOR_MINOR_VERSION * 100 + \
     NVSHMEM_VENDOR_PATCH_VERSION)
#define NVSHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define NVSHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN

/* ---- Constants (NVSHMEM's values) --------------------------------------------- */
typedef enum nvshmemi_thread_support {
    NVSHMEM_THREAD_SINGLE = SHMEM_THREAD_SINGLE,
    NVSHMEM_THREAD_FUNNELED = SHMEM_THREAD_FUNNELED,
    NVSHMEM_THREAD_SERIALIZED = SHMEM_THREAD_SERIALIZED,
    NVSHMEM_THREAD_MULTIPLE = SHMEM_THREAD_MULTIPLE,
    NVSHMEM_THREAD_TYPE_SENTINEL = INT_MAX
} nvshmemx_thread_support_t;

/* Not OpenSHMEM's order: LE is 3 and GE 5 (OpenSHMEM: GE 3, LE 5). */
typedef enum nvshmemi_cmp_type {
    NVSHMEM_CMP_EQ = 0,
    NVSHMEM_CMP_NE = 1,
    NVSHMEM_CMP_GT = 2,
    NVSHMEM_CMP_LE = 3,
    NVSHMEM_CMP_LT = 4,
    NVSHMEM_CMP_GE = 5,
    NVSHMEM_CMP_SENTINEL = INT_MAX
} nvshmemx_cmp_type_t;

typedef enum { NVSHMEM_SIGNAL_SET = 9, NVSHMEM_SIGNAL_ADD = 10 } nvshmemx_signal_op_t;

/* nvshmemx_init_status() */
typedef enum {
    NVSHMEM_STATUS_NOT_INITIALIZED = 0,
    NVSHMEM_STATUS_IS_BOOTSTRAPPED = 1,
    NVSHMEM_STATUS_IS_INITIALIZED = 2,
    NVSHMEM_STATUS_LIMITED_MPG = 3,
    NVSHMEM_STATUS_FULL_MPG = 4,
    NVSHMEM_STATUS_INVALID = INT_MAX
} nvshmemx_init_status_t;

/* Status codes of the nvshmemx_ routines that return one. */
enum nvshmemx_status {
    NVSHMEMX_SUCCESS = 0,
    NVSHMEMX_ERROR_INVALID_VALUE = 1,
    NVSHMEMX_ERROR_OUT_OF_MEMORY = 2,
    NVSHMEMX_ERROR_NOT_SUPPORTED = 3,
    NVSHMEMX_ERROR_SYMMETRY = 4,
    NVSHMEMX_ERROR_GPU_NOT_SELECTED = 5,
    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED = 6,
    NVSHMEMX_ERROR_INTERNAL = 7,
    NVSHMEMX_ERROR_SENTINEL = INT_MAX
};

/* OpenSHMEM's operator for NVSHMEM's (unknown values pass through, and the
 * shmem_ routine reports them). */
static inline int nvshmemi_cmp(int cmp)
{
    return cmp == NVSHMEM_CMP_LE ? SHMEM_CMP_LE : cmp == NVSHMEM_CMP_GE ? SHMEM_CMP_GE : cmp;
}
/* Stops the job: "fn: sig_op=N is not NVSHMEM_SIGNAL_SET (9) or _ADD (10)". */
void nvshmemi_bad_sig_op(const char *fn, int sig_op);
static inline int nvshmemi_sig_op(int sig_op)
{
    return sig_op == NVSHMEM_SIGNAL_SET   ? SHMEM_SIGNAL_SET
           : sig_op == NVSHMEM_SIGNAL_ADD ? SHMEM_SIGNAL_ADD
                                          : sig_op;
}

/* ---- Teams -----------------------------------------------------------------------
 * A team is an int32_t index, as in NVSHMEM: the predefined ones below, and
 * NVSHMEM_TEAMS_MIN and up for teams made by nvshmem_team_split_*.  Each
 * index names an OpenSHMEM team (nvshmemi_team); an index that names none
 * (destroyed, never made, out of range) is NVSHMEM_TEAM_INVALID to every
 * routine. */
typedef int32_t nvshmem_team_t;
typedef nvshmem_team_t nvshmemx_team_t;
typedef uint64_t nvshmemx_team_uniqueid_t;
typedef enum {
    NVSHMEM_TEAM_INVALID = -1,
    NVSHMEM_TEAM_WORLD = 0,
    NVSHMEM_TEAM_WORLD_INDEX = 0,
    NVSHMEM_TEAM_SHARED = 1, /* the PEs of this node (those nvshmem_ptr reaches) */
    NVSHMEM_TEAM_SHARED_INDEX = 1,
    NVSHMEMX_TEAM_NODE = 2, /* the PEs of this node */
    NVSHMEM_TEAM_NODE_INDEX = 2,
    NVSHMEMX_TEAM_SAME_MYPE_NODE = 3, /* not set up: NVSHMEM_TEAM_INVALID to every routine */
    NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX = 3,
    NVSHMEM_TEAMS_MIN = 6,
    NVSHMEM_TEAM_INDEX_MAX = INT_MAX
} nvshmem_team_id_t;
#define NVSHMEMI_TEAM_SLOTS 192 /* > NVSHMEM_TEAMS_MIN + OpenSHMEM's 128 teams per PE */
extern shmem_team_t nvshmemi_team_pool[NVSHMEMI_TEAM_SLOTS];
static inline shmem_team_t nvshmemi_team(nvshmem_team_t team)
{
    return team >= 0 && team < NVSHMEMI_TEAM_SLOTS ? nvshmemi_team_pool[team] : SHMEM_TEAM_INVALID;
}

/* NVSHMEM's team configuration (64 bytes, version 2). */
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS 0x1L
#define NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID 0x2L
typedef struct {
    int version;
    int num_contexts;
    nvshmemx_team_uniqueid_t uniqueid;
    char padding[48];
} nvshmem_team_config_v2;
typedef nvshmem_team_config_v2 nvshmem_team_config_t;
#define NVSHMEMI_TEAM_CONFIG_VERSION_2_IDENTIFIER ((2 << 16) + (int)sizeof(nvshmem_team_config_t))
#define NVSHMEM_TEAM_UNIQUID_INITIALIZER ((nvshmemx_team_uniqueid_t)-1)
#define NVSHMEM_TEAM_CONFIG_INITIALIZER \
    { NVSHMEMI_TEAM_CONFIG_VERSION_2_IDENTIFIER, -1, NVSHMEM_TEAM_UNIQUID_INITIALIZER, { 0 } }

/* Collective over parent_team (see shmem_team_split_strided); members get the
 * new team's index, the others NVSHMEM_TEAM_INVALID; 0 or non-zero on every PE. */
int nvshmem_team_split_strided(nvshmem_team_t parent_team, int PE_start, int PE_stride,
                               int PE_size, const nvshmem_team_config_t *config,
                               long config_mask, nvshmem_team_t *new_team);
int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                          const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                          nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team);
/* Collective over team; the index may be reused by a later split. */
void nvshmem_team_destroy(nvshmem_team_t team);
/* num_contexts as given at the split (0 when none was), uniqueid unset. */
void nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config);
/* Teams from a unique ID (NVSHMEM 3.x): not provided; they stop the program
 * with a message that says to use nvshmem_team_split_strided. */
int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t *uniqueid);
int nvshmemx_team_init(nvshmem_team_t *team, nvshmem_team_config_t *config, long config_mask,
                       int npes, int pe_idx_in_team);

/* -1 for NVSHMEM_TEAM_INVALID.  (CUDA code: __host__ __device__ forms of
 * my_pe, n_pes and translate_pe in nvshmem_coll_device.cuh.) */
#ifndef __CUDACC__
static inline int nvshmem_team_my_pe(nvshmem_team_t team)
{ return shmem_team_my_pe(nvshmemi_team(team)); }
static inline int nvshmem_team_n_pes(nvshmem_team_t team)
{ return shmem_team_n_pes(nvshmemi_team(team)); }
static inline int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe,
                                            nvshmem_team_t dest_team)
{ return shmem_team_translate_pe(nvshmemi_team(src_team), src_pe, nvshmemi_team(dest_team)); }
#endif

/* ---- Setup, exit and query ------------------------------------------------- */
/* Finalize, and forget the teams and registered buffers when it was the
 * last finalize (init/finalize pairs nest). */
void nvshmemi_finalize(void);
static inline void nvshmem_init(void) { shmem_init(); }
static inline int nvshmem_init_thread(int requested, int *provided)
{ return shmem_init_thread(requested, provided); }
static inline void nvshmem_query_thread(int *provided) { shmem_query_thread(provided); }
static inline void nvshmem_finalize(void) { nvshmemi_finalize(); }
static inline void nvshmem_global_exit(int status) { shmem_global_exit(status); }
#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
static inline int nvshmem_my_pe(void) { return shmem_my_pe(); }
static inline int nvshmem_n_pes(void) { return shmem_n_pes(); }
#endif
/* Local address of dest on pe, or NULL; nvshmem_ptr(p, my_pe) == p. */
#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
static inline void *nvshmem_ptr(const void *dest, int pe) { return shmem_ptr(dest, pe); }
#endif
/* Multicast is not used: always NULL (NVSHMEM too when NVLS is off). */
static inline void *nvshmemx_mc_ptr(nvshmem_team_t team, const void *ptr)
{ (void)team; (void)ptr; return NULL; }
static inline void nvshmem_info_get_version(int *major, int *minor)
{ *major = NVSHMEM_MAJOR_VERSION; *minor = NVSHMEM_MINOR_VERSION; }
static inline void nvshmem_info_get_name(char *name) { shmem_info_get_name(name); }
static inline void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch)
{
    *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}

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
/* CUDA code: __host__ __device__ forms of these in nvshmem_coll_device.cuh. */
#ifndef __CUDACC__
static inline int nvshmem_team_sync(nvshmem_team_t team)
{ return shmem_team_sync(nvshmemi_team(team)); }
/* NVSHMEM's nvshmem_sync/nvshmem_barrier take a team; a barrier also
 * completes this PE's outstanding RMA (quiet), as barrier_all does. */
static inline int nvshmem_sync(nvshmem_team_t team) { return shmem_team_sync(nvshmemi_team(team)); }
static inline int nvshmem_barrier(nvshmem_team_t team)
{ shmem_quiet(); return shmem_team_sync(nvshmemi_team(team)); }

#endif /* !__CUDACC__ */

/* ---- Untyped RMA and collectives ---------------------------------------------- */
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
/* Collectives over a team (rules: shmem_teams.h): dest symmetric, every
 * member calls with the same counts; 0 on success.  CUDA code: the
 * __host__ __device__ forms in nvshmem_coll_device.cuh take their place. */
#ifndef __CUDACC__
static inline int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source,
                                       size_t bytes, int PE_root)
{ return shmem_broadcastmem(nvshmemi_team(team), dest, source, bytes, PE_root); }
static inline int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source,
                                      size_t bytes)
{ return shmem_fcollectmem(nvshmemi_team(team), dest, source, bytes); }
static inline int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source,
                                      size_t bytes)
{ return shmem_alltoallmem(nvshmemi_team(team), dest, source, bytes); }

/* Typed fcollect and alltoall: nvshmem_TYPENAME_fcollect / _alltoall. */
#define SHMI_NV_COLL(N, T, A, B, S, G)                                                  \
    static inline int nvshmem_##N##_fcollect(nvshmem_team_t team, T *d, const T *s,    \
                                             size_t n)                                  \
    { return shmem_##N##_fcollect(nvshmemi_team(team), d, s, n); }                      \
    static inline int nvshmem_##N##_alltoall(nvshmem_team_t team, T *d, const T *s,    \
                                             size_t n)                                  \
    { return shmem_##N##_alltoall(nvshmemi_team(team), d, s, n); }
NVSHMEM_TYPE_TABLE(SHMI_NV_COLL)
#undef SHMI_NV_COLL
#endif /* !__CUDACC__ */

/* Reductions: nvshmem_TYPENAME_OP_reduce(team, dest, source, nreduce) over
 * nreduce elements, and nvshmem_TYPENAME_OP_reducescatter: source holds
 * team-size blocks of nreduce elements, and team member i gets in dest the
 * reduction of block i (dest must not overlap source).  Types and operators:
 * NVSHMEM_REDUCE_TABLE (NVSHMEM's, plus long double, ptrdiff_t and complex). */
#ifndef __CUDACC__
#define SHMI_NV_REDUCE1(N, T, OP)                                                       \
    static inline int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *d, const T *s, \
                                                  size_t n)                             \
    { return shmem_##N##_##OP##_reduce(nvshmemi_team(team), d, s, n); }                 \
    int nvshmem_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, \
                                           size_t nreduce);                             \
    int nvshmemi_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, \
                                            size_t nreduce);
#else /* CUDA code: the nvshmem_ names are __host__ __device__ (nvshmem_coll_device.cuh) */
#define SHMI_NV_REDUCE1(N, T, OP)                                                       \
    int nvshmemi_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, \
                                            size_t nreduce);
#endif
#define SHMI_NV_REDUCE(N, T, B, O, G)                                                   \
    SHMI_WHEN_##B##_BIT(SHMI_NV_REDUCE1(N, T, and) SHMI_NV_REDUCE1(N, T, or)            \
                        SHMI_NV_REDUCE1(N, T, xor))                                     \
    SHMI_WHEN_##O##_ORD(SHMI_NV_REDUCE1(N, T, max) SHMI_NV_REDUCE1(N, T, min))          \
    SHMI_NV_REDUCE1(N, T, sum) SHMI_NV_REDUCE1(N, T, prod)
NVSHMEM_REDUCE_TABLE(SHMI_NV_REDUCE)
#undef SHMI_NV_REDUCE
#undef SHMI_NV_REDUCE1

/* MAXLOC over {x: value, y: location} pairs: for each of the nreduce
 * elements, the pair with the largest x among the team's members; of equal
 * x, the one with the smaller y (as MPI_MAXLOC), so every member gets the same
 * pair.  NVSHMEM has it as a block-scope routine, also callable on the host.
 * double2 is CUDA's (vector_types.h) when it is on the include path, else a
 * struct of the same layout: include cuda_runtime.h first if you use both. */
#if !defined(__VECTOR_TYPES_H__) && defined(__has_include)
#if __has_include(<vector_types.h>)
#include <vector_types.h>
#endif
#endif
#if !defined(__VECTOR_TYPES_H__) && !defined(SYMHEAP_DOUBLE2_DEFINED)
#define SYMHEAP_DOUBLE2_DEFINED 1
typedef struct double2 {
    double x, y;
} __attribute__((aligned(16))) double2;
#endif
/* the host side (the library); CUDA code gets the __host__ __device__ form
 * of nvshmem_coll_device.cuh, which calls it on the host */
int nvshmemi_double2_maxloc_reduce_host(nvshmem_team_t team, double2 *dest, const double2 *src,
                                        size_t nreduce);
#ifndef __CUDACC__
int nvshmemx_double2_maxloc_reduce_block(nvshmem_team_t team, double2 *dest, const double2 *src,
                                         size_t nreduce);
#endif

#ifndef __CUDACC__ /* CUDA code: __host__ __device__ forms in nvshmem_device.cuh */
/* ---- Sized RMA: nvshmem_put8 ... nvshmem_iget128, nvshmem_put8_signal ... ------- */
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
    { shmem_iget##BITS(d, s, dst, sst, n, pe); }                                         \
    static inline void nvshmem_put##BITS##_signal(void *d, const void *s, size_t n,      \
                                                  uint64_t *sig, uint64_t signal,        \
                                                  int sig_op, int pe)                    \
    { shmem_put##BITS##_signal(d, s, n, sig, signal, nvshmemi_sig_op(sig_op), pe); }     \
    static inline void nvshmem_put##BITS##_signal_nbi(void *d, const void *s, size_t n,  \
                                                      uint64_t *sig, uint64_t signal,    \
                                                      int sig_op, int pe)                \
    { shmem_put##BITS##_signal_nbi(d, s, n, sig, signal, nvshmemi_sig_op(sig_op), pe); }
SHMEM_SIZE_TABLE(SHMI_NV_SIZED)
#undef SHMI_NV_SIZED

/* ---- Typed RMA and broadcast: nvshmem_TYPENAME_put/get/p/g/iput/iget(_nbi),
 * put_signal(_nbi), broadcast ------------------------------------------------- */
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
    static inline void nvshmem_##N##_put_signal(T *d, const T *s, size_t n, uint64_t *sig, \
                                                uint64_t signal, int sig_op, int pe)    \
    { shmem_##N##_put_signal(d, s, n, sig, signal, nvshmemi_sig_op(sig_op), pe); }      \
    static inline void nvshmem_##N##_put_signal_nbi(T *d, const T *s, size_t n,          \
                                                    uint64_t *sig, uint64_t signal,     \
                                                    int sig_op, int pe)                 \
    { shmem_##N##_put_signal_nbi(d, s, n, sig, signal, nvshmemi_sig_op(sig_op), pe); }  \
    static inline int nvshmem_##N##_broadcast(nvshmem_team_t team, T *d, const T *s,   \
                                              size_t n, int PE_root)                    \
    { return shmem_##N##_broadcast(nvshmemi_team(team), d, s, n, PE_root); }
NVSHMEM_TYPE_TABLE(SHMI_NV_RMA)
#undef SHMI_NV_RMA

/* ---- Signals ------------------------------------------------------------------ */
static inline void nvshmem_putmem_signal(void *d, const void *s, size_t n, uint64_t *sig,
                                         uint64_t signal, int sig_op, int pe)
{ shmem_putmem_signal(d, s, n, sig, signal, nvshmemi_sig_op(sig_op), pe); }
static inline void nvshmem_putmem_signal_nbi(void *d, const void *s, size_t n, uint64_t *sig,
                                             uint64_t signal, int sig_op, int pe)
{ shmem_putmem_signal_nbi(d, s, n, sig, signal, nvshmemi_sig_op(sig_op), pe); }
static inline uint64_t nvshmem_signal_fetch(uint64_t *sig_addr)
{ return shmem_signal_fetch(sig_addr); }
/* NVSHMEM_SIGNAL_SET / _ADD on pe's signal word (atomic; wakes its waiters). */
static inline void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    if (sig_op == NVSHMEM_SIGNAL_ADD) shmem_signal_add(sig_addr, signal, pe);
    else if (sig_op == NVSHMEM_SIGNAL_SET) shmem_signal_set(sig_addr, signal, pe);
    else nvshmemi_bad_sig_op("nvshmemx_signal_op", sig_op);
}
static inline uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{ return shmem_signal_wait_until(sig_addr, nvshmemi_cmp(cmp), cmp_value); }

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
NVSHMEM_TYPE_TABLE(SHMI_NV_AMO)
#undef SHMI_NV_AMO

/* ---- Point-to-point synchronization: nvshmem_TYPENAME_wait_until/test --------- */
#define SHMI_NV_SYNC(N, T, A, B, S, G)                                                  \
    SHMI_WHEN_##S##_SYNC(                                                               \
        static inline void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)      \
        { shmem_##N##_wait_until(ivar, nvshmemi_cmp(cmp), cmp_value); }                 \
        static inline int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value)             \
        { return shmem_##N##_test(ivar, nvshmemi_cmp(cmp), cmp_value); })
NVSHMEM_TYPE_TABLE(SHMI_NV_SYNC)
#undef SHMI_NV_SYNC
#endif /* !__CUDACC__ */

/* ---- Multi-element waits and tests on host memory (shmem_ctx.h's rules):
 * nvshmem_TYPENAME_wait_until_all/any/some, test_all/any/some and _vector.
 * CUDA code: __host__ __device__ forms in nvshmem_stream.cuh. */
#ifndef __CUDACC__
#define SHMI_NV_WAITS(N, T, A, B, S, G)                                                 \
    SHMI_WHEN_##S##_SYNC(                                                               \
    static inline void nvshmem_##N##_wait_until_all(T *ivars, size_t nelems,            \
                                                    const int *status, int cmp, T v)    \
    { shmem_##N##_wait_until_all(ivars, nelems, status, nvshmemi_cmp(cmp), v); }        \
    static inline size_t nvshmem_##N##_wait_until_any(T *ivars, size_t nelems,          \
                                                      const int *status, int cmp, T v)  \
    { return shmem_##N##_wait_until_any(ivars, nelems, status, nvshmemi_cmp(cmp), v); } \
    static inline size_t nvshmem_##N##_wait_until_some(T *ivars, size_t nelems,         \
                                                       size_t *indices,                 \
                                                       const int *status, int cmp, T v) \
    { return shmem_##N##_wait_until_some(ivars, nelems, indices, status,                \
                                         nvshmemi_cmp(cmp), v); }                       \
    static inline void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems,     \
                                                           const int *status, int cmp,  \
                                                           T *vs)                       \
    { shmem_##N##_wait_until_all_vector(ivars, nelems, status, nvshmemi_cmp(cmp), vs); } \
    static inline size_t nvshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems,   \
                                                             const int *status, int cmp, \
                                                             T *vs)                     \
    { return shmem_##N##_wait_until_any_vector(ivars, nelems, status, nvshmemi_cmp(cmp), \
                                               vs); }                                   \
    static inline size_t nvshmem_##N##_wait_until_some_vector(                          \
        T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *vs)    \
    { return shmem_##N##_wait_until_some_vector(ivars, nelems, indices, status,         \
                                                nvshmemi_cmp(cmp), vs); }               \
    static inline int nvshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, \
                                             int cmp, T v)                              \
    { return shmem_##N##_test_all(ivars, nelems, status, nvshmemi_cmp(cmp), v); }       \
    static inline size_t nvshmem_##N##_test_any(T *ivars, size_t nelems,                \
                                                const int *status, int cmp, T v)        \
    { return shmem_##N##_test_any(ivars, nelems, status, nvshmemi_cmp(cmp), v); }       \
    static inline size_t nvshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, \
                                                 const int *status, int cmp, T v)       \
    { return shmem_##N##_test_some(ivars, nelems, indices, status, nvshmemi_cmp(cmp), v); } \
    static inline int nvshmem_##N##_test_all_vector(T *ivars, size_t nelems,            \
                                                    const int *status, int cmp, T *vs)  \
    { return shmem_##N##_test_all_vector(ivars, nelems, status, nvshmemi_cmp(cmp), vs); } \
    static inline size_t nvshmem_##N##_test_any_vector(T *ivars, size_t nelems,         \
                                                       const int *status, int cmp,      \
                                                       T *vs)                           \
    { return shmem_##N##_test_any_vector(ivars, nelems, status, nvshmemi_cmp(cmp), vs); } \
    static inline size_t nvshmem_##N##_test_some_vector(T *ivars, size_t nelems,        \
                                                        size_t *indices,                \
                                                        const int *status, int cmp,     \
                                                        T *vs)                          \
    { return shmem_##N##_test_some_vector(ivars, nelems, indices, status,               \
                                          nvshmemi_cmp(cmp), vs); })
NVSHMEM_TYPE_TABLE(SHMI_NV_WAITS)
#undef SHMI_NV_WAITS
#endif /* !__CUDACC__ */

#ifdef __cplusplus
}
#endif
/* As NVIDIA's nvshmem.h, this one brings the extensions too. */
#include "nvshmemx.h" /* the one beside this file */
/* Compiled by nvcc: the device API (and the __host__ __device__ forms of the
 * routines left out above). */
#ifdef __CUDACC__
#include "nvshmem_device.cuh"
#endif
#endif /* SYMHEAP_NVSHMEM_H */
