/* team.c - team management: the predefined teams, split, destroy, queries.
 *
 * Handles: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED are the exported objects
 * shmi_team_world_s / shmi_team_shared_s; a split team's handle is
 * &teams[slot], where slot is also the index of its sync state in every
 * member's control block (team.h).  A PE holds one team per slot, so the
 * array needs no allocation, and a destroyed handle stays readable: using it
 * is reported instead of touching freed memory.  (A stale handle whose slot
 * was reused by a later split refers to the new team: not detectable.)
 *
 * Agreeing on a slot: a split is collective over the parent team.  Each
 * parent member publishes its free-slot bitmap with the split's checked
 * barrier and then ANDs every member's bitmap: every PE computes the same
 * result, and the lowest common free slot is free on every member of every
 * new team (which are parent members).  Two disjoint teams may share a slot
 * number; a PE never holds two teams in one slot.  If no slot is free, or the
 * triplet is invalid, every parent PE sees it and returns non-zero.
 *
 * Destroy: a checked barrier (every member agrees), then a plain barrier
 * (every member has read our signature and no barrier write to our slot is
 * in flight), then the slot is cleared and freed locally.  A new team can
 * reuse it only through a later split, which every member enters after that
 * clearing: the fresh team's epochs start at zero again. */
#include "core/coll.h" /* shmi_coll_choose */
#include "core/hooks.h"
#include "core/team.h"

#include <stdio.h>
#include <string.h>

#define SLOT_WORDS (SHMI_TEAM_MAX / 64)
_Static_assert(SHMI_TEAM_MAX % 64 == 0 && SLOT_WORDS <= SHMI_PUB_WORDS,
               "team slot bitmap must fit in the published words");

struct shmem_team_s shmi_team_world_s, shmi_team_shared_s;
static struct shmem_team_s teams[SHMI_TEAM_MAX];  /* [0], [1]: unused (predefined) */
static uint64_t slot_used[SLOT_WORDS];            /* bit s: this PE holds a team in slot s */

void shmi_team_init(void)
{
    shmi_team_hier_free(&shmi_team_world_s);
    shmi_team_hier_free(&shmi_team_shared_s);
    for (int i = 0; i < SHMI_TEAM_MAX; i++) shmi_team_hier_free(&teams[i]);
    struct shmem_team_s all = { .start = 0, .stride = 1, .size = shmi_g.npes,
                                .rank = shmi_g.me, .slot = 0, .live = 1 };
    all.algs = shmi_coll_choose(&all, NULL);
    shmi_team_world_s = all;
    /* SHMEM_TEAM_SHARED: the PEs of this node (those shmem_ptr reaches), when
     * they form a strided set of world PEs (how mpirun and srun place ranks);
     * else just this PE, which the spec allows. */
    const shmi_boot_t *b = &shmi_g.boot;
    int n = b->local_size, s0 = n > 0 ? b->local_pes[0] : shmi_g.me;
    int stride = n > 1 ? b->local_pes[1] - s0 : 1, strided = n > 0 && stride > 0;
    for (int i = 2; strided && i < n; i++) strided = b->local_pes[i] - b->local_pes[i - 1] == stride;
    struct shmem_team_s node = { .start = s0, .stride = stride, .size = n,
                                 .rank = b->local_rank, .slot = 1, .live = 1 };
    if (!strided)
        node = (struct shmem_team_s){ .start = shmi_g.me, .stride = 1, .size = 1, .rank = 0,
                                      .slot = 1, .live = 1 };
    SHMI_ASSERT(shmi_team_pe(&node, node.rank) == shmi_g.me);
    node.algs = shmi_coll_choose(&node, NULL);
    shmi_team_shared_s = node;
    shmi_log_debug("collectives: world %s, shared %s", all.algs->name, node.algs->name);
    memset(teams, 0, sizeof teams);
    memset(slot_used, 0, sizeof slot_used);
    slot_used[0] = 3;
}

struct shmem_team_s *shmi_team_get(const char *fn, shmem_team_t team)
{
    if (SHMI_LIKELY(team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)) return team;
    if (team == SHMEM_TEAM_INVALID)
        shmi_fatal("%s: team is SHMEM_TEAM_INVALID: this PE is not a member (or the split "
                   "that made it failed); only members may use a team, so compare the "
                   "handle with SHMEM_TEAM_INVALID first", fn);
    uintptr_t off = (uintptr_t)team - (uintptr_t)teams;
    if (off < sizeof teams && off % sizeof teams[0] == 0 && off >= 2 * sizeof teams[0]) {
        if (team->live) return team;
        shmi_fatal("%s: team=%p was destroyed by shmem_team_destroy: split a new team", fn,
                   (void *)team);
    }
    shmi_fatal("%s: team=%p is not a team handle: use SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED or "
               "a team from shmem_team_split_strided/_split_2d", fn, (void *)team);
}

struct shmi_tsync *shmi_team_sync_of(const struct shmem_team_s *t, int rank)
{
    return &shmi_ctl_of(shmi_team_pe(t, rank))->team[t->slot];
}

const uint64_t *shmi_team_pub(const struct shmem_team_s *t, int rank, uint64_t seq)
{
    return shmi_team_sync_of(t, rank)->pub[seq & 1];
}

const unsigned char *shmi_team_stage(const struct shmem_team_s *t, int rank, uint64_t seq)
{
    return shmi_team_sync_of(t, rank)->stage[seq & 1];
}

/* Our slot's words have the same address on every PE (the control block is
 * in the heap segment), so a peer's copy is reached like any symmetric data. */
void shmi_team_pub_read(const struct shmem_team_s *t, int rank, uint64_t seq, uint64_t *dst,
                        int nwords, const char *fn)
{
    shmi_peer_read(fn, dst, shmi_g.ctl->team[t->slot].pub[seq & 1], (size_t)nwords * sizeof *dst,
                   shmi_team_pe(t, rank));
}

void shmi_team_stage_read(const struct shmem_team_s *t, int rank, uint64_t seq, size_t off,
                          void *dst, size_t n, const char *fn)
{
    shmi_peer_read(fn, dst, shmi_g.ctl->team[t->slot].stage[seq & 1] + off, n,
                   shmi_team_pe(t, rank));
}

uint64_t shmi_sym_key(const void *a)
{
    const struct shmi_tp *tp = &shmi_g.tp;
    for (int s = 0; a && s < tp->nseg; s++) {
        uintptr_t off = (uintptr_t)a - tp->seg[s].base;
        if (off < tp->seg[s].size) return ((uint64_t)(s + 1) << 56) | off;
    }
    return 0;
}

/* ---- Split ------------------------------------------------------------------ */

/* Lowest slot at or above from that is free on every member of parent p
 * (from their bitmaps published for collective seq), or -1. */
static int common_free_slot(const struct shmem_team_s *p, uint64_t seq, int from)
{
    uint64_t common[SLOT_WORDS], copy[SLOT_WORDS];
    for (int w = 0; w < SLOT_WORDS; w++) common[w] = ~0ull;
    for (int i = 0; i < p->size; i++) {
        /* (through the transport: a member may be on another node) */
        shmi_team_pub_read(p, i, seq, copy, SLOT_WORDS, "a team split");
        for (int w = 0; w < SLOT_WORDS; w++) common[w] &= copy[w];
    }
    for (int s = from; s < SHMI_TEAM_MAX; s++)
        if (common[s / 64] >> (s % 64) & 1) return s;
    return -1;
}

/* Checked barrier of a split on parent p, publishing our free slots. */
static uint64_t split_enter(struct shmem_team_s *p, const char *fn, enum shmi_coll_op op,
                            uint64_t a0, uint64_t a1, uint64_t a2)
{
    uint64_t free_slots[SLOT_WORDS];
    for (int w = 0; w < SLOT_WORDS; w++) free_slots[w] = ~slot_used[w];
    return shmi_team_enter(p, fn, op, a0, a1, a2, free_slots, SLOT_WORDS);
}

/* Every parent PE comes here with the same why: say it once, fail everywhere. */
static int split_fail(const struct shmem_team_s *p, const char *fn, const char *why)
{
    if (p->rank == 0)
        shmi_log_warn("%s: %s; returning non-zero and SHMEM_TEAM_INVALID on every PE of the "
                      "parent team", fn, why);
    return -1;
}

static void no_slot_why(char *why, size_t len)
{
    int n = 0;
    for (int s = 0; s < SHMI_TEAM_MAX; s++) n += (int)(slot_used[s / 64] >> (s % 64) & 1);
    snprintf(why, len, "no team slot is free on every parent PE (this PE holds %d of at most "
             "%d teams, world and shared included): destroy teams you no longer use with "
             "shmem_team_destroy", n, SHMI_TEAM_MAX);
}

/* Fill slot's handle: team rank `rank` of a team whose rank i is parent rank
 * pstart + pstride * i. */
static shmem_team_t make_team(const struct shmem_team_s *p, int slot, int pstart, int pstride,
                              int size, int rank, const shmem_team_config_t *config, long mask)
{
    SHMI_ASSERT(slot >= 2 && slot < SHMI_TEAM_MAX && !(slot_used[slot / 64] >> (slot % 64) & 1));
    struct shmem_team_s *t = &teams[slot];
    shmi_team_hier_free(t);
    *t = (struct shmem_team_s){ .start = shmi_team_pe(p, pstart), .stride = p->stride * pstride,
                                .size = size, .rank = rank, .slot = slot, .live = 1 };
    SHMI_ASSERT(shmi_team_pe(t, rank) == shmi_g.me); /* we are the member we say */
    SHMI_ASSERT(shmi_team_rank_of(p, shmi_team_pe(t, size - 1)) >= 0); /* inside the parent */
    t->algs = shmi_coll_choose(t, p);
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && config) t->config.num_contexts = config->num_contexts;
    slot_used[slot / 64] |= 1ull << (slot % 64);
    return t;
}

/* Empty why: the triplet is valid for a parent of n PEs. */
static void check_triplet(int n, int start, int stride, int size, char *why, size_t len)
{
    long long last = start + (long long)stride * (size - 1);
    why[0] = 0;
    if (size < 1)
        snprintf(why, len, "size=%d: a team needs at least 1 PE", size);
    else if (stride == 0 && size != 1)
        snprintf(why, len, "stride=0 with size=%d: stride 0 allows size 1 only", size);
    else if (start < 0 || start >= n || last < 0 || last >= n)
        snprintf(why, len, "start=%d stride=%d size=%d names parent PE %lld, outside the "
                 "parent team of %d PEs (0..%d)", start, stride, size,
                 start < 0 || start >= n ? (long long)start : last, n, n - 1);
}

int shmi_team_split_strided(const char *fn, shmem_team_t parent_team, int start, int stride,
                            int size, const shmem_team_config_t *config, long config_mask,
                            shmem_team_t *new_team)
{
    if (!new_team) shmi_fatal("%s: new_team is NULL: pass the address of a shmem_team_t", fn);
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID) return -1;
    struct shmem_team_s *p = shmi_team_get(fn, parent_team);
    uint64_t seq = split_enter(p, fn, SHMI_OP_TEAM_SPLIT, (uint64_t)(int64_t)start,
                               (uint64_t)(int64_t)stride, (uint64_t)(int64_t)size);
    char why[256];
    check_triplet(p->size, start, stride, size, why, sizeof why);
    if (why[0]) return split_fail(p, fn, why);
    int slot = common_free_slot(p, seq, 2);
    if (slot < 0) {
        no_slot_why(why, sizeof why);
        return split_fail(p, fn, why);
    }
    struct shmem_team_s span = { .start = start, .stride = stride, .size = size };
    int rank = shmi_team_rank_of(&span, p->rank);
    if (rank >= 0) *new_team = make_team(p, slot, start, stride, size, rank, config, config_mask);
    return 0;
}

int shmi_team_split_2d(const char *fn, shmem_team_t parent_team, int xrange,
                       const shmem_team_config_t *xaxis_config, long xaxis_mask,
                       shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                       long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (!xaxis_team || !yaxis_team)
        shmi_fatal("%s: xaxis_team=%p yaxis_team=%p: pass the addresses of two shmem_team_t",
                   fn, (void *)xaxis_team, (void *)yaxis_team);
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID) return -1;
    struct shmem_team_s *p = shmi_team_get(fn, parent_team);
    uint64_t seq = split_enter(p, fn, SHMI_OP_TEAM_SPLIT_2D, (uint64_t)(int64_t)xrange, 0, 0);
    char why[256];
    if (xrange < 1) {
        snprintf(why, sizeof why, "xrange=%d must be positive", xrange);
        return split_fail(p, fn, why);
    }
    int n = p->size, xr = xrange < n ? xrange : n;
    int xslot = common_free_slot(p, seq, 2);
    int yslot = xslot < 0 ? -1 : common_free_slot(p, seq, xslot + 1);
    if (yslot < 0) {
        no_slot_why(why, sizeof why);
        return split_fail(p, fn, why);
    }
    /* (x, y) = (rank % xr, rank / xr): the x-team is our row, the y-team our column. */
    int x = p->rank % xr, y = p->rank / xr;
    int xsize = n - y * xr < xr ? n - y * xr : xr, ysize = (n - x + xr - 1) / xr;
    *xaxis_team = make_team(p, xslot, y * xr, 1, xsize, x, xaxis_config, xaxis_mask);
    *yaxis_team = make_team(p, yslot, x, xr, ysize, y, yaxis_config, yaxis_mask);
    return 0;
}

/* ---- Destroy ---------------------------------------------------------------- */

void shmi_team_destroy(const char *fn, shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID) return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED)
        shmi_fatal("%s: %s is a predefined team and cannot be destroyed: destroy only teams "
                   "from shmem_team_split_*", fn,
                   team == SHMEM_TEAM_WORLD ? "SHMEM_TEAM_WORLD" : "SHMEM_TEAM_SHARED");
    struct shmem_team_s *t = shmi_team_get(fn, team);
    shmi_team_enter(t, fn, SHMI_OP_TEAM_DESTROY, (uint64_t)t->slot, 0, 0, NULL, 0);
    shmi_team_barrier(t);
    memset(&shmi_g.ctl->team[t->slot], 0, sizeof shmi_g.ctl->team[t->slot]);
    slot_used[t->slot / 64] &= ~(1ull << (t->slot % 64));
    shmi_team_hier_free(t);
    t->live = 0;
}
