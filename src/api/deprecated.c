/* deprecated.c - the names OpenSHMEM 1.6 deprecates but still lists
 * (include/symheap/shmem_deprecated.h says which, and their contracts).
 *
 * Renamed routines (start_pes, shmalloc, shmem_int_fadd, shmem_wait...) call
 * their 1.6 replacement.  Active-set collectives are implemented here,
 * because only the active set's PEs call them: a team cannot be made
 * without a collective call of its parent, and the set's PEs share no team
 * slot they could agree on without the others.
 *
 * A PE outside the set returns at once, touching neither pSync nor dest
 * (as Open MPI's OSHMEM; the 1.4 text asks only the set's PEs to call and
 * says nothing of others); SHMEM_CHECKS=full says so once.
 *
 * Active-set barrier (aset_sync): a dissemination barrier on the caller's
 * pSync.  In round k (k < ceil(log2 size)) member i adds 1 to pSync[k] of
 * member i + 2^k (mod size), waits until its own pSync[k] differs from
 * SHMEM_SYNC_VALUE and takes 1 back off.  Every pSync[k] of a member has
 * exactly one writer per barrier (member i - 2^k), so the words count
 * arrivals: a partner already in the next barrier over the same set leaves
 * 1 more, which that barrier consumes.  No state lives between calls, pSync
 * is back to SHMEM_SYNC_VALUE once everyone has left, and the same pSync
 * may be reused at once, as the spec allows.
 *
 * Data-moving collectives are "pull", as the team ones (coll.c): barrier
 * (every source is ready), each member copies what it needs from the peers
 * into its own dest, barrier (nobody reuses a source before all have read
 * it).  Members may be on other nodes (issue 13): every read of a member's
 * memory goes through the transport interface (shmi_peer_read, or the
 * mapping when the route is direct), never through a translated pointer
 * alone, which for a PE on another node lies in a PROT_NONE reservation.
 * collect publishes each member's count in the word after the rounds
 * (pSync[SHMI_ASET_ROUNDS]) and restores it after the second barrier.  Reductions combine every member's source, in set order (the
 * same result bit for bit on every member), into private memory, and write
 * dest after the second barrier, so dest == source is safe.  Each member
 * reads every member's data: O(size * bytes) per member, fine for the old
 * interface (the team routines are the fast path).
 *
 * An active set that is the whole job (PE_start 0, stride 1, every PE: what
 * most 1.4 programs pass) is SHMEM_TEAM_WORLD, so those calls run the team
 * collectives' algorithms (core/coll.h) instead: they need no pSync and leave
 * it at SHMEM_SYNC_VALUE, reusable at once, as the spec asks.  Only the 1.4
 * broadcast differs from the team one (the root's dest stays unchanged): up
 * to ASET_KEEP bytes (the core's small-broadcast size, SHMI_STAGE_BYTES) the
 * root keeps its dest's bytes and puts them back; larger broadcasts take the
 * active-set path. */
#include "debug/debug.h"
#include "core/coll.h"
#include "core/reduce_ops.h" /* SHMI_EXPR_<op>, as the team reductions */
#include "core/state.h"
#include "util/num.h"

#include <shmem.h>

#include <stdlib.h>
#include <string.h>

/* ---- Renamed routines ----------------------------------------------------------- */

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}

int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }

#define SHMI_DEF_OLDAMO_EXT(N, T)                                                        \
    T shmem_##N##_fetch(const T *source, int pe) { return shmem_##N##_atomic_fetch(source, pe); } \
    void shmem_##N##_set(T *dest, T value, int pe) { shmem_##N##_atomic_set(dest, value, pe); } \
    T shmem_##N##_swap(T *dest, T value, int pe)                                       \
    { return shmem_##N##_atomic_swap(dest, value, pe); }
#define SHMI_DEF_OLDAMO_STD(N, T)                                                        \
    SHMI_DEF_OLDAMO_EXT(N, T)                                                            \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                              \
    { return shmem_##N##_atomic_compare_swap(dest, cond, value, pe); }                  \
    T shmem_##N##_finc(T *dest, int pe) { return shmem_##N##_atomic_fetch_inc(dest, pe); } \
    void shmem_##N##_inc(T *dest, int pe) { shmem_##N##_atomic_inc(dest, pe); }        \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                       \
    { return shmem_##N##_atomic_fetch_add(dest, value, pe); }                           \
    void shmem_##N##_add(T *dest, T value, int pe) { shmem_##N##_atomic_add(dest, value, pe); }
#define SHMI_DEF_OLDAMO_NONE(N, T)
#define SHMI_DEF_OLDWAIT_WAIT(N, T)                                                      \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                        \
    { shmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }
#define SHMI_DEF_OLDWAIT_NONE(N, T)
#define SHMI_DEF_OLD(N, T, A, B, S, G)                                                   \
    SHMI_OLD(AMO, N, SHMI_DEF_OLDAMO)(N, T) SHMI_OLD(WAIT, N, SHMI_DEF_OLDWAIT)(N, T)
SHMEM_TYPE_TABLE(SHMI_DEF_OLD)

void shmem_wait(long *ivar, long cmp_value) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value); }

void (shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

/* ---- Active sets ------------------------------------------------------------------ */

struct aset {
    int start, stride, size; /* member i is world PE start + stride * i */
    int rank;                /* ours */
    int rounds;              /* of the dissemination barrier */
};

static int aset_pe(const struct aset *a, int i) { return a->start + a->stride * i; }

/* The set is every PE in order: SHMEM_TEAM_WORLD (top of the file). */
static int aset_world(const struct aset *a)
{
    return a->start == 0 && a->stride == 1 && a->size == shmi_g.npes;
}
/* bytes of the root's dest a world broadcast keeps: as many as the core stages */
enum { ASET_KEEP = SHMI_STAGE_BYTES };

/* The checked active set of a call; pSync must hold nsync longs.  rank is
 * -1 when this PE is not a member: the caller returns at once. */
static struct aset aset_get(const char *fn, int PE_start, int logPE_stride, int PE_size,
                            long *pSync, int nsync)
{
    shmi_check_running(fn);
    struct aset a = { PE_start, 0, PE_size, -1, 0 };
    if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1)
        shmi_fatal("%s: PE_start=%d logPE_stride=%d PE_size=%d is not an active set: PE_start "
                   "and logPE_stride must be >= 0 (logPE_stride < 31), PE_size >= 1", fn,
                   PE_start, logPE_stride, PE_size);
    a.stride = 1 << logPE_stride;
    long long last = PE_start + (long long)a.stride * (PE_size - 1);
    if (last >= shmi_g.npes)
        shmi_fatal("%s: the active set PE_start=%d logPE_stride=%d PE_size=%d ends at PE %lld, "
                   "but this job has %d PEs (0..%d)", fn, PE_start, logPE_stride, PE_size, last,
                   shmi_g.npes, shmi_g.npes - 1);
    int d = shmi_g.me - PE_start;
    if (d < 0 || d % a.stride || d / a.stride >= PE_size) {
        /* Outside the set: return at once, pSync and dest untouched, as
         * OSHMEM does (1.4 asks only the set's PEs to call). */
        static int warned;
        if (shmi_checks >= SHMI_CHECKS_FULL && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            shmi_log_warn("%s: this PE is not in the active set PE_start=%d logPE_stride=%d "
                          "PE_size=%d, so the call returns at once (said once; "
                          "SHMEM_CHECKS=full)", fn, PE_start, logPE_stride, PE_size);
        return a; /* rank -1 */
    }
    a.rank = d / a.stride;
    while ((1 << a.rounds) < PE_size) a.rounds++;
    if (a.rounds > SHMI_ASET_ROUNDS)
        shmi_fatal("%s: PE_size=%d needs %d barrier rounds, more than the %d words of "
                   "SHMEM_BARRIER_SYNC_SIZE: use a team collective", fn, PE_size, a.rounds,
                   SHMI_ASET_ROUNDS);
    shmi_sym(fn, "pSync", pSync, (size_t)nsync * sizeof(long), shmi_g.me);
    return a;
}

/* Dissemination barrier of the set on pSync (see the top of the file). */
static void aset_sync(const struct aset *a, long *pSync)
{
    for (int k = 0; k < a->rounds; k++) {
        int to = aset_pe(a, (a->rank + (1 << k)) % a->size);
        shmem_long_atomic_add(&pSync[k], 1, to);
        shmem_long_wait_until(&pSync[k], SHMEM_CMP_NE, SHMEM_SYNC_VALUE);
        shmem_long_atomic_add(&pSync[k], -1, shmi_g.me);
    }
}

/* n bytes of member i's copy of symmetric p (checked) into dst, whatever
 * the route (a load through the mapping on this node, a get across). */
static void peer_read(const char *fn, const char *what, void *dst, const void *p, size_t n,
                      const struct aset *a, int i)
{
    shmi_sym(fn, what, p, n, aset_pe(a, i));
    shmi_peer_read(fn, dst, p, n, aset_pe(a, i));
}

/* Member i's copy of the n bytes at symmetric p (checked), to read: its
 * mapping when the route is direct, else buf (n bytes) filled through the
 * transport. */
static const char *peer_view(const char *fn, const char *what, const void *p, size_t n,
                             const struct aset *a, int i, char *buf)
{
    int pe = aset_pe(a, i);
    const char *mapped = shmi_sym(fn, what, p, n, pe);
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, p, NULL, pe);
    if (SHMI_TP_DIRECT(via)) return mapped;
    shmi_peer_get(fn, via, buf, p, n, pe, SHMI_TP_BLOCKING);
    return buf;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset a = aset_get(__func__, PE_start, logPE_stride, PE_size, pSync,
                             SHMEM_BARRIER_SYNC_SIZE);
    if (a.rank < 0) return;
    shmem_quiet();
    aset_sync(&a, pSync);
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset a = aset_get(__func__, PE_start, logPE_stride, PE_size, pSync,
                             SHMEM_BARRIER_SYNC_SIZE);
    if (a.rank < 0) return;
    aset_sync(&a, pSync);
}

static void aset_broadcast(const char *fn, void *dest, const void *source, size_t nelems,
                           size_t elem, int PE_root, int PE_start, int logPE_stride,
                           int PE_size, long *pSync)
{
    struct aset a = aset_get(fn, PE_start, logPE_stride, PE_size, pSync, SHMEM_BCAST_SYNC_SIZE);
    if (a.rank < 0) return;
    if (PE_root < 0 || PE_root >= PE_size)
        shmi_fatal("%s: PE_root=%d is out of range: it is an index into the active set of %d "
                   "PEs (0..%d), not a PE number", fn, PE_root, PE_size, PE_size - 1);
    size_t n = shmi_nbytes(fn, nelems, elem);
    if (n) shmi_sym(fn, "dest", dest, n, shmi_g.me);
    if (aset_world(&a) && n <= ASET_KEEP) {
        char keep[ASET_KEEP];
        int root = a.rank == PE_root;
        if (root && n) shmi_peer_read(fn, keep, dest, n, shmi_g.me);
        shmi_coll_broadcast(fn, SHMEM_TEAM_WORLD, dest, source, nelems, elem, PE_root);
        if (root && n) shmi_peer_write(fn, dest, keep, n, shmi_g.me, SHMI_TP_BLOCKING);
        return;
    }
    aset_sync(&a, pSync);
    if (n && a.rank != PE_root) peer_read(fn, "source", dest, source, n, &a, PE_root);
    aset_sync(&a, pSync);
}

static void aset_fcollect(const char *fn, void *dest, const void *source, size_t nelems,
                          size_t elem, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset a = aset_get(fn, PE_start, logPE_stride, PE_size, pSync,
                             SHMEM_COLLECT_SYNC_SIZE);
    if (a.rank < 0) return;
    if (aset_world(&a)) {
        shmi_coll_fcollect(fn, SHMEM_TEAM_WORLD, dest, source, nelems, elem);
        return;
    }
    size_t n = shmi_nbytes(fn, nelems, elem);
    if (n) shmi_sym(fn, "dest", dest, shmi_nbytes(fn, n, (size_t)PE_size), shmi_g.me);
    aset_sync(&a, pSync);
    for (int k = 0; n && k < a.size; k++) {
        int i = (a.rank + k) % a.size;
        peer_read(fn, "source", (char *)dest + (size_t)i * n, source, n, &a, i);
    }
    aset_sync(&a, pSync);
}

static void aset_collect(const char *fn, void *dest, const void *source, size_t nelems,
                         size_t elem, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct aset a = aset_get(fn, PE_start, logPE_stride, PE_size, pSync,
                             SHMEM_COLLECT_SYNC_SIZE);
    if (a.rank < 0) return;
    if (aset_world(&a)) {
        shmi_coll_collect(fn, SHMEM_TEAM_WORLD, dest, source, nelems, elem);
        return;
    }
    size_t n = shmi_nbytes(fn, nelems, elem);
    long *count = &pSync[SHMI_ASET_ROUNDS];
    __atomic_store_n(count, (long)n, __ATOMIC_RELAXED); /* published by the barrier */
    aset_sync(&a, pSync);
    size_t off = 0;
    for (int i = 0; i < a.size; i++) {
        long c;
        peer_read(fn, "pSync", &c, count, sizeof c, &a, i);
        size_t ni = (size_t)c;
        if (ni) {
            shmi_sym(fn, "dest", (char *)dest + off, ni, shmi_g.me);
            peer_read(fn, "source", (char *)dest + off, source, ni, &a, i);
        }
        off += ni;
    }
    aset_sync(&a, pSync);
    *count = SHMEM_SYNC_VALUE;
}

static void aset_alltoalls(const char *fn, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t elem, int PE_start,
                           int logPE_stride, int PE_size, long *pSync, int nsync)
{
    struct aset a = aset_get(fn, PE_start, logPE_stride, PE_size, pSync, nsync);
    if (a.rank < 0) return;
    if (dst < 1 || sst < 1)
        shmi_fatal("%s: strides dst=%td sst=%td must be >= 1 (in elements)", fn, dst, sst);
    if (aset_world(&a)) {
        if (dst == 1 && sst == 1) shmi_coll_alltoall(fn, SHMEM_TEAM_WORLD, dest, source, nelems, elem);
        else shmi_coll_alltoalls(fn, SHMEM_TEAM_WORLD, dest, source, dst, sst, nelems, elem);
        return;
    }
    size_t all = shmi_nbytes(fn, nelems, (size_t)PE_size);
    size_t db = (size_t)dst * elem, sb = (size_t)sst * elem;
    size_t dspan = all ? shmi_nbytes(fn, all - 1, db) + elem : 0;
    size_t sspan = all ? shmi_nbytes(fn, all - 1, sb) + elem : 0;
    if (all) shmi_sym(fn, "dest", dest, dspan, shmi_g.me);
    /* our block of a member's source: nelems elements from rank * nelems */
    size_t from = (size_t)a.rank * nelems * sb, bspan = nelems ? (nelems - 1) * sb + elem : 0;
    char *buf = NULL;
    if (bspan && (db != elem || sb != elem) && !(buf = malloc(bspan)))
        shmi_fatal("%s: out of private memory for a block of %zu bytes", fn, bspan);
    aset_sync(&a, pSync);
    for (int k = 0; all && k < a.size; k++) {
        int i = (a.rank + k) % a.size;
        char *d = (char *)dest + (size_t)i * nelems * db;
        shmi_sym(fn, "source", source, sspan, aset_pe(&a, i));
        if (db == elem && sb == elem) {
            peer_read(fn, "source", d, (const char *)source + from, nelems * elem, &a, i);
            continue;
        }
        const char *s = peer_view(fn, "source", (const char *)source + from, bspan, &a, i, buf);
        for (size_t e = 0; e < nelems; e++) memcpy(d + e * db, s + e * sb, elem);
    }
    free(buf);
    aset_sync(&a, pSync);
}

#define SHMI_DEF_ASET_ASET(BITS)                                                         \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, \
                               int PE_start, int logPE_stride, int PE_size, long *pSync) \
    { aset_broadcast(__func__, dest, source, nelems, BITS / 8, PE_root, PE_start,        \
                     logPE_stride, PE_size, pSync); }                                    \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                             int logPE_stride, int PE_size, long *pSync)                \
    { aset_collect(__func__, dest, source, nelems, BITS / 8, PE_start, logPE_stride,     \
                   PE_size, pSync); }                                                    \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                              int logPE_stride, int PE_size, long *pSync)               \
    { aset_fcollect(__func__, dest, source, nelems, BITS / 8, PE_start, logPE_stride,    \
                    PE_size, pSync); }                                                   \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                              int logPE_stride, int PE_size, long *pSync)               \
    { aset_alltoalls(__func__, dest, source, 1, 1, nelems, BITS / 8, PE_start,           \
                     logPE_stride, PE_size, pSync, SHMEM_ALLTOALL_SYNC_SIZE); }          \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size, \
                               long *pSync)                                              \
    { aset_alltoalls(__func__, dest, source, dst, sst, nelems, BITS / 8, PE_start,       \
                     logPE_stride, PE_size, pSync, SHMEM_ALLTOALLS_SYNC_SIZE); }
#define SHMI_DEF_ASET_NONE(BITS)
#define SHMI_DEF_ASET(BITS, BYTES) SHMI_OLD(ASET, BITS, SHMI_DEF_ASET)(BITS)
SHMEM_SIZE_TABLE(SHMI_DEF_ASET)

/* ---- *_to_all reductions ------------------------------------------------------------ */

static void aset_reduce(const char *fn, void *dest, const void *source, int nreduce,
                        size_t elem, int PE_start, int logPE_stride, int PE_size, long *pSync,
                        shmi_combine_fn f, enum shmi_red_type type, enum shmi_red_op op)
{
    struct aset a = aset_get(fn, PE_start, logPE_stride, PE_size, pSync,
                             SHMEM_REDUCE_SYNC_SIZE);
    if (a.rank < 0) return;
    if (nreduce < 0) shmi_fatal("%s: nreduce=%d is negative", fn, nreduce);
    if (aset_world(&a)) {
        shmi_coll_reduce_with(fn, SHMEM_TEAM_WORLD, dest, source, (size_t)nreduce, type, op, f);
        return;
    }
    size_t cnt = (size_t)nreduce, n = shmi_nbytes(fn, cnt, elem);
    char *acc = NULL, *in = NULL; /* in: a member's source when it is not mapped */
    if (n) {
        shmi_sym(fn, "dest", dest, n, shmi_g.me);
        shmi_sym(fn, "source", source, n, shmi_g.me);
        uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
        if (d != s && d < s + n && s < d + n)
            shmi_fatal("%s: dest=%p and source=%p overlap by part of their %zu bytes: pass the "
                       "same buffer (in place) or disjoint ones", fn, dest, source, n);
        if (!(acc = malloc(n)) || !(in = malloc(n)))
            shmi_fatal("%s: out of private memory for %zu bytes of partial results", fn, n);
    }
    aset_sync(&a, pSync);
    if (n) {
        peer_read(fn, "source", acc, source, n, &a, 0);
        for (int i = 1; i < a.size; i++) f(acc, peer_view(fn, "source", source, n, &a, i, in), cnt);
    }
    aset_sync(&a, pSync); /* every member has read every source: dest may change */
    if (n) memcpy(dest, acc, n);
    free(in);
    free(acc);
}

/* the team reduction's operation of each to_all name */
#define ASET_RED_and RED_AND
#define ASET_RED_or RED_OR
#define ASET_RED_xor RED_XOR
#define ASET_RED_max RED_MAX
#define ASET_RED_min RED_MIN
#define ASET_RED_sum RED_SUM
#define ASET_RED_prod RED_PROD
#define SHMI_DEF_TOALL1(N, T, OP)                                                        \
    static void toall_##N##_##OP(void *acc, const void *in, size_t n)                    \
    {                                                                                    \
        T *restrict x = acc;                                                             \
        const T *restrict y = in;                                                        \
        for (size_t i = 0; i < n; i++) x[i] = (SHMI_EXPR_##OP(T));                       \
    }                                                                                    \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,  \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)  \
    {                                                                                    \
        (void)pWrk;                                                                      \
        aset_reduce(__func__, dest, source, nreduce, sizeof(T), PE_start, logPE_stride,  \
                    PE_size, pSync, toall_##N##_##OP, RT_##N, ASET_RED_##OP);            \
    }
#define SHMI_DEF_TOALL(N, T, B, O, G) SHMI_TOALL_EACH(SHMI_DEF_TOALL1, N, T)
SHMEM_REDUCE_TABLE(SHMI_DEF_TOALL)
