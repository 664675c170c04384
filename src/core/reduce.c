/* reduce.c - reductions (and, or, xor, max, min, sum, prod) and sum scans
 * (inscan, exscan) on teams, generated from SHMEM_REDUCE_TABLE.
 *
 * Algorithm (any team size, any stride, in place or not): the nelems
 * elements are cut into one contiguous part per member (sizes differ by at
 * most one element).  After a checked barrier, member c combines part c of
 * every member's source, in team rank order, and stores the result straight
 * into part c of every member's dest (reduce-scatter and allgather in one
 * pass, pushed through the peers' mappings); a closing barrier ends it.
 * Each member reads and writes about 2 * nelems bytes in total, whatever the
 * team size, and there are two barriers.  Scans use the same split: member c
 * walks ranks 0..n-1 keeping a running sum of part c and stores each rank's
 * prefix into that rank's dest.
 *
 * In place (dest == source) is safe because part c of any source is read and
 * written only by member c, and within a block every source is read before
 * the corresponding dest is written.  Each part is processed in blocks of
 * SHMI_RED_BLOCK bytes so the accumulator stays in L1 while the members'
 * sources stream past.  Since every element is combined exactly once, in
 * rank order, floating-point results are bit-identical on every member.
 *
 * Small reductions and scans (<= SHMI_STAGE_BYTES) take one barrier: each
 * member stages its source in its team slot, and after the checked barrier
 * every member combines the staged copies itself (reduce_small).
 *
 * Teams spanning nodes (t->net, issue 9): the same algorithm, with every
 * access to a member's memory through shmi_peer_read/_write (UCX get/put
 * for a member on another node, memcpy through the mapping otherwise):
 * reduce_block_net, scan_block_net, and reduce_small reading the staged
 * copies; the puts are flushed (shmi_net_quiet) before the closing barrier,
 * so every member's dest is complete when it leaves.
 *
 * Integer sums and products are computed in an unsigned type at least as
 * wide as unsigned int: they wrap around instead of overflowing (undefined
 * behaviour for signed types, and for small types promoted to int). */
#include "core/hooks.h"
#include "core/reduce_ops.h" /* SHMI_ARITH, SHMI_EXPR_<op> */
#include "core/team.h"
#include "util/num.h"

#include <shmem.h>

#include <stdio.h>
#include <string.h>

#define SHMI_RED_BLOCK 4096

enum red_op { RED_AND, RED_OR, RED_XOR, RED_MAX, RED_MIN, RED_SUM, RED_PROD, RED_INSCAN,
              RED_EXSCAN };
static const char *const op_names[] = { "and_reduce", "or_reduce", "xor_reduce", "max_reduce",
                                        "min_reduce", "sum_reduce", "prod_reduce",
                                        "sum_inscan", "sum_exscan" };

#define SHMI_RT_ENUM(N, T, B, O, G) RT_##N,
enum { SHMEM_REDUCE_TABLE(SHMI_RT_ENUM) RT_COUNT };
#define SHMI_RT_NAME(N, T, B, O, G) #N,
static const char *const type_names[RT_COUNT] = { SHMEM_REDUCE_TABLE(SHMI_RT_NAME) };

/* Signature code of a routine: type row and operation. */
#define CODE(N, OP) ((uint64_t)RT_##N << 8 | (OP))

const char *shmi_reduce_name(uint64_t code, char *buf, size_t len)
{
    unsigned t = (unsigned)(code >> 8), op = (unsigned)(code & 0xff);
    if (t >= RT_COUNT || op > RED_EXSCAN) snprintf(buf, len, "shmem_?_reduce");
    else snprintf(buf, len, "shmem_%s_%s", type_names[t], op_names[op]);
    return buf;
}

typedef void (*combine_fn)(void *acc, const void *in, size_t n);

/* Member `rank`'s copy of symmetric address a + off (a checked on our PE). */
static inline char *at(const struct shmem_team_s *t, const void *a, size_t off, int rank)
{
    return (char *)shmi_tp_ptr(&shmi_g.tp, a, shmi_team_pe(t, rank)) + off;
}

/* Elements [off, off + nb bytes) of the team: reduce and store everywhere. */
static void reduce_block(const struct shmem_team_s *t, void *dest, const void *source,
                         size_t off, size_t nb, size_t cnt, combine_fn f, char *acc)
{
    memcpy(acc, at(t, source, off, 0), nb);
    for (int i = 1; i < t->size; i++) f(acc, at(t, source, off, i), cnt);
    for (int i = 0; i < t->size; i++) memcpy(at(t, dest, off, i), acc, nb);
}

/* The same elements: running sum over ranks, each rank's prefix to its dest. */
static void scan_block(const struct shmem_team_s *t, void *dest, const void *source,
                       size_t off, size_t nb, size_t cnt, combine_fn f, char *acc, char *in,
                       int exclusive)
{
    memcpy(acc, at(t, source, off, 0), nb);
    if (exclusive) memset(at(t, dest, off, 0), 0, nb);
    else memcpy(at(t, dest, off, 0), acc, nb);
    for (int i = 1; i < t->size; i++) {
        memcpy(in, at(t, source, off, i), nb); /* before dest i: it may be source i */
        if (exclusive) memcpy(at(t, dest, off, i), acc, nb);
        f(acc, in, cnt);
        if (!exclusive) memcpy(at(t, dest, off, i), acc, nb);
    }
}

/* The same two over the network (team spanning nodes): in holds a member's
 * source part, puts are blocking (acc reusable on return). */
static void reduce_block_net(const char *fn, const struct shmem_team_s *t, void *dest,
                             const void *source, size_t off, size_t nb, size_t cnt, combine_fn f,
                             char *acc, char *in)
{
    shmi_peer_read(fn, acc, (const char *)source + off, nb, shmi_team_pe(t, 0));
    for (int i = 1; i < t->size; i++) {
        shmi_peer_read(fn, in, (const char *)source + off, nb, shmi_team_pe(t, i));
        f(acc, in, cnt);
    }
    for (int i = 0; i < t->size; i++)
        shmi_peer_write(fn, (char *)dest + off, acc, nb, shmi_team_pe(t, i));
}

static void scan_block_net(const char *fn, const struct shmem_team_s *t, void *dest,
                           const void *source, size_t off, size_t nb, size_t cnt, combine_fn f,
                           char *acc, char *in, int exclusive)
{
    char *d = (char *)dest + off;
    const char *s = (const char *)source + off;
    shmi_peer_read(fn, acc, s, nb, shmi_team_pe(t, 0));
    if (exclusive) memset(in, 0, nb);
    shmi_peer_write(fn, d, exclusive ? in : acc, nb, shmi_team_pe(t, 0));
    for (int i = 1; i < t->size; i++) {
        int pe = shmi_team_pe(t, i);
        shmi_peer_read(fn, in, s, nb, pe); /* before dest i: it may be source i */
        if (exclusive) shmi_peer_write(fn, d, acc, nb, pe);
        f(acc, in, cnt);
        if (!exclusive) shmi_peer_write(fn, d, acc, nb, pe);
    }
}

/* Small: every member combines the staged sources itself (in rank order, so
 * floating-point results are the same everywhere) into its own dest.  In
 * place is safe: the sources were copied into the staging buffers. */
static void reduce_small(const char *fn, const struct shmem_team_s *t, void *dest, size_t n,
                         size_t cnt, combine_fn f, int op, uint64_t seq)
{
    _Alignas(64) char acc[SHMI_STAGE_BYTES];
    int upto = op == RED_INSCAN ? t->rank + 1 : op == RED_EXSCAN ? t->rank : t->size;
    if (upto == 0) { /* exscan on rank 0: as the general path, zeros */
        memset(dest, 0, n);
        return;
    }
    if (t->net) { /* team spanning nodes: copies of the staged data */
        _Alignas(64) char in[SHMI_STAGE_BYTES];
        shmi_team_stage_read(t, 0, seq, 0, acc, n, fn);
        for (int i = 1; i < upto; i++) {
            shmi_team_stage_read(t, i, seq, 0, in, n, fn);
            f(acc, in, cnt);
        }
        memcpy(dest, acc, n);
        return;
    }
    memcpy(acc, shmi_team_stage(t, 0, seq), n);
    for (int i = 1; i < upto; i++) f(acc, shmi_team_stage(t, i, seq), cnt);
    memcpy(dest, acc, n);
}

static int reduce(const char *fn, shmem_team_t team, void *dest, const void *source,
                  size_t nelems, size_t elem, combine_fn f, uint64_t code)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    size_t n = shmi_nbytes(fn, nelems, elem);
    if (n) {
        shmi_sym(fn, "dest", dest, n, shmi_g.me);
        shmi_sym(fn, "source", source, n, shmi_g.me);
        shmi_check_span(fn, "dest", dest, n, NULL);
        shmi_check_span(fn, "source", source, n, NULL);
        uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
        if (shmi_checks != SHMI_CHECKS_OFF && d != s && d < s + n && s < d + n)
            shmi_fatal("%s: dest=%p and source=%p overlap by part of their %zu bytes: pass the "
                       "same buffer (in place) or disjoint ones", fn, dest, source, n);
    }
    int op = (int)(code & 0xff);
    int small = n <= SHMI_STAGE_BYTES;
    if (small && n) memcpy(shmi_team_stage_next(t), source, n);
    uint64_t seq = shmi_team_enter(t, fn, op >= RED_INSCAN ? SHMI_OP_SCAN : SHMI_OP_REDUCE,
                                   nelems, code, n ? shmi_sym_key(dest) : 0, NULL, 0);
    if (small) {
        if (n) reduce_small(fn, t, dest, n, nelems, f, op, seq);
        return 0;
    }
    size_t q = nelems / (size_t)t->size, r = nelems % (size_t)t->size, me = (size_t)t->rank;
    size_t lo = me * q + (me < r ? me : r), hi = lo + q + (me < r);
    _Alignas(64) char acc[SHMI_RED_BLOCK], in[SHMI_RED_BLOCK];
    size_t per = SHMI_RED_BLOCK / elem;
    for (size_t b = lo; b < hi; b += per) {
        size_t cnt = hi - b < per ? hi - b : per;
        if (t->net && op >= RED_INSCAN)
            scan_block_net(fn, t, dest, source, b * elem, cnt * elem, cnt, f, acc, in,
                           op == RED_EXSCAN);
        else if (t->net)
            reduce_block_net(fn, t, dest, source, b * elem, cnt * elem, cnt, f, acc, in);
        else if (op >= RED_INSCAN)
            scan_block(t, dest, source, b * elem, cnt * elem, cnt, f, acc, in, op == RED_EXSCAN);
        else
            reduce_block(t, dest, source, b * elem, cnt * elem, cnt, f, acc);
    }
    if (t->net) shmi_net_quiet(); /* our puts are in every member's dest */
    shmi_team_barrier(t);
    return 0;
}

/* ---- Combine functions and entry points, generated from the table --------- */

#define SHMI_COMBINE(N, T, OP, EXPR)                                                      \
    static void red_##N##_##OP(void *acc, const void *in, size_t n)                       \
    {                                                                                     \
        T *restrict x = acc;                                                              \
        const T *restrict y = in;                                                         \
        for (size_t i = 0; i < n; i++) x[i] = (EXPR);                                     \
    }
#define SHMI_DEF_REDUCE1(N, T, OP, OPC)                                                   \
    SHMI_COMBINE(N, T, OP, SHMI_EXPR_##OP(T))                                             \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,           \
                                  size_t nreduce)                                         \
    { SHMI_SITE(); return reduce(__func__, team, dest, source, nreduce, sizeof(T), red_##N##_##OP,    \
                    CODE(N, OPC)); }
#define SHMI_DEF_REDUCE(N, T, B, O, G)                                                    \
    SHMI_WHEN_##B##_BIT(SHMI_DEF_REDUCE1(N, T, and, RED_AND)                              \
                        SHMI_DEF_REDUCE1(N, T, or, RED_OR)                                \
                        SHMI_DEF_REDUCE1(N, T, xor, RED_XOR))                             \
    SHMI_WHEN_##O##_ORD(SHMI_DEF_REDUCE1(N, T, max, RED_MAX)                              \
                        SHMI_DEF_REDUCE1(N, T, min, RED_MIN))                             \
    SHMI_DEF_REDUCE1(N, T, sum, RED_SUM)                                                  \
    SHMI_DEF_REDUCE1(N, T, prod, RED_PROD)                                                \
    int shmem_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, size_t nelems) \
    { SHMI_SITE(); return reduce(__func__, team, dest, source, nelems, sizeof(T), red_##N##_sum,      \
                    CODE(N, RED_INSCAN)); }                                               \
    int shmem_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, size_t nelems) \
    { SHMI_SITE(); return reduce(__func__, team, dest, source, nelems, sizeof(T), red_##N##_sum,      \
                    CODE(N, RED_EXSCAN)); }
SHMEM_REDUCE_TABLE(SHMI_DEF_REDUCE)
