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
 * The team's algorithm table (coll.h) picks the variant, once per team:
 * node-local teams (_local) as above through the mappings; teams spanning
 * nodes (_nodes, issue 9) the same algorithm with every access to a
 * member's memory through shmi_peer_read/_write (UCX get/put for a member
 * on another node, memcpy through the mapping otherwise): reduce_block_net,
 * scan_block_net, and small_nodes reading the staged copies; the puts are
 * flushed (shmi_quiet) before the closing barrier, so every member's dest
 * is complete when it leaves.
 *
 * Integer sums and products are computed in an unsigned type at least as
 * wide as unsigned int: they wrap around instead of overflowing (undefined
 * behaviour for signed types, and for small types promoted to int). */
#include "core/coll.h"
#include "core/hooks.h"
#include "core/reduce_ops.h" /* SHMI_ARITH, SHMI_EXPR_<op> */
#include "core/team.h"
#include "util/num.h"

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHMI_RED_BLOCK 4096
/* Across nodes a block is a round trip per member (a blocking get or put):
 * larger blocks, in scratch from the heap.  Measured across the two test
 * hosts (UCX over TCP, loaded 2-CPU machine, one round each), 1 MiB of longs
 * summed, 2x1 / 2x2 / 2x4 PEs: 4 KiB blocks 9.95 / 13.2 / 17.8 ms (OSHMEM
 * 1.86 / 2.58 / 5.20), 256 KiB 3.2 / 2.4 / 2.4, 4 MiB 2.8 / 4.5 / 4.7 (the
 * machine's noise is as large as the difference of the last two). */
#define SHMI_RED_NET_BLOCK ((size_t)1 << 20)

/* Scratch for the blocks: on the stack for SHMI_RED_BLOCK, else malloc'ed. */
struct red_scratch {
    _Alignas(64) char acc_s[SHMI_RED_BLOCK], in_s[SHMI_RED_BLOCK];
    char *acc, *in, *heap;
    size_t size;
};
static void scratch_get(const char *fn, struct red_scratch *r, size_t size)
{
    r->heap = NULL;
    r->size = size;
    if (size <= SHMI_RED_BLOCK) {
        r->acc = r->acc_s;
        r->in = r->in_s;
        r->size = SHMI_RED_BLOCK;
        return;
    }
    if (!(r->heap = malloc(2 * size)))
        shmi_fatal("%s: out of memory for %zu bytes of reduction scratch", fn, 2 * size);
    r->acc = r->heap;
    r->in = r->heap + size;
}

static const char *const op_names[] = { "and_reduce", "or_reduce", "xor_reduce", "max_reduce",
                                        "min_reduce", "sum_reduce", "prod_reduce",
                                        "sum_inscan", "sum_exscan" };

#define SHMI_RT_NAME(N, T, B, O, G) #N,
static const char *const type_names[RT_COUNT] = { SHMI_RED_TABLE(SHMI_RT_NAME) };

const char *shmi_reduce_name(uint64_t code, char *buf, size_t len)
{
    unsigned t = (unsigned)(code >> 8), op = (unsigned)(code & 0xff);
    if (t >= RT_COUNT || op > RED_EXSCAN) snprintf(buf, len, "shmem_?_reduce");
    else snprintf(buf, len, "shmem_%s_%s", type_names[t], op_names[op]);
    return buf;
}

typedef shmi_combine_fn combine_fn;

/* Member `rank`'s copy of symmetric address a + off (a checked on our PE). */
static inline char *at(const struct shmem_team_s *t, const void *a, size_t off, int rank)
{
    return (char *)shmi_tp_ptr(&shmi_g.tp, a, shmi_team_pe(t, rank)) + off;
}

/* One block of a large reduction or scan: elements [off, off + nb bytes)
 * of the team (cnt of them), reduced (or scanned) and stored into every
 * member's dest; acc and in are nb bytes of scratch or more. */
typedef void (*block_fn)(const char *fn, const struct shmem_team_s *t, void *dest,
                         const void *source, size_t off, size_t nb, size_t cnt, combine_fn f,
                         char *acc, char *in, int exclusive);

/* Through the mappings: reduce and store everywhere. */
static void reduce_block(const char *fn, const struct shmem_team_s *t, void *dest,
                         const void *source, size_t off, size_t nb, size_t cnt, combine_fn f,
                         char *acc, char *in, int exclusive)
{
    (void)fn, (void)in, (void)exclusive;
    memcpy(acc, at(t, source, off, 0), nb);
    for (int i = 1; i < t->size; i++) f(acc, at(t, source, off, i), cnt);
    for (int i = 0; i < t->size; i++) memcpy(at(t, dest, off, i), acc, nb);
}

/* The same elements: running sum over ranks, each rank's prefix to its dest. */
static void scan_block(const char *fn, const struct shmem_team_s *t, void *dest,
                       const void *source, size_t off, size_t nb, size_t cnt, combine_fn f,
                       char *acc, char *in, int exclusive)
{
    (void)fn;
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
                             char *acc, char *in, int exclusive)
{
    (void)exclusive;
    shmi_peer_read(fn, acc, (const char *)source + off, nb, shmi_team_pe(t, 0));
    for (int i = 1; i < t->size; i++) {
        shmi_peer_read(fn, in, (const char *)source + off, nb, shmi_team_pe(t, i));
        f(acc, in, cnt);
    }
    for (int i = 0; i < t->size; i++)
        shmi_peer_write(fn, (char *)dest + off, acc, nb, shmi_team_pe(t, i), SHMI_TP_BLOCKING);
}

static void scan_block_net(const char *fn, const struct shmem_team_s *t, void *dest,
                           const void *source, size_t off, size_t nb, size_t cnt, combine_fn f,
                           char *acc, char *in, int exclusive)
{
    char *d = (char *)dest + off;
    const char *s = (const char *)source + off;
    shmi_peer_read(fn, acc, s, nb, shmi_team_pe(t, 0));
    if (exclusive) memset(in, 0, nb);
    shmi_peer_write(fn, d, exclusive ? in : acc, nb, shmi_team_pe(t, 0), SHMI_TP_BLOCKING);
    for (int i = 1; i < t->size; i++) {
        int pe = shmi_team_pe(t, i);
        shmi_peer_read(fn, in, s, nb, pe); /* before dest i: it may be source i */
        if (exclusive) shmi_peer_write(fn, d, acc, nb, pe, SHMI_TP_BLOCKING);
        f(acc, in, cnt);
        if (!exclusive) shmi_peer_write(fn, d, acc, nb, pe, SHMI_TP_BLOCKING);
    }
}

/* Small: every member combines the staged sources of ranks [0, upto) itself
 * (in rank order, so floating-point results are the same everywhere) into
 * acc.  In place is safe: the sources were copied into the staging buffers. */
typedef void (*small_fn)(const char *fn, const struct shmem_team_s *t, char *acc, size_t n,
                         size_t cnt, combine_fn f, int upto, uint64_t seq);

static void small_local(const char *fn, const struct shmem_team_s *t, char *acc, size_t n,
                        size_t cnt, combine_fn f, int upto, uint64_t seq)
{
    (void)fn;
    memcpy(acc, shmi_team_stage(t, 0, seq), n);
    for (int i = 1; i < upto; i++) f(acc, shmi_team_stage(t, i, seq), cnt);
}

/* (team spanning nodes: copies of the staged data) */
static void small_nodes(const char *fn, const struct shmem_team_s *t, char *acc, size_t n,
                        size_t cnt, combine_fn f, int upto, uint64_t seq)
{
    _Alignas(64) char in[SHMI_STAGE_BYTES];
    shmi_team_stage_read(t, 0, seq, 0, acc, n, fn);
    for (int i = 1; i < upto; i++) {
        shmi_team_stage_read(t, i, seq, 0, in, n, fn);
        f(acc, in, cnt);
    }
}

static inline __attribute__((always_inline)) void
reduce_small(const char *fn, const struct shmem_team_s *t, void *dest, size_t n, size_t cnt,
             combine_fn f, int op, uint64_t seq, small_fn combine)
{
    _Alignas(64) char acc[SHMI_STAGE_BYTES];
    int upto = op == RED_INSCAN ? t->rank + 1 : op == RED_EXSCAN ? t->rank : t->size;
    if (upto == 0) { /* exscan on rank 0: as the general path, zeros */
        memset(dest, 0, n);
        return;
    }
    combine(fn, t, acc, n, cnt, f, upto, seq);
    memcpy(dest, acc, n);
}

/* dest and source: symmetric, n bytes each, the same or disjoint. */
static void reduce_check(const char *fn, void *dest, const void *source, size_t n)
{
    shmi_sym(fn, "dest", dest, n, shmi_g.me);
    shmi_sym(fn, "source", source, n, shmi_g.me);
    shmi_check_span(fn, "dest", dest, n, NULL);
    shmi_check_span(fn, "source", source, n, NULL);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
    if (shmi_checks != SHMI_CHECKS_OFF && d != s && d < s + n && s < d + n)
        shmi_fatal("%s: dest=%p and source=%p overlap by part of their %zu bytes: pass the "
                   "same buffer (in place) or disjoint ones", fn, dest, source, n);
}

/* A reduction or scan after the entry point's checks: the rows' entries
 * below differ in the small combine, the block function and whether puts
 * must be flushed before the closing barrier. */
/* Inlined into each row's entry below, so that its small combine and block
 * function are constants there (direct calls, as before the table). */
static inline __attribute__((always_inline)) int
reduce_with(const char *fn, struct shmem_team_s *t, void *dest, const void *source, size_t nelems,
            size_t elem, combine_fn f, uint64_t code, small_fn combine, block_fn block, int flush)
{
    size_t n = shmi_nbytes(fn, nelems, elem);
    if (n) reduce_check(fn, dest, source, n);
    int op = (int)(code & 0xff);
    int small = n <= SHMI_STAGE_BYTES;
    if (small && n) memcpy(shmi_team_stage_next(t), source, n);
    uint64_t seq = shmi_team_enter(t, fn, op >= RED_INSCAN ? SHMI_OP_SCAN : SHMI_OP_REDUCE,
                                   nelems, code, n ? shmi_sym_key(dest) : 0, NULL, 0);
    if (small) {
        if (n) reduce_small(fn, t, dest, n, nelems, f, op, seq, combine);
        return 0;
    }
    size_t q = nelems / (size_t)t->size, r = nelems % (size_t)t->size, me = (size_t)t->rank;
    size_t lo = me * q + (me < r ? me : r), hi = lo + q + (me < r);
    struct red_scratch sc;
    size_t want = flush ? SHMI_RED_NET_BLOCK : SHMI_RED_BLOCK;
    scratch_get(fn, &sc, (hi - lo) * elem < want ? (hi - lo) * elem : want);
    size_t per = sc.size / elem;
    for (size_t b = lo; b < hi; b += per) {
        size_t cnt = hi - b < per ? hi - b : per;
        block(fn, t, dest, source, b * elem, cnt * elem, cnt, f, sc.acc, sc.in, op == RED_EXSCAN);
    }
    free(sc.heap);
    if (flush) shmi_quiet(); /* our puts are in every member's dest */
    shmi_team_barrier(t);
    return 0;
}

int shmi_reduce_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                      size_t nelems, size_t elem, combine_fn f, uint64_t code)
{
    return reduce_with(fn, t, dest, source, nelems, elem, f, code, small_local, reduce_block, 0);
}

int shmi_scan_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                    size_t nelems, size_t elem, combine_fn f, uint64_t code)
{
    return reduce_with(fn, t, dest, source, nelems, elem, f, code, small_local, scan_block, 0);
}

int shmi_reduce_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                      size_t nelems, size_t elem, combine_fn f, uint64_t code)
{
    return reduce_with(fn, t, dest, source, nelems, elem, f, code, small_nodes,
                       reduce_block_net, 1);
}

/* Part k of n elements cut into `parts` parts (sizes differ by at most one):
 * [*lo, *hi). */
static void part_of(size_t n, int parts, int k, size_t *lo, size_t *hi)
{
    size_t q = n / (size_t)parts, r = n % (size_t)parts, kk = (size_t)k;
    *lo = kk * q + (kk < r ? kk : r);
    *hi = *lo + q + (kk < r);
}

/* Two-level reduction (issue 16): teams spanning nodes with several members
 * on a node, above the stage (smaller ones: shmi_reduce_nodes).  After the
 * checked barrier:
 *   1. on each node the members split the elements into one part per member;
 *      the node's member k combines part k of its node's members' sources
 *      (through the mappings, rank order) into part k of the node leader's
 *      dest; barrier;
 *   2. the leaders split the elements into one part per leader; leader j
 *      combines part j of every leader's dest (the nodes' partial results, in
 *      node order, read through the transport) and writes the result into
 *      part j of every leader's dest; quiet; barrier;
 *   3. the other members copy their leader's dest through the mapping; a
 *      closing barrier keeps it until all have.
 * In place is safe as in the flat form: part k of the leader's dest (and of
 * every source) is touched only by one member in step 1, part j of each
 * leader's dest only by leader j in step 2, each block read before written;
 * a member's own source is consumed before the first barrier and its dest
 * written after the second.  The network carries each element about twice
 * per node (read and written once by a leader), instead of twice per member,
 * in messages of up to SHMI_RED_NET_BLOCK bytes from one PE per node.  Every element
 * is still combined once, so results are the same on every member (the
 * order is node by node, not rank order: a floating-point sum may differ
 * from the flat form's in its last bits). */
int shmi_reduce_hier(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                     size_t nelems, size_t elem, combine_fn f, uint64_t code)
{
    size_t n = shmi_nbytes(fn, nelems, elem);
    if (n <= SHMI_STAGE_BYTES) return shmi_reduce_nodes(fn, t, dest, source, nelems, elem, f, code);
    reduce_check(fn, dest, source, n);
    shmi_team_enter(t, fn, SHMI_OP_REDUCE, nelems, code, shmi_sym_key(dest), NULL, 0);
    struct shmi_hier *h = shmi_team_hier(t);
    struct red_scratch sc;
    char *acc, *in;
    size_t per = SHMI_RED_BLOCK / elem, lo, hi;
    int k = 0;
    while (h->local[k] != t->rank) k++;
    char *lead_dest = at(t, dest, 0, h->leader);
    part_of(nelems, h->nlocal, k, &lo, &hi);
    scratch_get(fn, &sc, SHMI_RED_BLOCK);
    acc = sc.acc;
    for (size_t b = lo; b < hi; b += per) {
        size_t cnt = hi - b < per ? hi - b : per, off = b * elem, nb = cnt * elem;
        memcpy(acc, at(t, source, off, h->local[0]), nb);
        for (int i = 1; i < h->nlocal; i++) f(acc, at(t, source, off, h->local[i]), cnt);
        memcpy(lead_dest + off, acc, nb);
    }
    shmi_team_barrier(t);
    if (t->rank == h->leader) {
        part_of(nelems, h->nlead, h->lead_idx, &lo, &hi);
        scratch_get(fn, &sc, (hi - lo) * elem < SHMI_RED_NET_BLOCK ? (hi - lo) * elem
                                                                   : SHMI_RED_NET_BLOCK);
        acc = sc.acc;
        in = sc.in;
        per = sc.size / elem;
        for (size_t b = lo; b < hi; b += per) {
            size_t cnt = hi - b < per ? hi - b : per, off = b * elem, nb = cnt * elem;
            shmi_peer_read(fn, acc, (char *)dest + off, nb, shmi_team_pe(t, h->lead[0]));
            for (int j = 1; j < h->nlead; j++) {
                shmi_peer_read(fn, in, (char *)dest + off, nb, shmi_team_pe(t, h->lead[j]));
                f(acc, in, cnt);
            }
            for (int j = 0; j < h->nlead; j++)
                shmi_peer_write(fn, (char *)dest + off, acc, nb, shmi_team_pe(t, h->lead[j]),
                                SHMI_TP_BLOCKING);
        }
        free(sc.heap);
        shmi_quiet();
    }
    shmi_team_barrier(t);
    if (t->rank != h->leader) memcpy(dest, lead_dest, n);
    shmi_team_barrier(t);
    return 0;
}

int shmi_scan_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                    size_t nelems, size_t elem, combine_fn f, uint64_t code)
{
    return reduce_with(fn, t, dest, source, nelems, elem, f, code, small_nodes, scan_block_net,
                       1);
}

/* ---- Combine functions, generated from the table -------------------------- */

#define SHMI_COMBINE(N, T, OP)                                                            \
    static void red_##N##_##OP(void *acc, const void *in, size_t n)                       \
    {                                                                                     \
        T *restrict x = acc;                                                              \
        const T *restrict y = in;                                                         \
        for (size_t i = 0; i < n; i++) x[i] = (SHMI_EXPR_##OP(T));                        \
    }
#define SHMI_DEF_COMBINE(N, T, B, O, G)                                                   \
    SHMI_WHEN_##B##_BIT(SHMI_COMBINE(N, T, and) SHMI_COMBINE(N, T, or) SHMI_COMBINE(N, T, xor)) \
    SHMI_WHEN_##O##_ORD(SHMI_COMBINE(N, T, max) SHMI_COMBINE(N, T, min))                  \
    SHMI_COMBINE(N, T, sum)                                                               \
    SHMI_COMBINE(N, T, prod)
SHMEM_REDUCE_TABLE(SHMI_DEF_COMBINE)
/* half and bfloat16: each element to float, SHMI_EXPR_<op>(float) there (on
 * one-element arrays x, y at i = 0), rounded back to nearest even. */
#define SHMI_COMBINE16(N, T, OP)                                                          \
    static void red_##N##_##OP(void *acc, const void *in, size_t n)                       \
    {                                                                                     \
        T *restrict xs = acc;                                                             \
        const T *restrict ys = in;                                                        \
        for (size_t k = 0; k < n; k++) {                                                  \
            const float x[1] = { shmemx_##N##_to_float(xs[k]) };                          \
            const float y[1] = { shmemx_##N##_to_float(ys[k]) };                          \
            const size_t i = 0;                                                           \
            xs[k] = shmemx_##N##_from_float(SHMI_EXPR_##OP(float));                       \
        }                                                                                 \
    }
#define SHMI_DEF_COMBINE16(N, T, B, O, G) /* no bitwise operators on them */            \
    SHMI_WHEN_##O##_ORD(SHMI_COMBINE16(N, T, max) SHMI_COMBINE16(N, T, min))              \
    SHMI_COMBINE16(N, T, sum) SHMI_COMBINE16(N, T, prod)
SHMEMX_FP16_REDUCE_ROWS(SHMI_DEF_COMBINE16)

/* combine[type][op]: NULL where the spec has no such routine (the API
 * generates entry points for the same subsets, from the same table). */
#define SHMI_ROW(N, T, B, O, G)                                                           \
    [RT_##N] = { SHMI_WHEN_##B##_BIT([RED_AND] = red_##N##_and, [RED_OR] = red_##N##_or,  \
                                     [RED_XOR] = red_##N##_xor, )                         \
                 SHMI_WHEN_##O##_ORD([RED_MAX] = red_##N##_max, [RED_MIN] = red_##N##_min, ) \
                 [RED_SUM] = red_##N##_sum, [RED_PROD] = red_##N##_prod,                  \
                 [RED_INSCAN] = red_##N##_sum, [RED_EXSCAN] = red_##N##_sum },
static const combine_fn combine[RT_COUNT][RED_COUNT] = { SHMI_RED_TABLE(SHMI_ROW) };
#define SHMI_SIZE(N, T, B, O, G) [RT_##N] = sizeof(T),
static const size_t elem_size[RT_COUNT] = { SHMI_RED_TABLE(SHMI_SIZE) };

int shmi_coll_reduce(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nelems, enum shmi_red_type type, enum shmi_red_op op)
{
    return shmi_coll_reduce_with(fn, team, dest, source, nelems, type, op, combine[type][op]);
}

int shmi_coll_reduce_with(const char *fn, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, enum shmi_red_type type, enum shmi_red_op op,
                          shmi_combine_fn f)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    const struct shmi_coll_algs *a = shmi_coll_for(t, dest, source, nelems);
    uint64_t code = (uint64_t)type << 8 | op; /* the signature: type row and operation */
    return (op >= RED_INSCAN ? a->scan : a->reduce)(fn, t, dest, source, nelems,
                                                     elem_size[type], f, code);
}
