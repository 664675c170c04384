/* coll.h - the collective algorithms of a team, as a table (issue 13).
 *
 * As Open MPI's OSHMEM gives each communicator a scoll module, every team
 * holds one row of algorithms (t->algs), chosen ONCE when the team is made
 * (shmi_coll_choose, coll_algs.c: the only place that asks the transport
 * whether members are mapped), never tested again in a call:
 *
 *   node-local  every member is mapped here: loads and stores through the
 *               mappings (dissemination barrier, or central with more
 *               members than CPUs); pulls straight from the peers' copies
 *   two-level   some member is on another node: the members of a node count
 *               in at its leader, leaders talk over the network (barrier,
 *               broadcast); every access to a member's memory goes through
 *               the transport (shmi_peer_read/_write)
 *
 * Memory the CPU cannot load or store (the GPU heap) is moved by the row's
 * `dev` companion, "through the transport" (the copy engines).  Which of
 * the two a call uses is decided per call, in one place: shmi_coll_for.
 * A row's entries run after the entry point's checks of the team, the root
 * and the byte count; each makes the rest of the call (its own checks,
 * staging, the checked barrier, the copies).  Errors are fatal, as in the
 * entry points (0 returned otherwise). */
#ifndef SHMI_COLL_H
#define SHMI_COLL_H

#include "core/team.h"

#include <shmemx.h> /* SHMEMX_FP16_REDUCE_ROWS */
#include <stddef.h>
#include <stdint.h>

/* acc[i] = acc[i] OP in[i] for n elements (reduce.c). */
typedef void (*shmi_combine_fn)(void *acc, const void *in, size_t n);

/* ---- What the API's entry points call (api/coll.c) ---------------------------
 * Size-based: elem is the element size in bytes (1 for the *mem forms).  fn
 * names the public call in messages.  They check, pick the team's row for
 * this memory (shmi_coll_for) and run it; 0, or fatal. */
int shmi_coll_broadcast(const char *fn, shmem_team_t team, void *dest, const void *source,
                        size_t nelems, size_t elem, int root);
int shmi_coll_collect(const char *fn, shmem_team_t team, void *dest, const void *source,
                      size_t nelems, size_t elem);
int shmi_coll_fcollect(const char *fn, shmem_team_t team, void *dest, const void *source,
                       size_t nelems, size_t elem);
int shmi_coll_alltoall(const char *fn, shmem_team_t team, void *dest, const void *source,
                       size_t nelems, size_t elem);
int shmi_coll_alltoalls(const char *fn, shmem_team_t team, void *dest, const void *source,
                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem);
/* Reductions and scans: the operation, and the type as its row of
 * SHMI_RED_TABLE: SHMEM_REDUCE_TABLE (shmem.h), then NVSHMEM's half and
 * bfloat16 (shmemx_fp16.h), combined through float. */
#define SHMI_RED_TABLE(X) SHMEM_REDUCE_TABLE(X) SHMEMX_FP16_REDUCE_ROWS(X)
enum shmi_red_op { RED_AND, RED_OR, RED_XOR, RED_MAX, RED_MIN, RED_SUM, RED_PROD, RED_INSCAN,
                   RED_EXSCAN, RED_COUNT };
#define SHMI_RT_ENUM(N, T, B, O, G) RT_##N,
enum shmi_red_type { SHMI_RED_TABLE(SHMI_RT_ENUM) RT_COUNT };
int shmi_coll_reduce(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nelems, enum shmi_red_type type, enum shmi_red_op op);
/* The same with the caller's combine function for (type, op): the 1.4
 * *_to_all names (api/deprecated.c) include pairs the team reductions lack
 * (signed bitwise ones); the same (type, op) names the call in signatures. */
int shmi_coll_reduce_with(const char *fn, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, enum shmi_red_type type, enum shmi_red_op op,
                          shmi_combine_fn f);

struct shmi_coll_algs {
    const char *name;  /* "node-local", "two-level", ... (debug output) */
    /* The barrier of epoch e (already counted in t->epoch), flags carrying
     * op; with arg (a checked collective's signature arguments) compared on
     * the way: returns as sync.c's barrier_sig (1 equal, -1 - r different
     * from team rank r's, 0 not compared). */
    int (*barrier)(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                   const uint64_t *arg);
    /* n bytes (elements of elem bytes) from team rank root's source. */
    int (*broadcast)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                     size_t n, size_t elem, int root);
    /* n: this member's bytes (collect) or every member's (fcollect, and per
     * member for alltoall). */
    int (*collect)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                   size_t n, size_t elem);
    int (*fcollect)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                    size_t n, size_t elem);
    int (*alltoall)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                    size_t n, size_t elem);
    int (*alltoalls)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem);
    /* code: the routine (type row << 8 | operation, reduce.c) */
    int (*reduce)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                  size_t nelems, size_t elem, shmi_combine_fn f, uint64_t code);
    int (*scan)(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                size_t nelems, size_t elem, shmi_combine_fn f, uint64_t code);
    /* For memory the CPU cannot load or store (GPU): the row that moves it
     * through the transport. */
    const struct shmi_coll_algs *dev;
    /* 1: some entry pushes (team.h: no barrier), so its barriers and checked
     * collectives look for a push they are not part of (sync.c) */
    int push;
};

/* The row for team t (its members, stride and size set; parent: the team
 * it was split from, or NULL for the predefined teams). */
const struct shmi_coll_algs *shmi_coll_choose(const struct shmem_team_s *t,
                                              const struct shmem_team_s *parent);

/* The row for one call on t with n bytes between dest and source: the
 * team's, or for memory the CPU cannot reach (the route to it, even on our
 * own PE, is not plain loads and stores) its `dev` companion.  The one
 * per-call choice; host-only programs pay one predictable branch. */
static inline const struct shmi_coll_algs *shmi_coll_for(const struct shmem_team_s *t,
                                                         const void *dest, const void *source,
                                                         size_t n)
{
    if (__builtin_expect(n != 0, 1) &&
        !SHMI_TP_DIRECT(shmi_tp_route(&shmi_g.tp, dest, source, shmi_g.me)))
        return t->algs->dev;
    return t->algs;
}

/* ---- The algorithms the rows are made of ---------------------------------- */
/* barriers (sync.c) */
int shmi_bar_dissemination(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                           const uint64_t *arg);
int shmi_bar_central(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                     const uint64_t *arg);
int shmi_bar_two_level(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                       const uint64_t *arg);

/* data movement (coll.c): _local through the mappings, _nodes across
 * nodes, _tp through the transport (GPU memory on one node), _tp_nodes GPU
 * memory on a team spanning nodes (not supported yet: fatal) */
#define SHMI_COLL_DECL(V)                                                                    \
    int shmi_bcast_##V(const char *fn, struct shmem_team_s *t, void *dest, const void *source, \
                       size_t n, size_t elem, int root);                                     \
    int shmi_collect_##V(const char *fn, struct shmem_team_s *t, void *dest,                \
                         const void *source, size_t n, size_t elem);                         \
    int shmi_fcollect_##V(const char *fn, struct shmem_team_s *t, void *dest,               \
                          const void *source, size_t n, size_t elem);                        \
    int shmi_alltoall_##V(const char *fn, struct shmem_team_s *t, void *dest,               \
                          const void *source, size_t n, size_t elem);                        \
    int shmi_alltoalls_##V(const char *fn, struct shmem_team_s *t, void *dest,              \
                           const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                           size_t elem);                                                     \
    int shmi_reduce_##V(const char *fn, struct shmem_team_s *t, void *dest,                 \
                        const void *source, size_t nelems, size_t elem, shmi_combine_fn f,   \
                        uint64_t code);                                                      \
    int shmi_scan_##V(const char *fn, struct shmem_team_s *t, void *dest, const void *source, \
                      size_t nelems, size_t elem, shmi_combine_fn f, uint64_t code);
SHMI_COLL_DECL(local)
SHMI_COLL_DECL(nodes)
#undef SHMI_COLL_DECL
/* Node-local, more members than CPUs: a small broadcast pushed by the root
 * (coll.c; larger ones as shmi_bcast_local). */
int shmi_bcast_push(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                    size_t n, size_t elem, int root);
/* Two-level fcollect across nodes: gathered on each node, one transfer per
 * node pair between leaders (coll.c); blocks up to SHMI_FCOLLECT_HIER_MIN
 * bytes take the flat staged form (shmi_fcollect_nodes). */
#define SHMI_FCOLLECT_HIER_MIN SHMI_STAGE_BYTES
int shmi_fcollect_hier(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                       size_t n, size_t elem);
/* Two-level collect across nodes (coll.c): as shmi_fcollect_hier, blocks of
 * any size; when every block fits the stage, the flat staged form. */
int shmi_collect_hier(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                      size_t n, size_t elem);
/* Two-level reduction across nodes: reduced on each node into its leader's
 * dest, between leaders, then copied on the node (reduce.c); up to the stage,
 * shmi_reduce_nodes. */
int shmi_reduce_hier(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                     size_t nelems, size_t elem, shmi_combine_fn f, uint64_t code);
int shmi_bcast_tp(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                  size_t n, size_t elem, int root);
int shmi_bcast_tp_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                        size_t n, size_t elem, int root);

#endif
