/* coll.c - data-moving team collectives: broadcast, collect, fcollect,
 * alltoall, alltoalls (reductions and scans: reduce.c).
 *
 * On one node every member maps every other member's memory, so each
 * collective is "pull": after a checked barrier (all members arrived, with
 * the same call and arguments, and their sources are ready) each member
 * copies what it needs straight from the peers' mappings into its own dest,
 * and a closing barrier keeps anyone from reusing source (or starting the
 * next collective's writes) before all have read.  Each member starts
 * with its own block and walks the others round-robin from its rank, so the
 * members do not all read the same peer at once.  Every byte crosses the
 * memory system once, which a tree (log n hops of the same bytes) cannot
 * beat with load/store; the cost is two barriers plus the copies.
 *
 * Small collectives (a member's data <= SHMI_STAGE_BYTES: broadcast source,
 * fcollect/collect block, whole alltoall source) take one barrier: each
 * member first copies its data into its staging buffer in the team slot
 * (double-buffered by collective number like the signatures, team.h), the
 * checked barrier follows, then members copy from the peers' staging
 * buffers.  Nobody reads a source after the barrier, so there is no closing
 * one.  Measured (docs/performance.md): 8-byte broadcast + barrier_all at
 * 2 PEs 0.53 -> see the table.
 *
 *   broadcast  every member copies the root's source (the root too, as the
 *              1.5+ spec says dest is written everywhere); if the root's dest
 *              partially overlaps its source, the root copies last, after the
 *              closing barrier, since others are still reading that source.
 *   fcollect   dest[i] = member i's source (n bytes each).
 *   collect    sizes differ: each member publishes its byte count with the
 *              checked barrier (team slot words), every member reads all
 *              counts and places block i at the sum of counts below i.
 *   alltoall   dest block i = member i's source block (my rank).
 *   alltoalls  the same with element strides dst/sst.
 * Buffers are checked (symmetric, in bounds, and unless SHMEM_CHECKS=off no
 * overlap where the spec forbids it) before the barrier; counts, roots, strides and dest are part
 * of the checked signature, so PEs that disagree are stopped with both calls
 * named instead of corrupting memory.
 *
 * Each collective is a row entry of the team's algorithm table (coll.h,
 * chosen when the team was made): the entry points below check the team,
 * the root and the count, and hand the call to shmi_coll_for's row.
 *   _local  (node-local teams) the pulls above, through the mappings.
 *   _nodes  (teams spanning nodes, issue 9) the same pulls, but every read
 *           of a peer's source, staged data or published words is
 *           shmi_peer_read (a UCX get for a member on another node, memcpy
 *           through the mapping for one on ours); blocking gets have their
 *           data on return, so the barriers above keep their meaning.  The
 *           broadcast is two-level (net_bcast).
 *   _tp     memory the CPU cannot load or store (GPU): the transport (copy
 *           engines) pulls the root's broadcast source.
 * The rows share their checks, staging and checked barrier (the *_enter
 * helpers) and differ in how a member's block is reached (pull_local,
 * pull_nodes). */
#include "core/coll.h"
#include "core/hooks.h"
#include "core/team.h"

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows' shared bodies are inlined into each row's entry, so that the
 * pull function is a constant there (a memcpy through the mapping on one
 * node, as before the table) and the one-node path pays no extra call. */
#define SHMI_ROW_BODY static inline __attribute__((always_inline))

/* Member `rank`'s copy of symmetric address a (already checked on our PE). */
static inline char *at(const struct shmem_team_s *t, const void *a, int rank)
{
    return shmi_tp_ptr(&shmi_g.tp, a, shmi_team_pe(t, rank));
}

/* dest and source each inside one block (a collective writes dn bytes at
 * dest: too small a buffer is the usual mistake), and not overlapping. */
static void no_overlap(const char *fn, const void *dest, size_t dn, const void *source, size_t sn)
{
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)source;
    char hint[96];
    snprintf(hint, sizeof hint, ": allocate at least %zu bytes for dest", dn);
    shmi_check_span(fn, "dest", dest, dn, hint);
    snprintf(hint, sizeof hint, ": source must hold %zu bytes", sn);
    shmi_check_span(fn, "source", source, sn, hint);
    if (shmi_checks != SHMI_CHECKS_OFF && dn && sn && d < s + sn && s < d + dn)
        shmi_fatal("%s: dest=%p (%zu bytes) and source=%p (%zu bytes) overlap: this collective "
                   "needs separate buffers", fn, dest, dn, source, sn);
}

static void check_root(const char *fn, const struct shmem_team_s *t, int root)
{
    if (root < 0 || root >= t->size)
        shmi_fatal("%s: PE_root=%d is out of range: the team has %d PEs (0..%d); PE_root is a "
                   "team rank (shmem_team_translate_pe converts)", fn, root, t->size, t->size - 1);
}

/* ---- Broadcast --------------------------------------------------------------- */

/* A host broadcast up to its checked barrier: dest (ours) and the root's
 * source in *d and *s (NULL when n is 0), checked; a small one staged by the
 * root.  Returns the collective's seq. */
SHMI_ROW_BODY uint64_t bcast_enter(const char *fn, struct shmem_team_s *t, void *dest,
                            const void *source, size_t n, size_t elem, int root, char **d,
                            const char **s)
{
    *d = n ? shmi_sym(fn, "dest", dest, n, shmi_g.me) : NULL;
    *s = n ? shmi_sym(fn, "source", source, n, shmi_team_pe(t, root)) : NULL;
    if (*d) shmi_check_span(fn, "dest", dest, n, NULL);
    if (*s) shmi_check_span(fn, "source", source, n, NULL);
    if (n <= SHMI_STAGE_BYTES && t->rank == root) memcpy(shmi_team_stage_next(t), source, n);
    return shmi_team_enter(t, fn, SHMI_OP_BROADCAST, n, (uint64_t)root << 8 | elem,
                           n ? shmi_sym_key(dest) : 0, NULL, 0);
}

int shmi_bcast_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                     size_t n, size_t elem, int root)
{
    char *d;
    const char *s;
    uint64_t seq = bcast_enter(fn, t, dest, source, n, elem, root, &d, &s);
    if (n <= SHMI_STAGE_BYTES) { /* one barrier: everybody copies the root's staged copy */
        if (n) memcpy(d, shmi_team_stage(t, root, seq), n);
        return 0;
    }
    int late = t->rank == root && d != s && d < s + n && s < d + n;
    if (d != s && !late) memcpy(d, s, n);
    shmi_team_barrier(t);
    if (late) memmove(d, s, n);
    return 0;
}

/* Push (more members than CPUs, issue 19): with a barrier, every member
 * needs a CPU before anyone leaves, so a small broadcast costs several
 * scheduler turns on every PE.  Instead the root writes the bytes into each
 * member's stage (the parity of this seq), then the push word that says
 * so, rings it and returns; a member waits for its own word only.  The
 * arguments are compared on every PE without a barrier (team.h: push
 * collectives); the stage is free to write because the guard in
 * shmi_push_enter made sure that every member entered the collective
 * before (so read its stage of seq - 2).  Larger broadcasts: the pulls. */
int shmi_bcast_push(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                    size_t n, size_t elem, int root)
{
    if (n > SHMI_STAGE_BYTES) return shmi_bcast_local(fn, t, dest, source, n, elem, root);
    char *d = n ? shmi_sym(fn, "dest", dest, n, shmi_g.me) : NULL;
    const char *s = n ? shmi_sym(fn, "source", source, n, shmi_g.me) : NULL;
    if (d) shmi_check_span(fn, "dest", dest, n, NULL);
    if (s && t->rank == root) shmi_check_span(fn, "source", source, n, NULL);
    uint64_t a1 = (uint64_t)root << 8 | elem, a2 = n ? shmi_sym_key(dest) : 0;
    uint64_t seq = shmi_push_enter(t, fn, SHMI_OP_BROADCAST, n, a1, a2);
    if (t->rank != root) {
        shmi_push_wait(t, fn, root, seq);
        if (n) memcpy(d, shmi_g.ctl->team[t->slot].stage[seq & 1], n);
        shmi_push_done(t, seq);
        return 0;
    }
    uint64_t w = seq << 24 | (uint64_t)SHMI_OP_BROADCAST << 16 | (uint64_t)root;
    for (int k = 1; k < t->size; k++) { /* from the root's right neighbour on */
        struct shmi_ctl *peer = shmi_ctl_of(shmi_team_pe(t, (root + k) % t->size));
        struct shmi_tsync *ps = &peer->team[t->slot];
        struct shmi_push *p = &ps->push[seq & 1];
        if (n) memcpy(ps->stage[seq & 1], s, n);
        p->arg[0] = n, p->arg[1] = a1, p->arg[2] = a2;
        __atomic_store_n(&p->w, w, __ATOMIC_RELEASE);
        shmi_ring_sync(&peer->bell);
    }
    shmi_push_check_root(t, fn, seq);
    if (n && d != s) memmove(d, s, n);
    shmi_push_done(t, seq);
    return 0;
}

/* Broadcast on a team spanning nodes, after the entering barrier: members
 * on the root's node copy from the root through the mapping; on every other
 * node one network transfer reaches the node's leader (its lowest rank), a
 * word in the leader's team slot (ready) says it is there, and the node's
 * other members copy from the leader.
 *   small  the root pushes its staged bytes into every other node's leader's
 *          stage slot, then, behind a fence, seq into its ready word: one way
 *          over the network, where a get would be a round trip.  That slot
 *          (this seq's parity) is free: its last readers, of collective
 *          seq - 2, finished before the barrier of seq - 1.
 *   large  the leader gets the root's source into its dest and sets ready
 *          itself; the caller's closing barrier keeps the leader's dest (and
 *          the root's source) until every member has copied.
 * The remote write lands through the leader's progress; the leader rings its
 * members' doorbells once it has the data.  Which members share our node
 * comes from the team's node layout (shmi_team_hier). */
static void net_bcast(const char *fn, struct shmem_team_s *t, char *d, const void *dest,
                      const void *source, size_t n, int root, uint64_t seq, int small)
{
    int rpe = shmi_team_pe(t, root);
    struct shmi_hier *h = shmi_team_hier(t);
    struct shmi_tsync *mine = &shmi_g.ctl->team[t->slot];
    if (small && t->rank == root) { /* same slot address on every PE */
        const unsigned char *st = mine->stage[seq & 1];
        for (int k = 0; k < h->nlead; k++) /* the other nodes' leaders */
            if (h->lead[k] != h->leader)
                shmi_peer_write(fn, (void *)st, st, n, shmi_team_pe(t, h->lead[k]),
                                SHMI_TP_UNTRACKED);
        shmi_fence();
        for (int k = 0; k < h->nlead; k++)
            if (h->lead[k] != h->leader)
                shmi_peer_write(fn, &mine->ready, &seq, sizeof seq, shmi_team_pe(t, h->lead[k]),
                                SHMI_TP_UNTRACKED);
    }
    if (shmi_node(rpe) == h->node) { /* the root is on this node */
        memcpy(d, small ? (const void *)shmi_team_stage(t, root, seq)
                        : (const void *)at(t, source, root), n);
        return;
    }
    struct shmi_tsync *lead = shmi_team_sync_of(t, h->leader);
    int leader = t->rank == h->leader;
    if (leader && !small) {
        shmi_peer_read(fn, d, source, n, rpe);
        __atomic_store_n(&lead->ready, seq, __ATOMIC_RELEASE);
    } else {
        struct shmi_word_wait w = { &lead->ready, seq };
        if (!shmi_word_ready(&w)) {
            struct shmi_wait_desc wd = { fn, NULL, -1, 0, seq, 0 };
            shmi_wait_cur = &wd;
            shmi_wait_sync(&shmi_g.ctl->bell, shmi_word_ready, &w);
        }
    }
    if (leader)
        for (int k = 1; k < h->nlocal; k++)
            shmi_ring_sync(&shmi_ctl_of(shmi_team_pe(t, h->local[k]))->bell);
    if (small) memcpy(d, lead->stage[seq & 1], n);
    else if (!leader) memcpy(d, at(t, dest, h->leader), n);
}

int shmi_bcast_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                     size_t n, size_t elem, int root)
{
    char *d;
    const char *s;
    uint64_t seq = bcast_enter(fn, t, dest, source, n, elem, root, &d, &s);
    if (n <= SHMI_STAGE_BYTES) {
        if (n) net_bcast(fn, t, d, dest, source, n, root, seq, 1);
        return 0;
    }
    int late = t->rank == root && d != s && d < s + n && s < d + n;
    if (d != s && !late) net_bcast(fn, t, d, dest, source, n, root, seq, 0);
    shmi_team_barrier(t);
    if (late) memmove(d, s, n);
    return 0;
}

/* GPU memory: the copy engines pull the root's source (n > 0). */
int shmi_bcast_tp(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                  size_t n, size_t elem, int root)
{
    shmi_team_enter(t, fn, SHMI_OP_BROADCAST, n, (uint64_t)root << 8 | elem,
                    (uint64_t)(uintptr_t)dest, NULL, 0);
    if (t->rank != root || dest != source)
        shmi_peer_read(fn, dest, source, n, shmi_team_pe(t, root));
    shmi_team_barrier(t);
    return 0;
}

int shmi_bcast_tp_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                        size_t n, size_t elem, int root)
{
    (void)t, (void)dest, (void)source, (void)n, (void)elem, (void)root;
    shmi_fatal("%s: GPU memory across nodes is not supported yet: its team has PEs on more "
               "than one node; broadcast host memory, or within a node's PEs", fn);
}

int shmi_coll_broadcast(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nelems, size_t elem, int root)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    check_root(fn, t, root);
    size_t n = shmi_nbytes(fn, nelems, elem);
    return shmi_coll_for(t, dest, source, n)->broadcast(fn, t, dest, source, n, elem, root);
}

/* ---- Pulling member i's block --------------------------------------------------
 * c bytes at offset off of member i's staged data (small) or of its copy of
 * source, into d: through the mapping (node-local teams), or through the
 * transport (teams spanning nodes). */
typedef void (*pull_fn)(const char *fn, const struct shmem_team_s *t, uint64_t seq, int small,
                        int i, const void *source, size_t off, char *d, size_t c);

SHMI_ROW_BODY void pull_local(const char *fn, const struct shmem_team_s *t, uint64_t seq, int small,
                       int i, const void *source, size_t off, char *d, size_t c)
{
    (void)fn;
    memcpy(d, (small ? (const char *)shmi_team_stage(t, i, seq) : at(t, source, i)) + off, c);
}

SHMI_ROW_BODY void pull_nodes(const char *fn, const struct shmem_team_s *t, uint64_t seq, int small,
                       int i, const void *source, size_t off, char *d, size_t c)
{
    if (small) shmi_team_stage_read(t, i, seq, off, d, c, fn);
    else shmi_peer_read(fn, d, (const char *)source + off, c, shmi_team_pe(t, i));
}

/* ---- fcollect ------------------------------------------------------------------- */

/* fcollect up to its checked barrier: dest (ours) in *d (NULL when n is 0),
 * checked; a small block staged.  Returns the collective's seq. */
SHMI_ROW_BODY uint64_t fcollect_enter(const char *fn, struct shmem_team_s *t, void *dest,
                                      const void *source, size_t n, size_t elem, char **d)
{
    size_t total = shmi_nbytes(fn, n, (size_t)t->size);
    *d = n ? shmi_sym(fn, "dest", dest, total, shmi_g.me) : NULL;
    if (n) shmi_sym(fn, "source", source, n, shmi_g.me);
    no_overlap(fn, dest, total, source, n);
    if (n && n <= SHMI_STAGE_BYTES) memcpy(shmi_team_stage_next(t), source, n);
    return shmi_team_enter(t, fn, SHMI_OP_FCOLLECT, n, elem, n ? shmi_sym_key(dest) : 0, NULL, 0);
}

SHMI_ROW_BODY int fcollect_pull(const char *fn, struct shmem_team_s *t, void *dest,
                               const void *source, size_t n, size_t elem, pull_fn pull)
{
    char *d;
    uint64_t seq = fcollect_enter(fn, t, dest, source, n, elem, &d);
    int small = n <= SHMI_STAGE_BYTES;
    for (int k = 0; n && k < t->size; k++) {
        int i = (t->rank + k) % t->size;
        pull(fn, t, seq, small, i, source, 0, d + (size_t)i * n, n);
    }
    if (!small) shmi_team_barrier(t);
    return 0;
}

int shmi_fcollect_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                        size_t n, size_t elem)
{
    return fcollect_pull(fn, t, dest, source, n, elem, pull_local);
}

int shmi_fcollect_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                        size_t n, size_t elem)
{
    return fcollect_pull(fn, t, dest, source, n, elem, pull_nodes);
}

/* Two-level gather (teams spanning nodes with several members on a node):
 * member i's block (its source, off[i + 1] - off[i] bytes) goes to offset
 * off[i] of every member's dest (d: ours).  After the entering barrier:
 *   1. every member copies its node's members' blocks through the mappings;
 *   2. each node's leader puts its node's blocks, now in its dest, into
 *      every other leader's dest: one put per node pair when the node's
 *      members are consecutive ranks (block placement), one per member
 *      otherwise; then completes them (quiet) and enters a barrier;
 *   3. the other members copy the other nodes' blocks from their leader's
 *      dest through the mapping; a closing barrier keeps that dest until
 *      all have copied.
 * The network carries each block once per node pair instead of once per
 * member pair (flat: every member gets every other node's blocks). */
static void gather_hier(const char *fn, struct shmem_team_s *t, void *dest, char *d,
                        const void *source, const size_t *off)
{
    struct shmi_hier *h = shmi_team_hier(t);
    for (int k = 0; k < h->nlocal; k++) {
        int i = h->local[k];
        if (off[i + 1] > off[i]) memcpy(d + off[i], at(t, source, i), off[i + 1] - off[i]);
    }
    int leader = t->rank == h->leader;
    if (leader) {
        int lo = h->local[0], hi = h->local[h->nlocal - 1], run = hi - lo + 1 == h->nlocal;
        for (int k = 0; k < h->nlead; k++) {
            if (h->lead[k] == h->leader) continue;
            int pe = shmi_team_pe(t, h->lead[k]);
            for (int j = 0; j < (run ? 1 : h->nlocal); j++) {
                int a = run ? lo : h->local[j], b = run ? hi : h->local[j];
                if (off[b + 1] > off[a])
                    shmi_peer_write(fn, (char *)dest + off[a], d + off[a], off[b + 1] - off[a],
                                    pe, SHMI_TP_NBI);
            }
        }
        shmi_quiet();
    }
    shmi_team_barrier(t);
    if (!leader) {
        const char *ld = at(t, dest, h->leader);
        for (int i = 0; i < t->size; i++)
            if (off[i + 1] > off[i] && shmi_node(shmi_team_pe(t, i)) != h->node)
                memcpy(d + off[i], ld + off[i], off[i + 1] - off[i]);
    }
    shmi_team_barrier(t);
}

/* Two-level fcollect: blocks above the stage (smaller ones: the flat staged
 * pull, one barrier) through gather_hier. */
int shmi_fcollect_hier(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                       size_t n, size_t elem)
{
    if (n <= SHMI_FCOLLECT_HIER_MIN) return shmi_fcollect_nodes(fn, t, dest, source, n, elem);
    char *d;
    fcollect_enter(fn, t, dest, source, n, elem, &d);
    size_t *off = malloc(((size_t)t->size + 1) * sizeof *off);
    if (!off) shmi_fatal("%s: out of memory for the offsets of %d PEs", fn, t->size);
    for (int i = 0; i <= t->size; i++) off[i] = (size_t)i * n;
    gather_hier(fn, t, dest, d, source, off);
    free(off);
    return 0;
}

int shmi_coll_fcollect(const char *fn, shmem_team_t team, void *dest, const void *source,
                    size_t nelems, size_t elem)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    size_t n = shmi_nbytes(fn, nelems, elem);
    return shmi_coll_for(t, dest, source, n)->fcollect(fn, t, dest, source, n, elem);
}

/* ---- collect -------------------------------------------------------------------- */

/* Member i's published byte count: from the copies in cnt when the team
 * spans nodes (read once, collect), else straight from its slot. */
static inline uint64_t count_of(const struct shmem_team_s *t, uint64_t seq, const uint64_t *cnt,
                                int i)
{
    return cnt ? cnt[i] : shmi_team_pub(t, i, seq)[0];
}

/* Sum of the published byte counts of ranks [0, upto), checked for overflow. */
static size_t count_below(const char *fn, const struct shmem_team_s *t, uint64_t seq,
                          const uint64_t *cnt, int upto)
{
    size_t sum = 0;
    for (int i = 0; i < upto; i++) {
        uint64_t c = count_of(t, seq, cnt, i);
        if (c > SIZE_MAX - sum)
            shmi_fatal("%s: the blocks of all members add up to more than size_t holds", fn);
        sum += c;
    }
    return sum;
}

SHMI_ROW_BODY uint64_t collect_enter(const char *fn, struct shmem_team_s *t, void *dest,
                              const void *source, uint64_t n, size_t elem)
{
    if (n) shmi_sym(fn, "source", source, n, shmi_g.me);
    if (n && n <= SHMI_STAGE_BYTES) memcpy(shmi_team_stage_next(t), source, n);
    return shmi_team_enter(t, fn, SHMI_OP_COLLECT, elem, 0, shmi_sym_key(dest), &n, 1);
}

/* After the barrier: place every member's block at the sum of the counts
 * below it (cnt: the counts, or NULL to read them from the slots). */
SHMI_ROW_BODY void collect_place(const char *fn, struct shmem_team_s *t, void *dest,
                                 const void *source, uint64_t n, uint64_t seq,
                                 const uint64_t *cnt, pull_fn pull)
{
    size_t below = count_below(fn, t, seq, cnt, t->rank);
    size_t total = count_below(fn, t, seq, cnt, t->size);
    /* Small when every member's block was staged (the same answer on all). */
    int small = 1;
    for (int i = 0; i < t->size && small; i++)
        small = count_of(t, seq, cnt, i) <= SHMI_STAGE_BYTES;
    char *d = total ? shmi_sym(fn, "dest", dest, total, shmi_g.me) : NULL;
    no_overlap(fn, dest, total, source, n);
    /* Walk from our own block to the last, then wrap to rank 0. */
    size_t off = below;
    for (int k = 0; total && k < t->size; k++) {
        int i = (t->rank + k) % t->size;
        if (i == 0) off = 0;
        size_t c = count_of(t, seq, cnt, i);
        if (c) pull(fn, t, seq, small, i, source, 0, d + off, c);
        off += c;
    }
    if (!small) shmi_team_barrier(t);
}

int shmi_collect_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                       size_t n, size_t elem)
{
    uint64_t seq = collect_enter(fn, t, dest, source, n, elem);
    collect_place(fn, t, dest, source, n, seq, NULL, pull_local);
    return 0;
}

/* Across nodes every count is read once, through the transport. */
int shmi_collect_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                       size_t n, size_t elem)
{
    uint64_t seq = collect_enter(fn, t, dest, source, n, elem);
    uint64_t *cnt = malloc((size_t)t->size * sizeof *cnt);
    if (!cnt) shmi_fatal("%s: out of memory for the counts of %d PEs", fn, t->size);
    for (int i = 0; i < t->size; i++) shmi_team_pub_read(t, i, seq, &cnt[i], 1, fn);
    collect_place(fn, t, dest, source, n, seq, cnt, pull_nodes);
    free(cnt);
    return 0;
}

/* Two-level collect (teams spanning nodes with several members on a node,
 * some block above the stage; else the flat form): gather_hier, each
 * member's block at the sum of the counts below it. */
int shmi_collect_hier(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                      size_t n, size_t elem)
{
    uint64_t seq = collect_enter(fn, t, dest, source, n, elem);
    uint64_t *cnt = malloc((size_t)t->size * sizeof *cnt);
    size_t *off = malloc(((size_t)t->size + 1) * sizeof *off);
    if (!cnt || !off) shmi_fatal("%s: out of memory for the counts of %d PEs", fn, t->size);
    int small = 1;
    off[0] = 0;
    for (int i = 0; i < t->size; i++) {
        shmi_team_pub_read(t, i, seq, &cnt[i], 1, fn);
        small &= cnt[i] <= SHMI_STAGE_BYTES;
        if (cnt[i] > SIZE_MAX - off[i])
            shmi_fatal("%s: the blocks of all members add up to more than size_t holds", fn);
        off[i + 1] = off[i] + cnt[i];
    }
    if (small) {
        collect_place(fn, t, dest, source, n, seq, cnt, pull_nodes);
    } else {
        size_t total = off[t->size];
        char *d = shmi_sym(fn, "dest", dest, total, shmi_g.me);
        no_overlap(fn, dest, total, source, n);
        gather_hier(fn, t, dest, d, source, off);
    }
    free(off);
    free(cnt);
    return 0;
}

int shmi_coll_collect(const char *fn, shmem_team_t team, void *dest, const void *source,
                   size_t nelems, size_t elem)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    size_t n = shmi_nbytes(fn, nelems, elem);
    return shmi_coll_for(t, dest, source, n)->collect(fn, t, dest, source, n, elem);
}

/* ---- alltoall ------------------------------------------------------------------- */

SHMI_ROW_BODY int alltoall_pull(const char *fn, struct shmem_team_s *t, void *dest,
                               const void *source, size_t n, size_t elem, pull_fn pull)
{
    size_t span = shmi_nbytes(fn, n, (size_t)t->size);
    char *d = n ? shmi_sym(fn, "dest", dest, span, shmi_g.me) : NULL;
    if (n) shmi_sym(fn, "source", source, span, shmi_g.me);
    no_overlap(fn, dest, span, source, span);
    int small = span <= SHMI_STAGE_BYTES;
    if (small && n) memcpy(shmi_team_stage_next(t), source, span);
    uint64_t seq = shmi_team_enter(t, fn, SHMI_OP_ALLTOALL, n, elem,
                                   n ? shmi_sym_key(dest) : 0, NULL, 0);
    for (int k = 0; n && k < t->size; k++) {
        int i = (t->rank + k) % t->size;
        pull(fn, t, seq, small, i, source, (size_t)t->rank * n, d + (size_t)i * n, n);
    }
    if (!small) shmi_team_barrier(t);
    return 0;
}

int shmi_alltoall_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                        size_t n, size_t elem)
{
    return alltoall_pull(fn, t, dest, source, n, elem, pull_local);
}

int shmi_alltoall_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                        size_t n, size_t elem)
{
    return alltoall_pull(fn, t, dest, source, n, elem, pull_nodes);
}

int shmi_coll_alltoall(const char *fn, shmem_team_t team, void *dest, const void *source,
                    size_t nelems, size_t elem)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    size_t n = shmi_nbytes(fn, nelems, elem);
    return shmi_coll_for(t, dest, source, n)->alltoall(fn, t, dest, source, n, elem);
}

/* ---- alltoalls ------------------------------------------------------------------ */

/* count elements of elem bytes, dst/sst bytes apart. */
static void copy_strided(char *d, size_t dst, const char *s, size_t sst, size_t count,
                         size_t elem)
{
#define SHMI_COPY_LOOP(E) for (size_t e = 0; e < count; e++) memcpy(d + e * dst, s + e * sst, E)
    switch (elem) {
    case 1: SHMI_COPY_LOOP(1); break;
    case 2: SHMI_COPY_LOOP(2); break;
    case 4: SHMI_COPY_LOOP(4); break;
    case 8: SHMI_COPY_LOOP(8); break;
    case 16: SHMI_COPY_LOOP(16); break;
    default: SHMI_COPY_LOOP(elem);
    }
#undef SHMI_COPY_LOOP
}

/* Bytes spanned by count elements of elem bytes, stride elements apart. */
static size_t strided_span(const char *fn, size_t count, ptrdiff_t stride, size_t elem)
{
    return count ? shmi_nbytes(fn, shmi_nbytes(fn, count - 1, (size_t)stride) + 1, elem) : 0;
}

/* Checks and the checked barrier; *d our dest (NULL when empty), returns
 * the total element count (0: nothing to move). */
SHMI_ROW_BODY size_t alltoalls_enter(const char *fn, struct shmem_team_s *t, void *dest,
                              const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                              size_t elem, char **d)
{
    if (dst < 1 || sst < 1)
        shmi_fatal("%s: strides dst=%td sst=%td must be >= 1 (in elements)", fn, dst, sst);
    size_t all = shmi_nbytes(fn, nelems, (size_t)t->size);
    size_t dspan = strided_span(fn, all, dst, elem), sspan = strided_span(fn, all, sst, elem);
    *d = all ? shmi_sym(fn, "dest", dest, dspan, shmi_g.me) : NULL;
    if (all) shmi_sym(fn, "source", source, sspan, shmi_g.me);
    no_overlap(fn, dest, dspan, source, sspan);
    uint64_t strides = ((uint64_t)dst & 0xfffffff) << 36 | ((uint64_t)sst & 0xfffffff) << 8 | elem;
    shmi_team_enter(t, fn, SHMI_OP_ALLTOALLS, nelems, strides, all ? shmi_sym_key(dest) : 0,
                    NULL, 0);
    return all;
}

int shmi_alltoalls_local(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    char *d;
    size_t all = alltoalls_enter(fn, t, dest, source, dst, sst, nelems, elem, &d);
    size_t db = (size_t)dst * elem, sb = (size_t)sst * elem;
    for (int k = 0; all && k < t->size; k++) {
        int i = (t->rank + k) % t->size;
        size_t from = (size_t)t->rank * nelems * sb;
        copy_strided(d + (size_t)i * nelems * db, db, at(t, source, i) + from, sb, nelems, elem);
    }
    shmi_team_barrier(t);
    return 0;
}

/* Across nodes: a member on another node's strided block comes over in one
 * get of its whole span, then is spread here; members on this node are
 * read through the mapping. */
int shmi_alltoalls_nodes(const char *fn, struct shmem_team_s *t, void *dest, const void *source,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    char *d;
    size_t all = alltoalls_enter(fn, t, dest, source, dst, sst, nelems, elem, &d);
    size_t db = (size_t)dst * elem, sb = (size_t)sst * elem;
    size_t bspan = strided_span(fn, nelems, sst, elem);
    struct shmi_hier *h = shmi_team_hier(t);
    char *buf = NULL;
    for (int k = 0; all && k < t->size; k++) {
        int i = (t->rank + k) % t->size, pe = shmi_team_pe(t, i);
        size_t from = (size_t)t->rank * nelems * sb;
        if (shmi_node(pe) != h->node) {
            if (!buf && !(buf = malloc(bspan ? bspan : 1)))
                shmi_fatal("%s: out of memory for a block of %zu bytes", fn, bspan);
            shmi_peer_read(fn, buf, (const char *)source + from, bspan, pe);
            copy_strided(d + (size_t)i * nelems * db, db, buf, sb, nelems, elem);
            continue;
        }
        copy_strided(d + (size_t)i * nelems * db, db, at(t, source, i) + from, sb, nelems, elem);
    }
    free(buf);
    shmi_team_barrier(t);
    return 0;
}

int shmi_coll_alltoalls(const char *fn, shmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem)
{
    shmi_check_running(fn);
    struct shmem_team_s *t = shmi_team_get(fn, team);
    return shmi_coll_for(t, dest, source, nelems)
        ->alltoalls(fn, t, dest, source, dst, sst, nelems, elem);
}
