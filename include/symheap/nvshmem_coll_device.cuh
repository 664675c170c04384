/* nvshmem_coll_device.cuh - collectives in kernels and on streams, and the
 * collective launch's PE count per GPU (issue 14).  Included at the end of
 * nvshmem_device.cuh (CUDA code only); do not include it alone.
 *
 * Names and signatures are NVSHMEM's: for each TYPENAME of the type tables
 * (NVSHMEM_TYPE_TABLE for broadcast, fcollect, alltoall; NVSHMEM_REDUCE_TABLE
 * with its and/or/xor and max/min subsets for the reductions; long double
 * and complex stay host-only; half and bfloat16 compute through float):
 *   nvshmem_TYPENAME_broadcast / _fcollect / _alltoall / _OP_reduce /
 *   _OP_reducescatter, nvshmem_broadcastmem / fcollectmem / alltoallmem,
 *   nvshmem_barrier(team), nvshmem_team_sync, nvshmem_sync,
 *   nvshmem_team_my_pe / n_pes                       __host__ __device__
 *   nvshmemx_..._warp, nvshmemx_..._block, nvshmemx_barrier_warp/_block/_warpgroup,
 *   nvshmemx_team_sync_warp/_block                  __device__
 *   nvshmemx_..._on_stream, nvshmemx_barrier_on_stream,
 *   nvshmemx_team_sync_on_stream                    host, a kernel on the stream
 * The thread form is called by one thread, the warp form by all 32 lanes of
 * a warp, the block form by every thread of the block; every PE of the team
 * calls the same collective with the same counts, one at a time per team.
 *
 * Teams: any team this PE belongs to.  NVSHMEM_TEAM_WORLD, NVSHMEM_TEAM_SHARED
 * and NVSHMEMX_TEAM_NODE are the same PEs while there is a GPU heap (it
 * spans one node) and share the world's control block; a team made by
 * nvshmem_team_split_strided / _2d is found in this PE's team table
 * (shmemx_gpu.h: its size, this PE's rank, its world PEs as start + r *
 * stride) and has a control block of its own, zeroed on every member when
 * the team was made, so collectives on different teams never share flags.
 * A handle that names no team of this PE (NVSHMEM_TEAM_INVALID, destroyed,
 * never made) prints one line naming the call and traps; the on-stream
 * forms check on the host and return NVSHMEMX_ERROR_INVALID_VALUE with a
 * message instead.
 *
 * Algorithms (all PEs' heaps are mapped into every PE, one GPU or several):
 *  - broadcast, fcollect, alltoall: up to SHMI_DC_LL_MAX bytes in all, the
 *    low-latency path (shmi_dc_ll: data and flags in 8-byte packets into the
 *    receivers' control blocks, no barrier); up to SHMI_DC_PUSH_MAX bytes the
 *    group stores its data straight into every peer's dest, then one
 *    barrier; larger, a barrier (sources ready), every PE pulls what it
 *    needs from the peers' mappings with all threads of the group, then a
 *    barrier (nobody leaves while a peer still reads its source).  The pull
 *    spreads the copying over every PE's SMs instead of one PE's.
 *  - reductions: when every PE's contribution fits in half of the scratch
 *    area of the device control block, each PE stores its source into
 *    every peer's scratch slot, one barrier, and each reduces the slots in
 *    PE order (the halves alternate with the barrier epoch, so the next
 *    reduction never overwrites a slot a slow PE still reads); larger, two
 *    shots: a barrier, each PE reduces its 1/n slice from every PE's source
 *    into its dest, a barrier, each pulls the other slices from their
 *    owners' dest, a barrier.  Either way every element is combined once, in
 *    PE order, so every PE gets bit-identical results (also for floats),
 *    equal to the host reductions'; in place (dest == source) works.
 *  - reducescatter: when the blocks fit the scratch half as above, each PE
 *    stores block p of its source into PE p's scratch, one barrier, each
 *    combines its rows; larger, a barrier, each PE reduces its own block
 *    from every PE's source, a barrier.  dest must not overlap source (a
 *    clear error).
 * Data written by peers is read with L2 loads (ld.global.cg), so a stale L1
 * line from an earlier collective in the same kernel is never used.  The
 * barriers are the device barrier (nvshmem_device.cuh), with a fence. */
#ifndef SYMHEAP_NVSHMEM_COLL_DEVICE_CUH
#define SYMHEAP_NVSHMEM_COLL_DEVICE_CUH

#include <type_traits>

/* ---- Limits ------------------------------------------------------------------------ */
/* The device control block is GPU_CTL_SIZE (src/core/mem_device.c) = 64 KiB:
 * barrier flags and the GPU identity below SHMI_DC_LL_OFF, the low-latency
 * slots up to SHMI_DC_SCRATCH_OFF, then two
 * halves of reduction scratch. */
#define SHMI_DCTL_SIZE 65536
static_assert(SHMI_DCTL_SIZE == SHMEMX_GPU_CTL_BLOCK, "control block layout");
#define SHMI_DC_LL_OFF 4096
#define SHMI_DC_SCRATCH_OFF 8192
static_assert(offsetof(shmi_dctl, ll_done) % 128 == 0, "control block layout");
#define SHMI_DC_SCRATCH_HALF ((SHMI_DCTL_SIZE - SHMI_DC_SCRATCH_OFF) / 2)
static_assert(sizeof(shmi_dctl) <= SHMI_DC_LL_OFF, "control block layout");
/* broadcast / fcollect / alltoall: up to this many bytes in all, the
 * low-latency path (flags in the data, no barrier): 256 packets of 4 bytes
 * in each of the two slots at SHMI_DC_LL_OFF (2 x 2 KiB) */
#ifndef SHMI_DC_LL_MAX
#define SHMI_DC_LL_MAX 1024
#endif
static_assert(SHMI_DC_LL_MAX <= 1024, "the low-latency slots hold 256 packets");
/* broadcast / fcollect / alltoall: push up to this many bytes in all, else pull */
#ifndef SHMI_DC_PUSH_MAX
#define SHMI_DC_PUSH_MAX 65536
#endif
/* threads of the one block an _on_stream collective runs */
#define SHMI_DC_STREAM_THREADS 512

/* ---- Thread groups ------------------------------------------------------------------ */
enum { SHMI_TG_THREAD, SHMI_TG_WARP, SHMI_TG_BLOCK };
template <int G> SHMI_DEV unsigned shmi_tg_tid(void)
{
    return G == SHMI_TG_BLOCK ? shmi_d_block_tid() : G == SHMI_TG_WARP ? (shmi_d_block_tid() & 31) : 0;
}
template <int G> SHMI_DEV unsigned shmi_tg_size(void)
{
    return G == SHMI_TG_BLOCK ? shmi_d_block_size() : G == SHMI_TG_WARP ? 32 : 1;
}
template <int G> SHMI_DEV void shmi_tg_sync(void)
{
    if (G == SHMI_TG_BLOCK) __syncthreads();
    else if (G == SHMI_TG_WARP) __syncwarp();
}
/* The group's writes so far are ordered before the barrier's release (CTA
 * barrier, then the elected thread's fence and release store). */
template <int G> SHMI_DEV void shmi_tg_barrier(const shmi_dteam &t, int quiet)
{
    shmi_tg_sync<G>();
    if (shmi_tg_tid<G>() == 0) shmi_d_barrier_t(t, quiet);
    shmi_tg_sync<G>();
}

/* ---- Teams on the device -------------------------------------------------------------- */
SHMI_DEV bool shmi_d_team_is_world(nvshmem_team_t team)
{
    return team == NVSHMEM_TEAM_WORLD || team == NVSHMEM_TEAM_SHARED || team == NVSHMEMX_TEAM_NODE;
}
/* The team at index team of this PE's table, or false when there is none
 * (or this PE is not a member). */
SHMI_DEV bool shmi_d_team_find(nvshmem_team_t team, shmi_dteam *t)
{
    if (shmi_d_team_is_world(team)) {
        *t = shmi_d_world();
        return true;
    }
    if (team < 0 || team >= SHMEMX_GPU_TEAMS || shmi_dstate.npes == 0) return false;
    const shmemx_gpu_team_t *e =
        (const shmemx_gpu_team_t *)(shmi_dstate.ctl + SHMEMX_GPU_CTL_BLOCK) + team;
    const int n = e->size;
    if (n <= 0) return false;
    *t = { n, e->rank, e->start, e->stride,
           (shmi_dctl *)(shmi_dstate.ctl + (uint64_t)e->block * SHMEMX_GPU_CTL_BLOCK) };
    return true;
}
SHMI_DEV shmi_dteam shmi_d_team(const char *fn, nvshmem_team_t team)
{
    shmi_dteam t;
    if (!shmi_d_team_find(team, &t)) {
        printf("[pe %d] symheap error: %s: team %d is not a team of this PE (NVSHMEM_TEAM_INVALID, "
               "destroyed, or not made by nvshmem_team_split_strided / _2d on this PE): pass "
               "a team this PE belongs to\n", (int)shmi_dstate.me, fn, (int)team);
        __trap();
    }
    return t;
}
/* Host side of the _on_stream forms: 0 when this PE belongs to the team. */
static inline int shmi_h_team_check(const char *fn, nvshmem_team_t team)
{
    if (team == NVSHMEM_TEAM_WORLD || team == NVSHMEM_TEAM_SHARED || team == NVSHMEMX_TEAM_NODE)
        return 0;
    shmem_team_t t = nvshmemi_team(team);
    if (t != SHMEM_TEAM_INVALID && shmem_team_my_pe(t) >= 0) return 0;
    fprintf(stderr, "[pe %d] symheap error: %s: team %d is not a team of this PE "
            "(NVSHMEM_TEAM_INVALID, destroyed, or not made by nvshmem_team_split_strided / _2d "
            "on this PE): pass a team this PE belongs to\n", shmem_my_pe(), fn, (int)team);
    return NVSHMEMX_ERROR_INVALID_VALUE;
}

SHMI_HD int nvshmem_team_my_pe(nvshmem_team_t team)
{
    SHMI_ON_DEVICE(shmi_dteam t; return shmi_d_team_find(team, &t) ? t.me : -1;)
    SHMI_ON_HOST(return shmem_team_my_pe(nvshmemi_team(team));)
}
SHMI_HD int nvshmem_team_n_pes(nvshmem_team_t team)
{
    SHMI_ON_DEVICE(shmi_dteam t; return shmi_d_team_find(team, &t) ? t.n : -1;)
    SHMI_ON_HOST(return shmem_team_n_pes(nvshmemi_team(team));)
}

/* src_pe of src_team as a rank of dest_team: -1 when it is not a member, or
 * either team is not one of this PE's. */
SHMI_HD int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team)
{
    SHMI_ON_DEVICE(shmi_dteam s, d;
                   if (!shmi_d_team_find(src_team, &s) || !shmi_d_team_find(dest_team, &d) ||
                       (unsigned)src_pe >= (unsigned)s.n)
                       return -1;
                   const int w = shmi_dt_pe(s, src_pe) - d.start;
                   if (d.stride == 0) return w == 0 && d.n > 0 ? 0 : -1;
                   return w % d.stride == 0 && (unsigned)(w / d.stride) < (unsigned)d.n
                              ? w / d.stride : -1;)
    SHMI_ON_HOST(return shmem_team_translate_pe(nvshmemi_team(src_team), src_pe,
                                                nvshmemi_team(dest_team));)
}

/* ---- Barriers and syncs on a team -------------------------------------------------------- */
SHMI_HD int nvshmem_barrier(nvshmem_team_t team)
{
    SHMI_ON_DEVICE(shmi_d_barrier_t(shmi_d_team("nvshmem_barrier", team), 1); return 0;)
    SHMI_ON_HOST(shmem_quiet(); return shmem_team_sync(nvshmemi_team(team));)
}
SHMI_HD int nvshmem_team_sync(nvshmem_team_t team)
{
    SHMI_ON_DEVICE(shmi_d_barrier_t(shmi_d_team("nvshmem_team_sync", team), 0); return 0;)
    SHMI_ON_HOST(return shmem_team_sync(nvshmemi_team(team));)
}
SHMI_HD int nvshmem_sync(nvshmem_team_t team)
{
    SHMI_ON_DEVICE(shmi_d_barrier_t(shmi_d_team("nvshmem_sync", team), 0); return 0;)
    SHMI_ON_HOST(return shmem_team_sync(nvshmemi_team(team));)
}
#define SHMI_DC_BAR(SUFFIX, G)                                                                 \
    SHMI_DEV int nvshmemx_barrier##SUFFIX(nvshmem_team_t team)                                 \
    { shmi_tg_barrier<G>(shmi_d_team("nvshmemx_barrier" #SUFFIX, team), 1); return 0; }       \
    SHMI_DEV int nvshmemx_team_sync##SUFFIX(nvshmem_team_t team)                               \
    { shmi_tg_barrier<G>(shmi_d_team("nvshmemx_team_sync" #SUFFIX, team), 0); return 0; }
SHMI_DC_BAR(_warp, SHMI_TG_WARP)
SHMI_DC_BAR(_block, SHMI_TG_BLOCK)
#undef SHMI_DC_BAR
/* A warpgroup is 4 consecutive warps of the block (threads 128k ... 128k +
 * 127; the last one may be shorter), all of whose threads call; it syncs
 * on the hardware's named barrier k, as NVSHMEM does (so a block of 1024
 * threads uses barriers 0-7: do not use those for other purposes around
 * the call).  NVSHMEM has no other warpgroup form outside its tile API. */
SHMI_DEV void shmi_d_warpgroup_sync(void)
{
    const unsigned tid = shmi_d_block_tid(), bs = shmi_d_block_size(), wg = tid / 128;
    const unsigned n = min(128u, (bs - wg * 128 + 31) / 32 * 32);
    asm volatile("bar.sync %0, %1;" ::"r"(wg), "r"(n) : "memory");
}
SHMI_DEV int nvshmemx_barrier_warpgroup(nvshmem_team_t team)
{
    const shmi_dteam t = shmi_d_team("nvshmemx_barrier_warpgroup", team);
    shmi_d_warpgroup_sync();
    if (shmi_d_block_tid() % 128 == 0) shmi_d_barrier_t(t, 1);
    shmi_d_warpgroup_sync();
    return 0;
}

/* ---- Data movement collectives ---------------------------------------------------------- */
/* Low-latency path of broadcast, fcollect and alltoall (up to SHMI_DC_LL_MAX
 * bytes in all): no barrier.  Each 8-byte packet carries 4 data bytes and a
 * 4-byte flag, the collective's number (ll_epoch + 1, the same on every PE:
 * they call collectives in the same order), stored and polled whole with
 * strong system-scope accesses, so a packet's data is there when its flag
 * is.  Block p of the result travels in packets [p * per, (p + 1) * per) of
 * slot e & 1 in the receiver's control block.  A writer first waits until
 * the receiver finished collective e - 2 (its ll_done, read with acquire),
 * the last one that used the slot; every PE marks its ll_done (release)
 * after it copied its packets out, so writers never overwrite unread data
 * and never wait for more than a PE that is two collectives behind.  A
 * device barrier since e - 2 began (ll_clear) answers that without asking.
 *   kind 0  broadcast: the root's block only (root = its rank)
 *   kind 1  fcollect: every PE sends its block to every other
 *   kind 2  alltoall: PE p sends block q of its source to PE q */
SHMI_DEV bool shmi_dc_ll_fits(size_t bytes, int n)
{
    return bytes * (size_t)n <= SHMI_DC_LL_MAX && (bytes + 3) / 4 * (size_t)n <= 256;
}
template <int G>
SHMI_DEV void shmi_dc_ll(const char *fn, const shmi_dteam &t, char *d, const char *s, size_t bytes,
                         int kind, int root)
{
    shmi_dctl *c = t.c;
    const int n = t.n, me = t.me;
    const unsigned tid = shmi_tg_tid<G>(), nth = shmi_tg_size<G>();
    const unsigned long long e = *(volatile unsigned long long *)&c->ll_epoch + 1;
    const unsigned flag = (unsigned)e;
    const size_t per = (bytes + 3) / 4; /* packets per block */
    unsigned long long *slot = (unsigned long long *)((char *)c + SHMI_DC_LL_OFF) + (e & 1) * 256;
    const bool clear = *(volatile unsigned long long *)&c->ll_clear + 2 >= e;
    shmi_tg_sync<G>(); /* the group's source writes are done; every thread has read e */
    /* no barrier since e - 2 began: ask (acquire loads: measured faster
     * than relaxed polls and one fence.acq_rel.sys, 4.0 against 5.5 us for
     * an 8-byte broadcast with 4 PEs on the H200) */
    if ((kind != 0 || me == root) && !clear)
        for (int i = 1; i < n; i++)
            while (shmi_d_ld_acquire(shmi_d_peer(fn, &c->ll_done, shmi_dt_pe(t, (me + i) % n))) + 2 < e) {
            }
    if (kind != 0 || me == root)
        for (int i = 1; i < n; i++) {
            const int p = (me + i) % n;
            const char *from = kind == 2 ? s + (size_t)p * bytes : s;
            unsigned long long *to =
                shmi_d_peer(fn, slot, shmi_dt_pe(t, p)) + (kind == 0 ? 0 : (size_t)me * per);
            for (size_t k = tid; k < per; k += nth) {
                unsigned v = 0;
                const size_t m = bytes - 4 * k < 4 ? bytes - 4 * k : 4;
                for (size_t b = 0; b < m; b++) v |= (unsigned)(unsigned char)from[4 * k + b] << 8 * b;
                shmi_d_st_relaxed(to + k, (unsigned long long)flag << 32 | v);
            }
        }
    /* my own block of the result */
    const int mine = kind == 0 ? root : me;
    if (me == mine || kind != 0) {
        const char *from = kind == 2 ? s + (size_t)me * bytes : s;
        char *to = kind == 0 ? d : d + (size_t)me * bytes;
        if (to != from) shmi_d_copy(to, from, bytes, tid, nth);
    }
    /* the others' blocks */
    for (int i = 1; i < n && (kind != 0 || me != root); i++) {
        const int p = kind == 0 ? root : (me + i) % n;
        const unsigned long long *from = slot + (kind == 0 ? 0 : (size_t)p * per);
        char *to = kind == 0 ? d : d + (size_t)p * bytes;
        for (size_t k = tid; k < per; k += nth) {
            unsigned long long w;
            while ((unsigned)((w = shmi_d_ld_relaxed(from + k)) >> 32) != flag) {
            }
            const size_t m = bytes - 4 * k < 4 ? bytes - 4 * k : 4;
            for (size_t b = 0; b < m; b++) to[4 * k + b] = (char)(w >> 8 * b);
        }
        if (kind == 0) break;
    }
    shmi_tg_sync<G>(); /* every packet of the group is read */
    if (tid == 0) {
        *(volatile unsigned long long *)&c->ll_epoch = e;
        shmi_d_st_release(&c->ll_done, e);
    }
    shmi_tg_sync<G>();
}

/* Before a push into PE p's dest: p has finished every low-latency
 * collective this PE began (they end without a barrier, so p may still be
 * writing its dest from its packets). */
SHMI_DEV void shmi_dc_ll_wait(const char *fn, const shmi_dteam &t, int p)
{
    shmi_dctl *c = t.c;
    const unsigned long long e = *(volatile unsigned long long *)&c->ll_epoch;
    if (*(volatile unsigned long long *)&c->ll_clear == e) return; /* a barrier since */
    while (shmi_d_ld_acquire(shmi_d_peer(fn, &c->ll_done, shmi_dt_pe(t, p))) < e) {
    }
}

template <int G>
SHMI_DEV int shmi_dc_broadcast(const char *fn, nvshmem_team_t team, void *dest, const void *src,
                               size_t bytes, int root)
{
    const shmi_dteam t = shmi_d_team(fn, team);
    const int n = t.n, me = t.me;
    const unsigned tid = shmi_tg_tid<G>(), nth = shmi_tg_size<G>();
    if ((unsigned)root >= (unsigned)n) {
        printf("[pe %d] symheap error: %s: PE_root=%d is out of range: the team has %d PEs\n", me,
               fn, root, n);
        __trap();
    }
    if (shmi_dc_ll_fits(bytes, n)) {
        if (bytes) shmi_dc_ll<G>(fn, t, (char *)dest, (const char *)src, bytes, 0, root);
    } else if (bytes * (size_t)n <= SHMI_DC_PUSH_MAX) {
        shmi_tg_sync<G>(); /* the group's writes of the source are done */
        if (me == root && bytes)
            for (int i = 0; i < n; i++) {
                int p = (me + i) % n;
                if (p != me) shmi_dc_ll_wait(fn, t, p);
                if (p != me || dest != src)
                    shmi_d_copy(shmi_d_peer(fn, (char *)dest, shmi_dt_pe(t, p)), src, bytes, tid, nth);
            }
        shmi_tg_barrier<G>(t, 1);
    } else {
        shmi_tg_barrier<G>(t, 1); /* the root's source is ready */
        if (me != root)
            shmi_d_copy_g<true>(dest, shmi_d_peer(fn, (const char *)src, shmi_dt_pe(t, root)), bytes,
                                tid, nth);
        else if (dest != src)
            shmi_d_copy(dest, src, bytes, tid, nth);
        shmi_tg_barrier<G>(t, 1); /* the root keeps its source until every PE has it */
    }
    return 0;
}

/* dest gets block p (bytes) from PE p; alltoall: PE p sends block q of its
 * source to PE q, fcollect: every PE sends its one block. */
template <int G, bool A2A>
SHMI_DEV int shmi_dc_gather(const char *fn, nvshmem_team_t team, void *dest, const void *src,
                            size_t bytes)
{
    const shmi_dteam t = shmi_d_team(fn, team);
    const int n = t.n, me = t.me;
    const unsigned tid = shmi_tg_tid<G>(), nth = shmi_tg_size<G>();
    char *d = (char *)dest;
    const char *s = (const char *)src;
    if (shmi_dc_ll_fits(bytes, n)) {
        if (bytes) shmi_dc_ll<G>(fn, t, d, s, bytes, A2A ? 2 : 1, 0);
    } else if (bytes * (size_t)n <= SHMI_DC_PUSH_MAX) {
        shmi_tg_sync<G>();
        if (bytes)
            for (int i = 0; i < n; i++) {
                int p = (me + i) % n;
                const char *from = A2A ? s + (size_t)p * bytes : s;
                char *to = d + (size_t)me * bytes;
                if (p != me) shmi_dc_ll_wait(fn, t, p);
                if (p != me || to != from)
                    shmi_d_copy(shmi_d_peer(fn, to, shmi_dt_pe(t, p)), from, bytes, tid, nth);
            }
        shmi_tg_barrier<G>(t, 1);
    } else {
        shmi_tg_barrier<G>(t, 1); /* every source is ready */
        for (int i = 0; i < n; i++) {
            int p = (me + i) % n;
            const char *from = A2A ? s + (size_t)me * bytes : s;
            char *to = d + (size_t)p * bytes;
            if (p == me) {
                if (to != from) shmi_d_copy(to, from, bytes, tid, nth);
            } else {
                shmi_d_copy_g<true>(to, shmi_d_peer(fn, from, shmi_dt_pe(t, p)), bytes, tid, nth);
            }
        }
        shmi_tg_barrier<G>(t, 1); /* sources stay until every PE has read them */
    }
    return 0;
}

/* ---- Reductions ------------------------------------------------------------------------ */
/* Integer sums and products wrap around (computed unsigned, as on the host). */
template <typename T, bool I = std::is_integral<T>::value> struct shmi_arith { typedef T type; };
template <typename T> struct shmi_arith<T, true> { typedef typename std::make_unsigned<T>::type type; };
/* half and bfloat16 compute through float, rounded back to nearest even (as
 * on the host: src/core/reduce.c); comparisons too. */
template <> struct shmi_arith<__half, false> { typedef float type; };
template <> struct shmi_arith<__nv_bfloat16, false> { typedef float type; };
template <typename T> struct shmi_cmpt { typedef T type; };
template <> struct shmi_cmpt<__half> { typedef float type; };
template <> struct shmi_cmpt<__nv_bfloat16> { typedef float type; };
/* x is the accumulator, y the next PE's value (src/core/reduce_ops.h's order). */
struct shmi_op_and { template <typename T> static __device__ __forceinline__ T f(T x, T y) { return (T)(x & y); } };
struct shmi_op_or { template <typename T> static __device__ __forceinline__ T f(T x, T y) { return (T)(x | y); } };
struct shmi_op_xor { template <typename T> static __device__ __forceinline__ T f(T x, T y) { return (T)(x ^ y); } };
struct shmi_op_max {
    template <typename T> static __device__ __forceinline__ T f(T x, T y)
    { typedef typename shmi_cmpt<T>::type C; return (C)y > (C)x ? y : x; }
};
/* MAXLOC on {x: value, y: location}: the larger x, of equal x the smaller y
 * (as the host form, src/api/nvshmem_host.c) */
struct shmi_op_maxloc {
    static __device__ __forceinline__ double2 f(double2 x, double2 y)
    { return y.x > x.x || (y.x == x.x && y.y < x.y) ? y : x; }
};
struct shmi_op_min {
    template <typename T> static __device__ __forceinline__ T f(T x, T y)
    { typedef typename shmi_cmpt<T>::type C; return (C)y < (C)x ? y : x; }
};
struct shmi_op_sum {
    template <typename T> static __device__ __forceinline__ T f(T x, T y)
    { typedef typename shmi_arith<T>::type A; return (T)((A)x + (A)y); }
};
struct shmi_op_prod {
    template <typename T> static __device__ __forceinline__ T f(T x, T y)
    { typedef typename shmi_arith<T>::type A; return (T)((A)x * (A)y); }
};

/* A load at L2 of an element other PEs may have written during this kernel. */
template <typename T> SHMI_DEV T shmi_d_ldcg(const T *p)
{
    T v;
    if (sizeof(T) == 1) { unsigned char b = __ldcg((const unsigned char *)p); memcpy(&v, &b, 1); }
    else if (sizeof(T) == 2) { unsigned short b = __ldcg((const unsigned short *)p); memcpy(&v, &b, 2); }
    else if (sizeof(T) == 4) { unsigned int b = __ldcg((const unsigned int *)p); memcpy(&v, &b, 4); }
    else if (sizeof(T) == 8) { unsigned long long b = __ldcg((const unsigned long long *)p); memcpy(&v, &b, 8); }
    else if (sizeof(T) == 16) { int4 b = __ldcg((const int4 *)p); memcpy(&v, &b, 16); } /* double2 */
    else
        for (size_t k = 0; k < sizeof(T); k++)
            ((unsigned char *)&v)[k] = ((const volatile unsigned char *)p)[k];
    return v;
}

/* PE p's copy of a, after shmi_d_check of a on p; no check here. */
template <typename T> SHMI_DEV T *shmi_d_peer_nc(T *a, int p)
{
    if (p == shmi_dstate.me) return a;
    return (T *)((uintptr_t)a - shmi_dstate.base + shmi_dstate.slots + (uint64_t)p * shmi_dstate.size);
}

/* dest[i] = src_0[i] OP src_1[i] OP ... for i in [lo, hi), over every PE's
 * src (a symmetric address) in PE order, by the group's threads; one
 * element at a time. */
template <typename T, typename OP>
SHMI_DEV void shmi_dc_combine1(const shmi_dteam &t, T *dest, const T *src, size_t lo, size_t hi,
                               unsigned tid, unsigned nth)
{
    const int n = t.n;
    for (size_t i = lo + tid; i < hi; i += nth) {
        T acc = shmi_d_ldcg(shmi_d_peer_nc(src, shmi_dt_pe(t, 0)) + i);
        for (int r = 1; r < n; r++)
            acc = OP::f(acc, shmi_d_ldcg(shmi_d_peer_nc(src, shmi_dt_pe(t, r)) + i));
        dest[i] = acc;
    }
}

/* 16-byte vectors of 16 / sizeof(T) elements, for T of 1, 2, 4 or 8 bytes:
 * acc = acc OP y lane by lane (the same operation, in the same order, as
 * one element at a time). */
template <typename T, typename OP, bool V = (sizeof(T) <= 8 && 16 % sizeof(T) == 0)>
struct shmi_dc_vec {
    enum { E = 16 / sizeof(T) };
    static __device__ __forceinline__ int4 f(int4 acc, int4 y)
    {
        T a[E], b[E];
        memcpy(a, &acc, 16);
        memcpy(b, &y, 16);
#pragma unroll
        for (int k = 0; k < E; k++) a[k] = OP::f(a[k], b[k]);
        memcpy(&acc, a, 16);
        return acc;
    }
    /* team rank r's vector v of the array that starts at a (16-byte aligned) */
    static __device__ __forceinline__ int4 ld(const shmi_dteam &t, const T *a, int r, size_t v)
    {
        return __ldcg((const int4 *)shmi_d_peer_nc(a, shmi_dt_pe(t, r)) + v);
    }
    /* Elements [lo, hi) as far as vectors go; returns the new lo.  The
     * elements before the first 16-byte boundary of dest + lo are done
     * one at a time; vectors need src + lo to be on the same boundary,
     * and the peers' mappings 16-byte aligned (their heaps start on it). */
    static __device__ __forceinline__ size_t run(const shmi_dteam &t, T *dest, const T *src,
                                                 size_t lo, size_t hi, unsigned tid, unsigned nth)
    {
        const uintptr_t d = (uintptr_t)(dest + lo), s = (uintptr_t)(src + lo);
        if (hi - lo < 2 * E || ((d ^ s) & 15) || (d % sizeof(T)) ||
            ((shmi_dstate.base | shmi_dstate.slots | shmi_dstate.size) & 15))
            return lo;
        const size_t head = ((16 - (d & 15)) & 15) / sizeof(T);
        shmi_dc_combine1<T, OP>(t, dest, src, lo, lo + head, tid, nth);
        lo += head;
        const int n = t.n;
        const size_t nv = (hi - lo) / E;
        const T *a = src + lo;
        int4 *dv = (int4 *)(dest + lo);
        size_t v = tid;
        for (; v + nth < nv; v += 2 * (size_t)nth) { /* two vectors per PE in flight */
            int4 x0 = ld(t, a, 0, v), x1 = ld(t, a, 0, v + nth);
            for (int r = 1; r < n; r++) {
                int4 y0 = ld(t, a, r, v), y1 = ld(t, a, r, v + nth);
                x0 = f(x0, y0);
                x1 = f(x1, y1);
            }
            dv[v] = x0;
            dv[v + nth] = x1;
        }
        for (; v < nv; v += nth) {
            int4 x = ld(t, a, 0, v);
            for (int r = 1; r < n; r++) x = f(x, ld(t, a, r, v));
            dv[v] = x;
        }
        return lo + nv * E;
    }
};
template <typename T, typename OP> struct shmi_dc_vec<T, OP, false> {
    static __device__ __forceinline__ size_t run(const shmi_dteam &, T *, const T *, size_t lo, size_t,
                                                 unsigned, unsigned)
    { return lo; }
};

/* The scratch path's combine: dest[i] = row_0[i] OP ... OP row_{n-1}[i],
 * the rows at rows + r * slot in this PE's control block (16-byte aligned,
 * slot a multiple of 16), in 16-byte vectors while dest is aligned too:
 * returns how many elements it did (0 when it did none); the caller does
 * the rest one at a time.  Same operations in the same order as one element
 * at a time; a quarter of the loads for 4-byte types (a thread-form 1 KiB
 * reduction was 2.2x NVSHMEM's time, one dependent scalar load after another). */
template <typename T, typename OP, bool V = (sizeof(T) <= 8 && 16 % sizeof(T) == 0)>
struct shmi_dc_rows {
    static __device__ __forceinline__ size_t run(T *dest, const char *rows, size_t slot, int n,
                                                 size_t nreduce, unsigned tid, unsigned nth)
    {
        enum { E = 16 / sizeof(T) };
        if (((uintptr_t)dest & 15) || ((uintptr_t)rows & 15) || (slot & 15) || nreduce < E)
            return 0;
        const size_t nv = nreduce / E;
        size_t v = tid;
        for (; v + nth < nv; v += 2 * (size_t)nth) { /* two vectors per row in flight */
            int4 x0 = __ldcg((const int4 *)rows + v), x1 = __ldcg((const int4 *)rows + v + nth);
            for (int r = 1; r < n; r++) {
                const int4 *row = (const int4 *)(rows + (size_t)r * slot);
                int4 y0 = __ldcg(row + v), y1 = __ldcg(row + v + nth);
                x0 = shmi_dc_vec<T, OP>::f(x0, y0);
                x1 = shmi_dc_vec<T, OP>::f(x1, y1);
            }
            ((int4 *)dest)[v] = x0;
            ((int4 *)dest)[v + nth] = x1;
        }
        for (; v < nv; v += nth) {
            int4 x = __ldcg((const int4 *)rows + v);
            for (int r = 1; r < n; r++)
                x = shmi_dc_vec<T, OP>::f(x, __ldcg((const int4 *)(rows + (size_t)r * slot) + v));
            ((int4 *)dest)[v] = x;
        }
        return nv * E;
    }
};
template <typename T, typename OP> struct shmi_dc_rows<T, OP, false> {
    static __device__ __forceinline__ size_t run(T *, const char *, size_t, int, size_t, unsigned,
                                                 unsigned)
    { return 0; }
};

/* The same, with 16-byte loads where the addresses allow (most of a
 * large reduction), the rest one element at a time. */
template <typename T, typename OP>
SHMI_DEV void shmi_dc_combine(const shmi_dteam &t, T *dest, const T *src, size_t lo, size_t hi,
                              unsigned tid, unsigned nth)
{
    if (hi > lo) lo = shmi_dc_vec<T, OP>::run(t, dest, src, lo, hi, tid, nth);
    shmi_dc_combine1<T, OP>(t, dest, src, lo, hi, tid, nth);
}

/* The scratch path of the reductions (the sizes fit half of the scratch:
 * slot bytes per PE, a multiple of 16): our source (RS: its block p, for
 * reducescatter) into row `me` of every team member p's scratch half, one
 * barrier, then each PE combines its rows into dest in PE order.  Every
 * member has done the same barriers on this team (its own control block), so
 * the epoch, and with it the half, is the same on every member; the halves
 * alternate, so the next reduction never overwrites a row a slow PE still
 * reads (the one after that comes after a barrier it also passed). */
template <int G, typename T, typename OP, bool RS>
SHMI_DEV void shmi_dc_scratch(const char *fn, const shmi_dteam &t, T *dest, const T *src,
                              size_t nreduce, size_t slot, unsigned tid, unsigned nth)
{
    const int n = t.n, me = t.me;
    const size_t bytes = nreduce * sizeof(T);
    shmi_dctl *c = t.c;
    shmi_tg_sync<G>(); /* the group's source is written; no thread is in a barrier */
    const unsigned long long e = *(volatile unsigned long long *)&c->epoch;
    char *half = (char *)c + SHMI_DC_SCRATCH_OFF + (e & 1) * SHMI_DC_SCRATCH_HALF;
    if (bytes)
        for (int i = 0; i < n; i++) {
            int p = (me + i) % n;
            shmi_d_copy(shmi_d_peer(fn, half + (size_t)me * slot, shmi_dt_pe(t, p)),
                        RS ? src + (size_t)p * nreduce : src, bytes, tid, nth);
        }
    shmi_tg_barrier<G>(t, 1);
    for (size_t i = shmi_dc_rows<T, OP>::run(dest, half, slot, n, nreduce, tid, nth) + tid;
         i < nreduce; i += nth) {
        T acc = shmi_d_ldcg((const T *)half + i);
        for (int r = 1; r < n; r++)
            acc = OP::f(acc, shmi_d_ldcg((const T *)(half + (size_t)r * slot) + i));
        dest[i] = acc;
    }
    shmi_tg_sync<G>();
}

template <int G, typename T, typename OP>
SHMI_DEV int shmi_dc_reduce(const char *fn, nvshmem_team_t team, T *dest, const T *src, size_t nreduce)
{
    const shmi_dteam t = shmi_d_team(fn, team);
    const int n = t.n, me = t.me;
    const unsigned tid = shmi_tg_tid<G>(), nth = shmi_tg_size<G>();
    const size_t bytes = nreduce * sizeof(T), slot = (bytes + 15) / 16 * 16;
    if (slot * (size_t)n <= SHMI_DC_SCRATCH_HALF) {
        shmi_dc_scratch<G, T, OP, false>(fn, t, dest, src, nreduce, slot, tid, nth);
        return 0;
    }
    /* Two shots; in place is fine: PE p writes only slice p of its dest in
     * the first, which only PE p reads. */
    for (int r = 0; r < n; r++) {
        shmi_d_check(fn, src, shmi_dt_pe(t, r));
        shmi_d_check(fn, dest, shmi_dt_pe(t, r));
    }
    const size_t chunk = (nreduce + n - 1) / n;
    shmi_tg_barrier<G>(t, 1); /* every source is ready */
    {
        size_t lo = (size_t)me * chunk < nreduce ? (size_t)me * chunk : nreduce;
        size_t hi = lo + chunk < nreduce ? lo + chunk : nreduce;
        shmi_dc_combine<T, OP>(t, dest, src, lo, hi, tid, nth);
    }
    shmi_tg_barrier<G>(t, 1); /* every slice is reduced */
    for (int i = 1; i < n; i++) {
        int p = (me + i) % n;
        size_t lo = (size_t)p * chunk < nreduce ? (size_t)p * chunk : nreduce;
        size_t hi = lo + chunk < nreduce ? lo + chunk : nreduce;
        if (hi > lo)
            shmi_d_copy_g<true>(dest + lo, shmi_d_peer_nc(dest + lo, shmi_dt_pe(t, p)),
                                (hi - lo) * sizeof(T), tid, nth);
    }
    shmi_tg_barrier<G>(t, 1); /* every PE has every slice */
    return 0;
}

/* NVSHMEM's one maxloc routine: block scope in kernels, the library's on
 * the host; in kernels every element as the other reductions (scratch or
 * two shots, combined in PE order, so every PE gets the same pairs). */
SHMI_HD int nvshmemx_double2_maxloc_reduce_block(nvshmem_team_t team, double2 *dest,
                                                 const double2 *src, size_t nreduce)
{
    SHMI_ON_DEVICE(return shmi_dc_reduce<SHMI_TG_BLOCK, double2, shmi_op_maxloc>(
                       "nvshmemx_double2_maxloc_reduce_block", team, dest, src, nreduce);)
    SHMI_ON_HOST(return nvshmemi_double2_maxloc_reduce_host(team, dest, src, nreduce);)
}

template <int G, typename T, typename OP>
SHMI_DEV int shmi_dc_reducescatter(const char *fn, nvshmem_team_t team, T *dest, const T *src,
                                   size_t nreduce)
{
    const shmi_dteam t = shmi_d_team(fn, team);
    const int n = t.n, me = t.me;
    const unsigned tid = shmi_tg_tid<G>(), nth = shmi_tg_size<G>();
    const size_t bytes = nreduce * sizeof(T);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)src;
    if (bytes && d < s + bytes * (size_t)n && s < d + bytes) {
        printf("[pe %d] symheap error: %s: dest=%p (%llu bytes) overlaps source=%p (%d blocks of "
               "%llu bytes): give dest a buffer of its own\n", me, fn, (void *)dest,
               (unsigned long long)bytes, (const void *)src, n, (unsigned long long)bytes);
        __trap();
    }
    const size_t slot = (bytes + 15) / 16 * 16;
    if (slot * (size_t)n <= SHMI_DC_SCRATCH_HALF) { /* one barrier instead of two */
        shmi_dc_scratch<G, T, OP, true>(fn, t, dest, src, nreduce, slot, tid, nth);
        return 0;
    }
    const T *mine = src + (size_t)me * nreduce;
    for (int r = 0; r < n; r++) shmi_d_check(fn, mine, shmi_dt_pe(t, r));
    shmi_tg_barrier<G>(t, 1);
    shmi_dc_combine<T, OP>(t, dest, mine, 0, nreduce, tid, nth);
    shmi_tg_barrier<G>(t, 1); /* sources stay until every PE has read its block */
    return 0;
}

/* ---- Kernels of the _on_stream forms: one block runs the block form ------------------------ */
static __global__ void shmi_k_team_barrier(nvshmem_team_t team, int quiet)
{
    shmi_d_barrier_t(shmi_d_team(quiet ? "nvshmemx_barrier_on_stream" : "nvshmemx_team_sync_on_stream",
                                 team), quiet);
}
static __global__ void __launch_bounds__(SHMI_DC_STREAM_THREADS)
shmi_k_bcast(nvshmem_team_t team, void *d, const void *s, size_t bytes, int root)
{ shmi_dc_broadcast<SHMI_TG_BLOCK>("nvshmemx_broadcast_on_stream", team, d, s, bytes, root); }
template <bool A2A>
static __global__ void __launch_bounds__(SHMI_DC_STREAM_THREADS)
shmi_k_gather(nvshmem_team_t team, void *d, const void *s, size_t bytes)
{
    shmi_dc_gather<SHMI_TG_BLOCK, A2A>(A2A ? "nvshmemx_alltoall_on_stream"
                                           : "nvshmemx_fcollect_on_stream", team, d, s, bytes);
}
template <typename T, typename OP, bool RS>
static __global__ void __launch_bounds__(SHMI_DC_STREAM_THREADS)
shmi_k_reduce(nvshmem_team_t team, T *d, const T *s, size_t n)
{
    if (RS) shmi_dc_reducescatter<SHMI_TG_BLOCK, T, OP>("nvshmemx_reducescatter_on_stream", team, d, s, n);
    else shmi_dc_reduce<SHMI_TG_BLOCK, T, OP>("nvshmemx_reduce_on_stream", team, d, s, n);
}
/* 0, or NVSHMEMX_ERROR_INTERNAL with a message when the launch failed. */
static inline int shmi_h_launched(const char *fn)
{
    cudaError_t e = cudaPeekAtLastError();
    if (e == cudaSuccess) return 0;
    fprintf(stderr, "[pe %d] symheap error: %s: kernel launch failed: %s\n", shmem_my_pe(), fn,
            cudaGetErrorString(e));
    return NVSHMEMX_ERROR_INTERNAL;
}

static inline int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream)
{
    if (int rc = shmi_h_team_check("nvshmemx_barrier_on_stream", team)) return rc;
    shmi_k_team_barrier<<<1, 1, 0, stream>>>(team, 1);
    return shmi_h_launched("nvshmemx_barrier_on_stream");
}
static inline int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream)
{
    if (int rc = shmi_h_team_check("nvshmemx_team_sync_on_stream", team)) return rc;
    shmi_k_team_barrier<<<1, 1, 0, stream>>>(team, 0);
    return shmi_h_launched("nvshmemx_team_sync_on_stream");
}

/* ---- Untyped forms ----------------------------------------------------------------------- */
SHMI_HD int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t bytes,
                                 int PE_root)
{
    SHMI_ON_DEVICE(return shmi_dc_broadcast<SHMI_TG_THREAD>("nvshmem_broadcastmem", team, dest,
                                                            source, bytes, PE_root);)
    SHMI_ON_HOST(return shmem_broadcastmem(nvshmemi_team(team), dest, source, bytes, PE_root);)
}
SHMI_HD int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t bytes)
{
    SHMI_ON_DEVICE(return shmi_dc_gather<SHMI_TG_THREAD, false>("nvshmem_fcollectmem", team, dest,
                                                                source, bytes);)
    SHMI_ON_HOST(return shmem_fcollectmem(nvshmemi_team(team), dest, source, bytes);)
}
SHMI_HD int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t bytes)
{
    SHMI_ON_DEVICE(return shmi_dc_gather<SHMI_TG_THREAD, true>("nvshmem_alltoallmem", team, dest,
                                                               source, bytes);)
    SHMI_ON_HOST(return shmem_alltoallmem(nvshmemi_team(team), dest, source, bytes);)
}
#define SHMI_DC_MEM(SUFFIX, G)                                                                 \
    SHMI_DEV int nvshmemx_broadcastmem##SUFFIX(nvshmem_team_t team, void *dest,                \
                                               const void *source, size_t bytes, int PE_root)  \
    { return shmi_dc_broadcast<G>("nvshmemx_broadcastmem" #SUFFIX, team, dest, source, bytes,  \
                                  PE_root); }                                                  \
    SHMI_DEV int nvshmemx_fcollectmem##SUFFIX(nvshmem_team_t team, void *dest,                 \
                                              const void *source, size_t bytes)                \
    { return shmi_dc_gather<G, false>("nvshmemx_fcollectmem" #SUFFIX, team, dest, source,     \
                                      bytes); }                                                \
    SHMI_DEV int nvshmemx_alltoallmem##SUFFIX(nvshmem_team_t team, void *dest,                 \
                                              const void *source, size_t bytes)                \
    { return shmi_dc_gather<G, true>("nvshmemx_alltoallmem" #SUFFIX, team, dest, source,      \
                                     bytes); }
SHMI_DC_MEM(_warp, SHMI_TG_WARP)
SHMI_DC_MEM(_block, SHMI_TG_BLOCK)
#undef SHMI_DC_MEM
static inline int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest,
                                                  const void *source, size_t bytes, int PE_root,
                                                  cudaStream_t stream)
{
    if (int rc = shmi_h_team_check("nvshmemx_broadcastmem_on_stream", team)) return rc;
    shmi_k_bcast<<<1, SHMI_DC_STREAM_THREADS, 0, stream>>>(team, dest, source, bytes, PE_root);
    return shmi_h_launched("nvshmemx_broadcastmem_on_stream");
}
static inline int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest,
                                                 const void *source, size_t bytes,
                                                 cudaStream_t stream)
{
    if (int rc = shmi_h_team_check("nvshmemx_fcollectmem_on_stream", team)) return rc;
    shmi_k_gather<false><<<1, SHMI_DC_STREAM_THREADS, 0, stream>>>(team, dest, source, bytes);
    return shmi_h_launched("nvshmemx_fcollectmem_on_stream");
}
static inline int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest,
                                                 const void *source, size_t bytes,
                                                 cudaStream_t stream)
{
    if (int rc = shmi_h_team_check("nvshmemx_alltoallmem_on_stream", team)) return rc;
    shmi_k_gather<true><<<1, SHMI_DC_STREAM_THREADS, 0, stream>>>(team, dest, source, bytes);
    return shmi_h_launched("nvshmemx_alltoallmem_on_stream");
}

/* ---- Typed families from the type tables ----------------------------------------------------
 * The typed _on_stream reductions are function templates with one defaulted
 * parameter, called as plain functions: their kernels are compiled only
 * where a program calls them (all of them in every unit would cost half a
 * minute of compilation per file).
 * SHMI_DC_FN(N, decl, host-body, device-body...): __host__ __device__, or a
 * host-only inline for the host-only rows (long double, complex).  The
 * device body is last so that template arguments' commas need no care. */
#define SHMI_DC_FN(N, decl, host, ...) SHMI_DV_CAT(SHMI_DC_FN_, SHMI_DV_IS_HOSTONLY(N))(decl, host, __VA_ARGS__)
#define SHMI_DC_FN_0(decl, host, ...) SHMI_HD decl { SHMI_ON_DEVICE(__VA_ARGS__) SHMI_ON_HOST(host) }
#define SHMI_DC_FN_1(decl, host, ...) static inline decl { host }

#define SHMI_DC_COLL_G(N, T, SUFFIX, G)                                                            \
    SHMI_DEV int nvshmemx_##N##_broadcast##SUFFIX(nvshmem_team_t team, T *dest, const T *source,  \
                                                  size_t nelems, int PE_root)                      \
    { return shmi_dc_broadcast<G>("nvshmemx_" #N "_broadcast" #SUFFIX, team, dest, source,        \
                                  nelems * sizeof(T), PE_root); }                                  \
    SHMI_DEV int nvshmemx_##N##_fcollect##SUFFIX(nvshmem_team_t team, T *dest, const T *source,   \
                                                 size_t nelems)                                    \
    { return shmi_dc_gather<G, false>("nvshmemx_" #N "_fcollect" #SUFFIX, team, dest, source,     \
                                      nelems * sizeof(T)); }                                       \
    SHMI_DEV int nvshmemx_##N##_alltoall##SUFFIX(nvshmem_team_t team, T *dest, const T *source,   \
                                                 size_t nelems)                                    \
    { return shmi_dc_gather<G, true>("nvshmemx_" #N "_alltoall" #SUFFIX, team, dest, source,      \
                                     nelems * sizeof(T)); }
#define SHMI_DC_COLL(N, T, A, B, S, G)                                                             \
    SHMI_DC_FN(N, int nvshmem_##N##_broadcast(nvshmem_team_t team, T *dest, const T *source,      \
                                              size_t nelems, int PE_root),                         \
               return shmem_##N##_broadcast(nvshmemi_team(team), dest, source, nelems, PE_root);, \
               return shmi_dc_broadcast<SHMI_TG_THREAD>("nvshmem_" #N "_broadcast", team, dest,   \
                                                        source, nelems * sizeof(T), PE_root);)     \
    SHMI_DC_FN(N, int nvshmem_##N##_fcollect(nvshmem_team_t team, T *dest, const T *source,       \
                                             size_t nelems),                                       \
               return shmem_##N##_fcollect(nvshmemi_team(team), dest, source, nelems);,           \
               return shmi_dc_gather<SHMI_TG_THREAD, false>("nvshmem_" #N "_fcollect", team,      \
                                                            dest, source, nelems * sizeof(T));)    \
    SHMI_DC_FN(N, int nvshmem_##N##_alltoall(nvshmem_team_t team, T *dest, const T *source,       \
                                             size_t nelems),                                       \
               return shmem_##N##_alltoall(nvshmemi_team(team), dest, source, nelems);,           \
               return shmi_dc_gather<SHMI_TG_THREAD, true>("nvshmem_" #N "_alltoall", team,       \
                                                           dest, source, nelems * sizeof(T));)     \
    SHMI_DV_DEVONLY(N,                                                                             \
    SHMI_DC_COLL_G(N, T, _warp, SHMI_TG_WARP)                                                      \
    SHMI_DC_COLL_G(N, T, _block, SHMI_TG_BLOCK)                                                    \
    static inline int nvshmemx_##N##_broadcast_on_stream(nvshmem_team_t team, T *dest,            \
                                                         const T *source, size_t nelems,           \
                                                         int PE_root, cudaStream_t stream)         \
    { return nvshmemx_broadcastmem_on_stream(team, dest, source, nelems * sizeof(T), PE_root,     \
                                             stream); }                                            \
    static inline int nvshmemx_##N##_fcollect_on_stream(nvshmem_team_t team, T *dest,             \
                                                        const T *source, size_t nelems,            \
                                                        cudaStream_t stream)                       \
    { return nvshmemx_fcollectmem_on_stream(team, dest, source, nelems * sizeof(T), stream); }    \
    static inline int nvshmemx_##N##_alltoall_on_stream(nvshmem_team_t team, T *dest,             \
                                                        const T *source, size_t nelems,            \
                                                        cudaStream_t stream)                       \
    { return nvshmemx_alltoallmem_on_stream(team, dest, source, nelems * sizeof(T), stream); })
NVSHMEM_TYPE_TABLE(SHMI_DC_COLL)
#undef SHMI_DC_COLL
#undef SHMI_DC_COLL_G

#define SHMI_DC_RED_G(N, T, OP, SUFFIX, G)                                                         \
    SHMI_DEV int nvshmemx_##N##_##OP##_reduce##SUFFIX(nvshmem_team_t team, T *dest,               \
                                                      const T *source, size_t nreduce)             \
    { return shmi_dc_reduce<G, T, shmi_op_##OP>("nvshmemx_" #N "_" #OP "_reduce" #SUFFIX, team,   \
                                                dest, source, nreduce); }                          \
    SHMI_DEV int nvshmemx_##N##_##OP##_reducescatter##SUFFIX(nvshmem_team_t team, T *dest,        \
                                                             const T *source, size_t nreduce)      \
    { return shmi_dc_reducescatter<G, T, shmi_op_##OP>(                                           \
          "nvshmemx_" #N "_" #OP "_reducescatter" #SUFFIX, team, dest, source, nreduce); }
#define SHMI_DC_RED1(N, T, OP)                                                                     \
    SHMI_DC_FN(N, int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source,  \
                                                  size_t nreduce),                                 \
               return shmem_##N##_##OP##_reduce(nvshmemi_team(team), dest, source, nreduce);,     \
               return shmi_dc_reduce<SHMI_TG_THREAD, T, shmi_op_##OP>(                            \
                   "nvshmem_" #N "_" #OP "_reduce", team, dest, source, nreduce);)                 \
    SHMI_DC_FN(N, int nvshmem_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest,            \
                                                         const T *source, size_t nreduce),         \
               return nvshmemi_##N##_##OP##_reducescatter(team, dest, source, nreduce);,          \
               return shmi_dc_reducescatter<SHMI_TG_THREAD, T, shmi_op_##OP>(                     \
                   "nvshmem_" #N "_" #OP "_reducescatter", team, dest, source, nreduce);)          \
    SHMI_DV_DEVONLY(N,                                                                             \
    SHMI_DC_RED_G(N, T, OP, _warp, SHMI_TG_WARP)                                                   \
    SHMI_DC_RED_G(N, T, OP, _block, SHMI_TG_BLOCK)                                                 \
    template <int SHMI_UNUSED = 0>                                                                 \
    static inline int nvshmemx_##N##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest,       \
                                                             const T *source, size_t nreduce,      \
                                                             cudaStream_t stream)                  \
    {                                                                                              \
        const char *fn = "nvshmemx_" #N "_" #OP "_reduce_on_stream";                              \
        if (int rc = shmi_h_team_check(fn, team)) return rc;                                       \
        shmi_k_reduce<T, shmi_op_##OP, false><<<1, SHMI_DC_STREAM_THREADS, 0, stream>>>(           \
            team, dest, source, nreduce);                                                          \
        return shmi_h_launched(fn);                                                                \
    }                                                                                              \
    template <int SHMI_UNUSED = 0>                                                                 \
    static inline int nvshmemx_##N##_##OP##_reducescatter_on_stream(                               \
        nvshmem_team_t team, T *dest, const T *source, size_t nreduce, cudaStream_t stream)        \
    {                                                                                              \
        const char *fn = "nvshmemx_" #N "_" #OP "_reducescatter_on_stream";                       \
        if (int rc = shmi_h_team_check(fn, team)) return rc;                                       \
        shmi_k_reduce<T, shmi_op_##OP, true><<<1, SHMI_DC_STREAM_THREADS, 0, stream>>>(            \
            team, dest, source, nreduce);                                                          \
        return shmi_h_launched(fn);                                                                \
    })
#define SHMI_DC_RED(N, T, B, O, G)                                                                 \
    SHMI_WHEN_##B##_BIT(SHMI_DC_RED1(N, T, and) SHMI_DC_RED1(N, T, or) SHMI_DC_RED1(N, T, xor))   \
    SHMI_WHEN_##O##_ORD(SHMI_DC_RED1(N, T, max) SHMI_DC_RED1(N, T, min))                          \
    SHMI_DC_RED1(N, T, sum) SHMI_DC_RED1(N, T, prod)
NVSHMEM_REDUCE_TABLE(SHMI_DC_RED)
#undef SHMI_DC_RED
#undef SHMI_DC_RED1
#undef SHMI_DC_RED_G

/* ---- How many PEs share this PE's GPU (nvshmemx_collective_launch) ----------------------------
 * Every PE's control block holds its GPU's identity (publish, at
 * nvshmem_init, which ends with a barrier); the PEs with ours, or with none
 * yet, count.  Device barriers need every PE's grid resident at once, so
 * each PE of a GPU gets 1/k of it. */
static inline int shmi_gpu_sharers(void)
{
    static int cached;
    if (cached) return cached;
    const shmemx_gpu_state_t *st = &shmi_hstate;
    if (st->npes <= 0) return 1; /* no GPU heap (yet): no device barrier can run */
    unsigned long long mine = 0, theirs = 0;
    if (shmi_h_copy(&mine, (const char *)(uintptr_t)st->ctl + SHMI_DCTL_GPU_ID, sizeof mine) !=
        cudaSuccess)
        return st->npes;
    int k = 0;
    for (int p = 0; p < st->npes; p++) {
        uint64_t a = st->ctl + SHMI_DCTL_GPU_ID;
        if (p != st->me) a = a - st->base + st->slots + (uint64_t)p * st->size;
        if (p == st->me ||
            shmi_h_copy(&theirs, (const void *)(uintptr_t)a, sizeof theirs) != cudaSuccess ||
            theirs == 0 || theirs == mine)
            k++;
    }
    return cached = k > 0 ? k : 1;
}

#endif /* SYMHEAP_NVSHMEM_COLL_DEVICE_CUH */
