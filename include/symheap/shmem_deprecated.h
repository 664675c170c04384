/* shmem_deprecated.h - names OpenSHMEM 1.6 deprecates but still lists (its
 * annex "Deprecated API"), so that old programs and test suites build
 * unchanged.  Part of shmem.h; include shmem.h, not this file.
 *
 * Every routine here is the 1.6 routine it was replaced by, under the old
 * name (start_pes is shmem_init, shmem_int_fadd is
 * shmem_int_atomic_fetch_add, ...), except the active-set collectives,
 * which have their own implementation (src/api/deprecated.c): only the PEs
 * of the active set call them, so they cannot use a team (a team is made by
 * a collective call of its parent).
 *
 * Active sets: the PEs PE_start + i * 2^logPE_stride, 0 <= i < PE_size; PE
 * numbers (PE_root too) are world PE numbers, except that PE_root of
 * broadcast32/64 is the root's index in the active set (spec).  pSync is a
 * symmetric long array of the routine's SHMEM_*_SYNC_SIZE, every element
 * SHMEM_SYNC_VALUE before the first call (the routines leave it so); the
 * same pSync may be passed to consecutive calls over the same active set.
 * symheap reads the PEs' sources directly, so pWrk is not used (any
 * symmetric array, or NULL, is accepted); broadcast32/64 leave dest on the
 * root unchanged, as the spec says.  A PE outside the active set that calls
 * one of them returns at once without touching pSync, dest or source (as
 * Open MPI's OSHMEM does; with SHMEM_CHECKS=full one warning says so, once).
 * Out-of-range triplets and non-symmetric buffers are fatal errors naming
 * the call.
 *
 * Deprecation warnings: every declaration here carries
 * __attribute__((deprecated)) (with the replacement's name) unless
 * SHMEM_NO_DEPRECATION_WARNINGS is defined before shmem.h is included.
 *
 * Typed families come from the type tables of shmem.h and shmem_teams.h,
 * filtered by the SHMI_OLD_* selectors below (the spec's lists of types for
 * each deprecated family); nothing is listed by hand twice. */
#ifndef SHMEM_DEPRECATED_H
#define SHMEM_DEPRECATED_H

#if defined(SHMEM_NO_DEPRECATION_WARNINGS)
#define SHMI_DEPRECATED(use)
#else
#define SHMI_DEPRECATED(use) __attribute__((deprecated("deprecated in OpenSHMEM; use " use)))
#endif

/* ---- Library constants ------------------------------------------------------ */
#define SHMI_ASET_ROUNDS 16 /* dissemination rounds: active sets of up to 65536 PEs */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE SHMI_ASET_ROUNDS
#define SHMEM_BCAST_SYNC_SIZE SHMI_ASET_ROUNDS
#define SHMEM_REDUCE_SYNC_SIZE SHMI_ASET_ROUNDS
#define SHMEM_COLLECT_SYNC_SIZE (SHMI_ASET_ROUNDS + 1) /* + the PE's element count */
#define SHMEM_ALLTOALL_SYNC_SIZE SHMI_ASET_ROUNDS
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMI_ASET_ROUNDS
#define SHMEM_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE /* the largest of the above */
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
/* _SHMEM_MAJOR_VERSION, _SHMEM_CMP_EQ, ...: shmem.h, beside the current names. */

/* ---- Setup, query, memory ---------------------------------------------------- */
/* npes is ignored (spec); a program that returns from main is finalized. */
void start_pes(int npes) SHMI_DEPRECATED("shmem_init");
int _my_pe(void) SHMI_DEPRECATED("shmem_my_pe");
int _num_pes(void) SHMI_DEPRECATED("shmem_n_pes");
void *shmalloc(size_t size) SHMI_DEPRECATED("shmem_malloc");
void shfree(void *ptr) SHMI_DEPRECATED("shmem_free");
void *shrealloc(void *ptr, size_t size) SHMI_DEPRECATED("shmem_realloc");
void *shmemalign(size_t alignment, size_t size) SHMI_DEPRECATED("shmem_align");

/* Cache management (deprecated in 1.3): no-ops on cache-coherent machines. */
void shmem_clear_cache_inv(void) SHMI_DEPRECATED("nothing (a no-op)");
void shmem_set_cache_inv(void) SHMI_DEPRECATED("nothing (a no-op)");
void shmem_clear_cache_line_inv(void *dest) SHMI_DEPRECATED("nothing (a no-op)");
void shmem_set_cache_line_inv(void *dest) SHMI_DEPRECATED("nothing (a no-op)");
void shmem_udcflush(void) SHMI_DEPRECATED("nothing (a no-op)");
void shmem_udcflush_line(void *dest) SHMI_DEPRECATED("nothing (a no-op)");

/* ---- Selectors: which rows of a type table have a deprecated family -----------
 * SHMI_OLD_AMO_<NAME>: the old AMO names (shmem_int_fadd...): STD rows have
 * fetch, set, swap, cswap, finc, inc, fadd, add; EXT rows fetch, set, swap.
 * SHMI_OLD_WAIT_<NAME>: shmem_<NAME>_wait.  SHMI_OLD_TOALL_<NAME>: the
 * *_to_all reductions: BITORD rows have and, or, xor, max, min, sum, prod;
 * ORD rows max, min, sum, prod; ARITH rows sum, prod.  SHMI_OLD_ASET_<BITS>:
 * the sized active-set collectives.  A row not named has none (a probe: an
 * undefined selector reads as NONE). */
#define SHMI_OLD_AMO_int ~, STD
#define SHMI_OLD_AMO_long ~, STD
#define SHMI_OLD_AMO_longlong ~, STD
#define SHMI_OLD_AMO_float ~, EXT
#define SHMI_OLD_AMO_double ~, EXT
#define SHMI_OLD_WAIT_short ~, WAIT
#define SHMI_OLD_WAIT_int ~, WAIT
#define SHMI_OLD_WAIT_long ~, WAIT
#define SHMI_OLD_WAIT_longlong ~, WAIT
#define SHMI_OLD_TOALL_short ~, BITORD
#define SHMI_OLD_TOALL_int ~, BITORD
#define SHMI_OLD_TOALL_long ~, BITORD
#define SHMI_OLD_TOALL_longlong ~, BITORD
#define SHMI_OLD_TOALL_float ~, ORD
#define SHMI_OLD_TOALL_double ~, ORD
#define SHMI_OLD_TOALL_longdouble ~, ORD
#define SHMI_OLD_TOALL_complexd ~, ARITH
#define SHMI_OLD_TOALL_complexf ~, ARITH
#define SHMI_OLD_ASET_32 ~, ASET
#define SHMI_OLD_ASET_64 ~, ASET
#define SHMI_PROBE_2ND(a, b, ...) b
#define SHMI_PROBE(x) SHMI_PROBE_2ND(x, NONE, ~)
#define SHMI_CAT(a, b) SHMI_CAT_(a, b)
#define SHMI_CAT_(a, b) a##b
/* SHMI_OLD(AMO, int, M) -> M_STD; SHMI_OLD(AMO, char, M) -> M_NONE. */
#define SHMI_OLD(SEL, N, M) SHMI_CAT(M##_, SHMI_PROBE(SHMI_OLD_##SEL##_##N))

/* ---- Old AMO names (deprecated in 1.4) ---------------------------------------- */
#define SHMI_DECL_OLDAMO_EXT(N, T)                                                       \
    T shmem_##N##_fetch(const T *source, int pe)                                       \
        SHMI_DEPRECATED("shmem_" #N "_atomic_fetch");                                   \
    void shmem_##N##_set(T *dest, T value, int pe) SHMI_DEPRECATED("shmem_" #N "_atomic_set"); \
    T shmem_##N##_swap(T *dest, T value, int pe) SHMI_DEPRECATED("shmem_" #N "_atomic_swap");
#define SHMI_DECL_OLDAMO_STD(N, T)                                                       \
    SHMI_DECL_OLDAMO_EXT(N, T)                                                           \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                              \
        SHMI_DEPRECATED("shmem_" #N "_atomic_compare_swap");                            \
    T shmem_##N##_finc(T *dest, int pe) SHMI_DEPRECATED("shmem_" #N "_atomic_fetch_inc"); \
    void shmem_##N##_inc(T *dest, int pe) SHMI_DEPRECATED("shmem_" #N "_atomic_inc");   \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                       \
        SHMI_DEPRECATED("shmem_" #N "_atomic_fetch_add");                               \
    void shmem_##N##_add(T *dest, T value, int pe) SHMI_DEPRECATED("shmem_" #N "_atomic_add");
#define SHMI_DECL_OLDAMO_NONE(N, T)
#define SHMI_DECL_OLDWAIT_WAIT(N, T)                                                     \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                        \
        SHMI_DEPRECATED("shmem_" #N "_wait_until(ivar, SHMEM_CMP_NE, cmp_value)");
#define SHMI_DECL_OLDWAIT_NONE(N, T)
#define SHMI_DECL_OLD(N, T, A, B, S, G)                                                  \
    SHMI_OLD(AMO, N, SHMI_DECL_OLDAMO)(N, T) SHMI_OLD(WAIT, N, SHMI_DECL_OLDWAIT)(N, T)
SHMEM_TYPE_TABLE(SHMI_DECL_OLD)

/* ---- Point-to-point synchronization (deprecated in 1.4) ------------------------ */
void shmem_wait(long *ivar, long cmp_value)
    SHMI_DEPRECATED("shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value)");
/* The long-typed C routine; the name in parentheses is not the C11 generic macro. */
void (shmem_wait_until)(long *ivar, int cmp, long cmp_value)
    SHMI_DEPRECATED("shmem_long_wait_until");

/* ---- Active-set collectives (deprecated in 1.5) --------------------------------- */
/* shmem_quiet, then a barrier over the active set. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
    SHMI_DEPRECATED("shmem_quiet and shmem_team_sync");
/* A barrier over the active set that does not complete outstanding puts.
 * (The C11 macro shmem_sync of shmem_teams.h picks this routine for four
 * arguments.) */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
    SHMI_DEPRECATED("shmem_team_sync");

#define SHMI_DECL_ASET_ASET(BITS)                                                        \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, \
                               int PE_start, int logPE_stride, int PE_size, long *pSync) \
        SHMI_DEPRECATED("shmem_broadcastmem or shmem_TYPE_broadcast on a team");        \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                             int logPE_stride, int PE_size, long *pSync)                \
        SHMI_DEPRECATED("shmem_collectmem or shmem_TYPE_collect on a team");            \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                              int logPE_stride, int PE_size, long *pSync)               \
        SHMI_DEPRECATED("shmem_fcollectmem or shmem_TYPE_fcollect on a team");          \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                              int logPE_stride, int PE_size, long *pSync)               \
        SHMI_DEPRECATED("shmem_alltoallmem or shmem_TYPE_alltoall on a team");          \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size, \
                               long *pSync)                                              \
        SHMI_DEPRECATED("shmem_alltoallsmem or shmem_TYPE_alltoalls on a team");
#define SHMI_DECL_ASET_NONE(BITS)
#define SHMI_DECL_ASET(BITS, BYTES) SHMI_OLD(ASET, BITS, SHMI_DECL_ASET)(BITS)
SHMEM_SIZE_TABLE(SHMI_DECL_ASET)

/* nreduce elements per PE; dest and source the same buffer or disjoint. */
#define SHMI_DECL_TOALL1(N, T, OP)                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,  \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)  \
        SHMI_DEPRECATED("shmem_" #N "_" #OP "_reduce on a team");
#define SHMI_TOALL_OPS_ARITH(M, N, T) M(N, T, sum) M(N, T, prod)
#define SHMI_TOALL_OPS_ORD(M, N, T) M(N, T, max) M(N, T, min) SHMI_TOALL_OPS_ARITH(M, N, T)
#define SHMI_TOALL_OPS_BITORD(M, N, T)                                                   \
    M(N, T, and) M(N, T, or) M(N, T, xor) SHMI_TOALL_OPS_ORD(M, N, T)
#define SHMI_TOALL_OPS_NONE(M, N, T)
/* M(N, T, OP) for every to_all routine of reduction-table row (N, T). */
#define SHMI_TOALL_EACH(M, N, T) SHMI_OLD(TOALL, N, SHMI_TOALL_OPS)(M, N, T)
#define SHMI_DECL_TOALL(N, T, B, O, G) SHMI_TOALL_EACH(SHMI_DECL_TOALL1, N, T)
SHMEM_REDUCE_TABLE(SHMI_DECL_TOALL)

/* ---- C11 generic forms of the old AMO names ------------------------------------
 * They take every type the shmem_atomic_ generic of the same operation takes (a
 * superset of the spec's int, long, long long, as other implementations do:
 * tests-sos calls shmem_add on unsigned types); no context argument.
 * SHMI_GENERIC is shmem_generic.h's, defined by the time these are used. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define shmem_fetch(source, ...) SHMI_GENERIC(atomic_fetch, source)(source, __VA_ARGS__)
#define shmem_set(dest, ...) SHMI_GENERIC(atomic_set, dest)(dest, __VA_ARGS__)
#define shmem_swap(dest, ...) SHMI_GENERIC(atomic_swap, dest)(dest, __VA_ARGS__)
#define shmem_cswap(dest, ...) SHMI_GENERIC(atomic_compare_swap, dest)(dest, __VA_ARGS__)
#define shmem_finc(dest, ...) SHMI_GENERIC(atomic_fetch_inc, dest)(dest, __VA_ARGS__)
#define shmem_inc(dest, ...) SHMI_GENERIC(atomic_inc, dest)(dest, __VA_ARGS__)
#define shmem_fadd(dest, ...) SHMI_GENERIC(atomic_fetch_add, dest)(dest, __VA_ARGS__)
#define shmem_add(dest, ...) SHMI_GENERIC(atomic_add, dest)(dest, __VA_ARGS__)
#endif

#endif
