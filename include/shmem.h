/* shmem.h - the OpenSHMEM 1.6 C API of symheap.
 *
 * Typed families (put/get/p/g, atomics, point-to-point synchronization,
 * broadcast) are generated from the one type table SHMEM_TYPE_TABLE below:
 * the same list makes the prototypes here, the bodies in src/api/, the C11
 * _Generic interfaces and the per-type tests, so no list is copied by hand.
 *
 * Symmetric addresses: memory from the shmem_malloc family, and the program's
 * global and static variables, are symmetric.  Every PE gets the same address
 * for the same heap allocation.  Passing any other address where a symmetric
 * one is required is reported as an error naming the PE, call and values.
 *
 * Thread safety: with SHMEM_THREAD_MULTIPLE, RMA, atomics, quiet/fence and
 * waits may be called by several threads at once; collectives (allocation,
 * barrier, broadcast) must be called by one thread per PE, in the same order
 * on every PE. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "symheap"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* Thread levels (shmem_init_thread). */
enum {
    SHMEM_THREAD_SINGLE = 0,
    SHMEM_THREAD_FUNNELED = 1,
    SHMEM_THREAD_SERIALIZED = 2,
    SHMEM_THREAD_MULTIPLE = 3
};

/* Point-to-point comparison operators (shmem_wait_until, shmem_test). */
enum {
    SHMEM_CMP_EQ = 0,
    SHMEM_CMP_NE = 1,
    SHMEM_CMP_GT = 2,
    SHMEM_CMP_GE = 3,
    SHMEM_CMP_LT = 4,
    SHMEM_CMP_LE = 5
};
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Memory hints (shmem_malloc_with_hints): accepted, used for placement. */
#define SHMEM_MALLOC_ATOMICS_REMOTE 0x1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 0x2L

/* Teams: opaque handles.  SHMEM_TEAM_SHARED is the PEs of this node (those
 * shmem_ptr reaches; just this PE when they are not a strided set of world
 * PEs); splits and team routines: symheap/shmem_teams.h. */
typedef struct shmem_team_s *shmem_team_t;
extern struct shmem_team_s shmi_team_world_s, shmi_team_shared_s;
#define SHMEM_TEAM_WORLD (&shmi_team_world_s)
#define SHMEM_TEAM_SHARED (&shmi_team_shared_s)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* Contexts: opaque handles; SHMEM_CTX_DEFAULT is the default context. */
typedef struct shmem_ctx_s *shmem_ctx_t;
extern struct shmem_ctx_s shmi_ctx_default_s;
#define SHMEM_CTX_DEFAULT (&shmi_ctx_default_s)

/* ---- The type table --------------------------------------------------------
 * X(NAME, TYPE, AMO, BIT, SYNC, GEN)
 *   AMO  STD: standard AMOs (fetch_add, add, inc, fetch_inc, compare_swap, and
 *             the extended ones); EXT: extended AMOs only (fetch, set, swap);
 *             NONE: no AMOs.
 *   BIT  BIT: bitwise AMOs (and, or, xor); NONE.
 *   SYNC SYNC: point-to-point synchronization (wait_until, test); NONE.
 *   GEN  GEN: part of the C11 _Generic interfaces; NOGEN for the fixed-width
 *        typedefs (int8_t...), which alias a row above and _Generic cannot
 *        tell apart.
 * Rows are the spec's Table "Standard RMA Types". */
#define SHMEM_TYPE_TABLE(X)                                   \
    X(float,      float,              EXT,  NONE, NONE, GEN)       \
    X(double,     double,             EXT,  NONE, NONE, GEN)       \
    X(longdouble, long double,        NONE, NONE, NONE, GEN)       \
    X(char,       char,               NONE, NONE, NONE, GEN)       \
    X(schar,      signed char,        NONE, NONE, NONE, GEN)       \
    X(short,      short,              NONE, NONE, SYNC, GEN)       \
    X(int,        int,                STD,  NONE, SYNC, GEN)       \
    X(long,       long,               STD,  NONE, SYNC, GEN)       \
    X(longlong,   long long,          STD,  NONE, SYNC, GEN)       \
    X(uchar,      unsigned char,      NONE, NONE, NONE, GEN)       \
    X(ushort,     unsigned short,     NONE, NONE, SYNC, GEN)       \
    X(uint,       unsigned int,       STD,  BIT,  SYNC, GEN)       \
    X(ulong,      unsigned long,      STD,  BIT,  SYNC, GEN)       \
    X(ulonglong,  unsigned long long, STD,  BIT,  SYNC, GEN)       \
    X(int8,       int8_t,             NONE, NONE, NONE, NOGEN)       \
    X(int16,      int16_t,            NONE, NONE, NONE, NOGEN)       \
    X(int32,      int32_t,            STD,  BIT,  SYNC, NOGEN)       \
    X(int64,      int64_t,            STD,  BIT,  SYNC, NOGEN)       \
    X(uint8,      uint8_t,            NONE, NONE, NONE, NOGEN)       \
    X(uint16,     uint16_t,           NONE, NONE, NONE, NOGEN)       \
    X(uint32,     uint32_t,           STD,  BIT,  SYNC, NOGEN)       \
    X(uint64,     uint64_t,           STD,  BIT,  SYNC, NOGEN)       \
    X(size,       size_t,             STD,  NONE, SYNC, NOGEN)       \
    X(ptrdiff,    ptrdiff_t,          STD,  NONE, SYNC, NOGEN)

/* Sized RMA (shmem_put8 ... shmem_put128): X(BITS, BYTES) */
#define SHMEM_SIZE_TABLE(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

/* Column selectors: SHMI_WHEN_<column value>_<family>(x) keeps x or drops it. */
#define SHMI_WHEN_STD_AMO(...) __VA_ARGS__
#define SHMI_WHEN_EXT_AMO(...)
#define SHMI_WHEN_NONE_AMO(...)
#define SHMI_WHEN_STD_EXTAMO(...) __VA_ARGS__
#define SHMI_WHEN_EXT_EXTAMO(...) __VA_ARGS__
#define SHMI_WHEN_NONE_EXTAMO(...)
#define SHMI_WHEN_BIT_BIT(...) __VA_ARGS__
#define SHMI_WHEN_NONE_BIT(...)
#define SHMI_WHEN_SYNC_SYNC(...) __VA_ARGS__
#define SHMI_WHEN_NONE_SYNC(...)
#define SHMI_WHEN_GEN_GEN(...) __VA_ARGS__
#define SHMI_WHEN_NOGEN_GEN(...)

/* ---- Library setup and query ---------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
/* Both may be called at any time, before shmem_init and after shmem_finalize
 * too.  initialized: non-zero between an initialization and its last
 * matching shmem_finalize (init and finalize calls nest, spec 1.6). */
void shmem_query_initialized(int *initialized);
void shmem_query_finalized(int *finalized);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
/* Profiling control (spec annex "Profiling Interface"): symheap itself does
 * no profiling; it keeps the level (1 after shmem_init; <= 0 off, 1 on, 2
 * flush, > 2 tool-defined with further arguments), logs changes with
 * SHMEM_DEBUG=1, and shmemx_pcontrol_level() returns it.  A profiling tool
 * replaces this routine (see pshmem.h). */
void shmem_pcontrol(int level, ...);

/* ---- Memory management ----------------------------------------------------
 * Collective: every PE calls with the same arguments, in the same order; the
 * result is the same address on every PE.  malloc/calloc/align/realloc end
 * with a barrier, free and realloc start with one.  Size 0 gives NULL
 * without a barrier, free(NULL) does nothing.  Out of memory gives NULL on
 * every PE, with a message naming SHMEM_SYMMETRIC_SIZE. */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

/* ---- RMA -------------------------------------------------------------------- */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

#define SHMI_DECL_RMA(N, T, A, B, S, G)                                                 \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);           \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);           \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);       \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);       \
    void shmem_##N##_p(T *dest, T value, int pe);                                    \
    T shmem_##N##_g(const T *source, int pe);                                        \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                          size_t nelems, int pe);                                    \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                          size_t nelems, int pe);
SHMEM_TYPE_TABLE(SHMI_DECL_RMA)

#define SHMI_DECL_SIZED(BITS, BYTES)                                                 \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);     \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);     \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                          size_t nelems, int pe);                                    \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                          size_t nelems, int pe);
SHMEM_SIZE_TABLE(SHMI_DECL_SIZED)

/* ---- Atomic memory operations ---------------------------------------------- */
#define SHMI_DECL_AMO(N, T, A, B, S, G)                                                  SHMI_WHEN_##A##_EXTAMO(                                                           \
        T shmem_##N##_atomic_fetch(const T *source, int pe);                          \
        void shmem_##N##_atomic_set(T *dest, T value, int pe);                        \
        T shmem_##N##_atomic_swap(T *dest, T value, int pe);)                         SHMI_WHEN_##A##_AMO(                                                              \
        T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);          \
        T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                              \
        void shmem_##N##_atomic_inc(T *dest, int pe);                                 \
        T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                     \
        void shmem_##N##_atomic_add(T *dest, T value, int pe);)                       SHMI_WHEN_##B##_BIT(                                                              \
        T shmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                     \
        void shmem_##N##_atomic_and(T *dest, T value, int pe);                        \
        T shmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                      \
        void shmem_##N##_atomic_or(T *dest, T value, int pe);                         \
        T shmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                     \
        void shmem_##N##_atomic_xor(T *dest, T value, int pe);)
SHMEM_TYPE_TABLE(SHMI_DECL_AMO)

/* ---- Point-to-point synchronization ------------------------------------------ */
#define SHMI_DECL_SYNC(N, T, A, B, S, G)                                                 SHMI_WHEN_##S##_SYNC(                                                             \
        void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                   \
        int shmem_##N##_test(T *ivar, int cmp, T cmp_value);)
SHMEM_TYPE_TABLE(SHMI_DECL_SYNC)

/* ---- Ordering and collectives on the world team -----------------------------
 * (team collectives, shmem_team_sync and broadcast: symheap/shmem_teams.h) */
void shmem_quiet(void);
void shmem_fence(void);
void shmem_barrier_all(void);
void shmem_sync_all(void);

/* ---- Further API groups, one header each (all part of shmem.h) ---------- */
#include <symheap/shmem_teams.h>      /* teams, team collectives, reductions */
#include <symheap/shmem_ctx.h>        /* contexts, signals, locks, multi-waits, nbi AMOs */
#include <symheap/shmem_deprecated.h> /* names the spec deprecates but still lists */
#include <symheap/shmem_generic.h>    /* C11 _Generic interfaces */

#ifdef __cplusplus
}
#endif
#endif /* SHMEM_H */
