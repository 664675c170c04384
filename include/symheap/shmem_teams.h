/* shmem_teams.h - teams, team-based collectives, reductions and scans
 * (OpenSHMEM 1.6 sections "Team Management" and "Collective Routines").
 * Part of shmem.h; include shmem.h, not this file.
 *
 * Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED (the PEs of this node) and teams
 * made by shmem_team_split_strided / _split_2d.  A PE holds at most 128
 * teams at once (world and shared included); a split that would exceed this
 * returns non-zero on every PE of the parent team, with a warning.
 *
 * Collectives: every routine here is collective over its team: all members
 * call it, in the same order, with the same dest/source (symmetric) and the
 * same counts (except collect's nelems); symheap checks this and stops the
 * job naming both calls when PEs disagree.  All return 0.  dest may equal
 * source (in place) for broadcast, reductions and scans; for collect,
 * fcollect and alltoall(s) the buffers must not overlap.  Only one thread of
 * a PE may run collectives on a given team at a time.
 *
 * Typed families are generated from SHMEM_TYPE_TABLE (broadcast, collect,
 * fcollect, alltoall, alltoalls: the standard RMA types) and from
 * SHMEM_REDUCE_TABLE below (reductions and scans). */
#ifndef SHMEM_TEAMS_H
#define SHMEM_TEAMS_H

/* ---- Team management -------------------------------------------------------- */
typedef struct {
    int num_contexts;  /* contexts the program means to create from the team */
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)  /* config_mask bit: use num_contexts */

/* -1 for SHMEM_TEAM_INVALID. */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
/* Non-zero for SHMEM_TEAM_INVALID. */
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
/* src_pe's number in dest_team, or -1 (not in both teams, or an invalid team). */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
/* Collective over parent_team.  Members of the new team get a handle, the
 * others SHMEM_TEAM_INVALID; returns 0 on every parent PE, or non-zero on
 * every parent PE (invalid triplet or xrange, or no free team slot). */
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
/* Collective over team; SHMEM_TEAM_INVALID: nothing.  Predefined teams
 * cannot be destroyed. */
void shmem_team_destroy(shmem_team_t team);
/* Local address of dest on team member pe (NULL for SHMEM_TEAM_INVALID). */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
/* Barrier over the team without completing outstanding puts (see
 * shmem_barrier_all for that).  -1 for SHMEM_TEAM_INVALID. */
int shmem_team_sync(shmem_team_t team);

/* ---- Broadcast, collect, fcollect, alltoall, alltoalls -----------------------
 * nelems counts elements (bytes for the *mem forms).  broadcast: PE_root is a
 * team rank; dest is written on every member, the root included.  collect:
 * nelems may differ per PE; dest gets the blocks in team rank order.
 * alltoall(s): source and dest hold team-size blocks of nelems elements;
 * alltoalls strides dst, sst >= 1 are in elements. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);

#define SHMI_DECL_TEAMCOLL(N, T, A, B, S, G)                                              \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, \
                              int PE_root);                                               \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);  \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems);
SHMEM_TYPE_TABLE(SHMI_DECL_TEAMCOLL)

/* ---- Reductions and scans: the reduction type table -------------------------
 * X(NAME, TYPE, BIT, ORD, GEN)
 *   BIT  BIT: and, or, xor reductions; NONE.
 *   ORD  ORD: max, min reductions; NONE (complex types).
 *        Every row has sum and prod reductions and the sum_inscan/_exscan scans.
 *   GEN  GEN: in the C11 _Generic interfaces; NOGEN: a fixed-width typedef
 *        that aliases a row above; BITGEN: such an alias that is in the
 *        bitwise _Generic interfaces only (int8_t..int64_t alias signed rows,
 *        which have no bitwise reductions, so they cannot clash).
 * Rows are the spec's Table "Reduction Types, Names, and Supporting
 * Operations for Team-Based Reductions".  Integer sums and products wrap
 * around on overflow (computed unsigned). */
#define SHMEM_REDUCE_TABLE(X)                                  \
    X(char,       char,               NONE, ORD,  GEN)         \
    X(schar,      signed char,        NONE, ORD,  GEN)         \
    X(short,      short,              NONE, ORD,  GEN)         \
    X(int,        int,                NONE, ORD,  GEN)         \
    X(long,       long,               NONE, ORD,  GEN)         \
    X(longlong,   long long,          NONE, ORD,  GEN)         \
    X(ptrdiff,    ptrdiff_t,          NONE, ORD,  NOGEN)       \
    X(uchar,      unsigned char,      BIT,  ORD,  GEN)         \
    X(ushort,     unsigned short,     BIT,  ORD,  GEN)         \
    X(uint,       unsigned int,       BIT,  ORD,  GEN)         \
    X(ulong,      unsigned long,      BIT,  ORD,  GEN)         \
    X(ulonglong,  unsigned long long, BIT,  ORD,  GEN)         \
    X(int8,       int8_t,             BIT,  ORD,  BITGEN)      \
    X(int16,      int16_t,            BIT,  ORD,  BITGEN)      \
    X(int32,      int32_t,            BIT,  ORD,  BITGEN)      \
    X(int64,      int64_t,            BIT,  ORD,  BITGEN)      \
    X(uint8,      uint8_t,            BIT,  ORD,  NOGEN)       \
    X(uint16,     uint16_t,           BIT,  ORD,  NOGEN)       \
    X(uint32,     uint32_t,           BIT,  ORD,  NOGEN)       \
    X(uint64,     uint64_t,           BIT,  ORD,  NOGEN)       \
    X(size,       size_t,             BIT,  ORD,  NOGEN)       \
    X(float,      float,              NONE, ORD,  GEN)         \
    X(double,     double,             NONE, ORD,  GEN)         \
    X(longdouble, long double,        NONE, ORD,  GEN)         \
    SHMI_REDUCE_COMPLEX_ROWS(X)
/* Complex rows (sum and prod only) need C99 complex support. */
#if defined(__STDC_NO_COMPLEX__)
#define SHMI_REDUCE_COMPLEX_ROWS(X)
#else
#define SHMI_REDUCE_COMPLEX_ROWS(X)                            \
    X(complexd,   double _Complex,    NONE, NONE, GEN)         \
    X(complexf,   float _Complex,     NONE, NONE, GEN)
#endif

/* Column selectors for the reduction table (see SHMI_WHEN_* in shmem.h). */
#define SHMI_WHEN_ORD_ORD(...) __VA_ARGS__
#define SHMI_WHEN_NONE_ORD(...)
#define SHMI_WHEN_BITGEN_GEN(...)
#define SHMI_WHEN_GEN_BITGEN(...) __VA_ARGS__
#define SHMI_WHEN_BITGEN_BITGEN(...) __VA_ARGS__
#define SHMI_WHEN_NOGEN_BITGEN(...)

/* nreduce / nelems: elements per PE; dest and source hold that many.
 * Results are bit-identical on every member (each element is combined once,
 * in team rank order).  inscan: dest on rank i = source(0) + ... + source(i);
 * exscan: source(0) + ... + source(i - 1), zero on rank 0. */
#define SHMI_DECL_REDUCE1(N, T, OP)                                                       \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,           \
                                  size_t nreduce);
#define SHMI_DECL_REDUCE(N, T, B, O, G)                                                   \
    SHMI_WHEN_##B##_BIT(SHMI_DECL_REDUCE1(N, T, and) SHMI_DECL_REDUCE1(N, T, or)          \
                        SHMI_DECL_REDUCE1(N, T, xor))                                     \
    SHMI_WHEN_##O##_ORD(SHMI_DECL_REDUCE1(N, T, max) SHMI_DECL_REDUCE1(N, T, min))        \
    SHMI_DECL_REDUCE1(N, T, sum) SHMI_DECL_REDUCE1(N, T, prod)                            \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems);
SHMEM_REDUCE_TABLE(SHMI_DECL_REDUCE)

/* ---- C11 generic interfaces of the team routines -----------------------------
 * Dispatch on dest's pointer type; a type the operation lacks is a compile
 * error naming shmi_no_such_type. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
void shmi_no_such_type(void);
#define SHMI_TGEN_broadcast(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_broadcast,)
#define SHMI_TGEN_collect(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_collect,)
#define SHMI_TGEN_fcollect(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_fcollect,)
#define SHMI_TGEN_alltoall(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_alltoall,)
#define SHMI_TGEN_alltoalls(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_alltoalls,)
#define SHMI_TGENERIC(op, x)                                                              \
    _Generic((x), SHMEM_TYPE_TABLE(SHMI_TGEN_##op) default: shmi_no_such_type)
#define shmem_broadcast(team, d, ...) SHMI_TGENERIC(broadcast, d)(team, d, __VA_ARGS__)
#define shmem_collect(team, d, ...) SHMI_TGENERIC(collect, d)(team, d, __VA_ARGS__)
#define shmem_fcollect(team, d, ...) SHMI_TGENERIC(fcollect, d)(team, d, __VA_ARGS__)
#define shmem_alltoall(team, d, ...) SHMI_TGENERIC(alltoall, d)(team, d, __VA_ARGS__)
#define shmem_alltoalls(team, d, ...) SHMI_TGENERIC(alltoalls, d)(team, d, __VA_ARGS__)

#define SHMI_RGEN_BIT(N, T, B, G, F) SHMI_WHEN_##B##_BIT(SHMI_WHEN_##G##_BITGEN(T *: F,))
#define SHMI_RGEN_ORD(N, T, O, G, F) SHMI_WHEN_##O##_ORD(SHMI_WHEN_##G##_GEN(T *: F,))
#define SHMI_RGEN_and(N, T, B, O, G) SHMI_RGEN_BIT(N, T, B, G, shmem_##N##_and_reduce)
#define SHMI_RGEN_or(N, T, B, O, G) SHMI_RGEN_BIT(N, T, B, G, shmem_##N##_or_reduce)
#define SHMI_RGEN_xor(N, T, B, O, G) SHMI_RGEN_BIT(N, T, B, G, shmem_##N##_xor_reduce)
#define SHMI_RGEN_max(N, T, B, O, G) SHMI_RGEN_ORD(N, T, O, G, shmem_##N##_max_reduce)
#define SHMI_RGEN_min(N, T, B, O, G) SHMI_RGEN_ORD(N, T, O, G, shmem_##N##_min_reduce)
#define SHMI_RGEN_sum(N, T, B, O, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_sum_reduce,)
#define SHMI_RGEN_prod(N, T, B, O, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_prod_reduce,)
#define SHMI_RGEN_inscan(N, T, B, O, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_sum_inscan,)
#define SHMI_RGEN_exscan(N, T, B, O, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_sum_exscan,)
#define SHMI_RGENERIC(op, x)                                                              \
    _Generic((x), SHMEM_REDUCE_TABLE(SHMI_RGEN_##op) default: shmi_no_such_type)
#define shmem_and_reduce(team, d, ...) SHMI_RGENERIC(and, d)(team, d, __VA_ARGS__)
#define shmem_or_reduce(team, d, ...) SHMI_RGENERIC(or, d)(team, d, __VA_ARGS__)
#define shmem_xor_reduce(team, d, ...) SHMI_RGENERIC(xor, d)(team, d, __VA_ARGS__)
#define shmem_max_reduce(team, d, ...) SHMI_RGENERIC(max, d)(team, d, __VA_ARGS__)
#define shmem_min_reduce(team, d, ...) SHMI_RGENERIC(min, d)(team, d, __VA_ARGS__)
#define shmem_sum_reduce(team, d, ...) SHMI_RGENERIC(sum, d)(team, d, __VA_ARGS__)
#define shmem_prod_reduce(team, d, ...) SHMI_RGENERIC(prod, d)(team, d, __VA_ARGS__)
#define shmem_sum_inscan(team, d, ...) SHMI_RGENERIC(inscan, d)(team, d, __VA_ARGS__)
#define shmem_sum_exscan(team, d, ...) SHMI_RGENERIC(exscan, d)(team, d, __VA_ARGS__)

/* shmem_sync(team) is shmem_team_sync; the deprecated active-set form
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync) keeps its own routine
 * (chosen by the argument count; inside this macro the name shmem_sync is
 * not expanded again, so that routine's declaration and definition pass
 * through unchanged). */
#define SHMI_ARG5(a, b, c, d, e, ...) e
#define shmem_sync(...)                                                                   \
    SHMI_ARG5(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, ~)(__VA_ARGS__)
#endif

#endif
