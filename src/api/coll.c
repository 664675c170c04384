/* coll.c - the team collectives' entry points (OpenSHMEM 1.6 section 9.9):
 * broadcast, collect, fcollect, alltoall(s), reductions and scans, the
 * *mem forms and the typed families generated from the type tables.  Each
 * body names its call site (mismatch messages show it on every PE) and calls
 * the size-based routine of the core (core/coll.h), which picks the team's
 * algorithms. */
#include "core/coll.h"
#include "core/hooks.h" /* SHMI_SITE */

#include <shmem.h>

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{ SHMI_SITE(); return shmi_coll_broadcast(__func__, team, dest, source, nelems, 1, PE_root); }
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{ SHMI_SITE(); return shmi_coll_collect(__func__, team, dest, source, nelems, 1); }
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{ SHMI_SITE(); return shmi_coll_fcollect(__func__, team, dest, source, nelems, 1); }
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{ SHMI_SITE(); return shmi_coll_alltoall(__func__, team, dest, source, nelems, 1); }
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{ SHMI_SITE(); return shmi_coll_alltoalls(__func__, team, dest, source, dst, sst, nelems, 1); }

#define SHMI_COLL_BODY(call, ...)                                                        \
    {                                                                                     \
        SHMI_SITE();                                                                      \
        return shmi_coll_##call(__func__, team, dest, source, __VA_ARGS__);               \
    }
#define SHMI_DEF_COLL(N, T, A, B, S, G)                                                    \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, \
                              int PE_root)                                                \
    SHMI_COLL_BODY(broadcast, nelems, sizeof(T), PE_root)                                 \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)   \
    SHMI_COLL_BODY(collect, nelems, sizeof(T))                                            \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)  \
    SHMI_COLL_BODY(fcollect, nelems, sizeof(T))                                           \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)  \
    SHMI_COLL_BODY(alltoall, nelems, sizeof(T))                                           \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems)                               \
    SHMI_COLL_BODY(alltoalls, dst, sst, nelems, sizeof(T))
SHMEM_TYPE_TABLE(SHMI_DEF_COLL)
SHMEMX_FP16_TYPE_ROWS(SHMI_DEF_COLL) /* half, bfloat16 (shmemx_fp16.h) */

#define SHMI_DEF_REDUCE1(N, T, OP, RED)                                                   \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,           \
                                  size_t nreduce)                                         \
    {                                                                                     \
        SHMI_SITE();                                                                      \
        return shmi_coll_reduce(__func__, team, dest, source, nreduce, RT_##N, RED);      \
    }
#define SHMI_DEF_SCAN(N, T, OP, RED)                                                      \
    int shmem_##N##_sum_##OP(shmem_team_t team, T *dest, const T *source, size_t nelems)  \
    {                                                                                     \
        SHMI_SITE();                                                                      \
        return shmi_coll_reduce(__func__, team, dest, source, nelems, RT_##N, RED);       \
    }
#define SHMI_DEF_REDUCE(N, T, B, O, G)                                                    \
    SHMI_WHEN_##B##_BIT(SHMI_DEF_REDUCE1(N, T, and, RED_AND)                              \
                        SHMI_DEF_REDUCE1(N, T, or, RED_OR)                                \
                        SHMI_DEF_REDUCE1(N, T, xor, RED_XOR))                             \
    SHMI_WHEN_##O##_ORD(SHMI_DEF_REDUCE1(N, T, max, RED_MAX)                              \
                        SHMI_DEF_REDUCE1(N, T, min, RED_MIN))                             \
    SHMI_DEF_REDUCE1(N, T, sum, RED_SUM)                                                  \
    SHMI_DEF_REDUCE1(N, T, prod, RED_PROD)                                                \
    SHMI_DEF_SCAN(N, T, inscan, RED_INSCAN)                                               \
    SHMI_DEF_SCAN(N, T, exscan, RED_EXSCAN)
SHMI_RED_TABLE(SHMI_DEF_REDUCE) /* with half and bfloat16 (core/coll.h) */
