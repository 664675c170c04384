/* team.h - teams inside the library: the handle's contents, per-team
 * synchronization state, and the barrier every team collective is built on.
 *
 * A team is an arithmetic progression of world PEs: team rank i is world PE
 * start + stride * i (0 <= i < size; stride may be negative, or 0 when
 * size == 1).  Splits of a progression are progressions, so this covers every
 * team the 1.6 split routines can make.
 *
 * Synchronization state: every team owns one slot (struct shmi_tsync) of
 * every member's control block, at the same index on all members (the slot
 * is agreed during the split, see team.c).  Slot 0 is SHMEM_TEAM_WORLD,
 * slot 1 SHMEM_TEAM_SHARED.  A slot holds the dissemination barrier's flags,
 * the signatures of checked collectives and a few published words (counts
 * for collect, free-slot bitmaps for split).  Flags and epochs only grow
 * while the team lives; shmem_team_destroy clears the slot (after a barrier,
 * when no write to it can be in flight) so the next team starts from zero.
 *
 * Published words and signatures are double-buffered by the parity of the
 * team's checked-collective number (seq): a member writes buffer seq % 2
 * before the barrier of collective seq, peers read it after; the next write
 * to that buffer belongs to collective seq + 2, whose barrier cannot start
 * before every member has entered collective seq + 1, i.e. finished reading.
 * So every collective that publishes or checks must use shmi_team_enter.
 *
 * Threads: collectives on one team are serialized by the caller (spec);
 * different teams have disjoint state.  Team creation and destruction must
 * not run concurrently in several threads of one PE (the slot table is not
 * locked: two splits could pick the same slot). */
#ifndef SHMI_TEAM_H
#define SHMI_TEAM_H

#include "core/state.h"
#include "util/assert.h"

#include <shmem.h>

struct shmi_coll_algs;

struct shmem_team_s {
    int start, stride, size;   /* world PE of team rank i: start + stride * i */
    int rank;                  /* this PE's rank in the team */
    int slot;                  /* index of its sync state in every member's ctl */
    int live;                  /* 1 while valid; 0 after shmem_team_destroy */
    uint64_t epoch;            /* barriers completed on this team */
    uint64_t seq;              /* checked collectives made on this team */
    shmem_team_config_t config;/* num_contexts as requested (mask applied) */
    uint64_t opsum;            /* central barrier: sum of n * op over its barriers (sync.c) */
    uint64_t push_seq, push_epoch; /* the last push collective (seq, 0: none) and t->epoch
                                * after it: no barrier since while epoch is unchanged */
    const struct shmi_coll_algs *algs; /* its collective algorithms (coll.h): chosen when
                                * the team is made (node-local, two-level across nodes) */
    struct shmi_hier *hier;    /* two-level teams: its members by node, for the barrier and
                                * broadcast (sync.c, coll.c); malloc'ed at first use */
};

/* A wait for a 64-bit word that only grows (barrier flags, ready words) to
 * reach want: shmi_wait(bell, shmi_word_ready, &w). */
struct shmi_word_wait {
    const uint64_t *word;
    uint64_t want;
};
int shmi_word_ready(const void *arg);

/* A team spanning nodes by node: each node's members count in at its leader
 * (lowest team rank on the node), leaders talk over the network (sync.c). */
struct shmi_hier {
    int node;            /* ours (shmi_node: the lowest world PE on it) */
    int leader;          /* team rank of this node's leader */
    int nlead, lead_idx; /* leaders in the team; ours among them (leaders only) */
    int nlocal;          /* members on this node, us included */
    int *lead;           /* [nlead] their team ranks, ascending */
    int *local;          /* [nlocal] team ranks on this node, ascending */
};
/* The layout of a team of n ranks whose rank r is on node node[r] (any
 * number naming the node), seen from rank `rank`: fills h's node, leader,
 * leaders (lowest rank of each node, ascending) and our node's members;
 * h->lead and h->local have room for n (layout.c, pure). */
void shmi_layout_nodes(const int *node, int n, int rank, struct shmi_hier *h);
/* t's layout (two-level teams), made on first use. */
struct shmi_hier *shmi_team_hier(struct shmem_team_s *t);
/* Forget t's node layout (before t is overwritten or reinitialized). */
void shmi_team_hier_free(struct shmem_team_s *t);

/* World PE number of team rank i (0 <= i < t->size). */
static inline int shmi_team_pe(const struct shmem_team_s *t, int i)
{
    SHMI_ASSERT(i >= 0 && i < t->size);
    return t->start + t->stride * i;
}

/* Team rank of world PE pe, or -1 when pe is not a member. */
int shmi_team_rank_of(const struct shmem_team_s *t, int pe);

/* The team behind a handle, checked: library running, handle not
 * SHMEM_TEAM_INVALID, not destroyed, really a team.  Fatal otherwise, with a
 * message naming fn and the handle. */
struct shmem_team_s *shmi_team_get(const char *fn, shmem_team_t team);

/* Our sync slot of team t, and member rank i's copy of it. */
struct shmi_tsync *shmi_team_sync_of(const struct shmem_team_s *t, int rank);

/* Barrier over the team's members (sync.c), unchecked: for the library's own
 * barriers inside a call that already matched its partners'. */
void shmi_team_barrier(struct shmem_team_s *t);
/* The same for a call the program made (op: SHMI_OP_BARRIER or a checked
 * collective's op): each member's flag carries its op, so a member that
 * meets another op in the same barrier stops the job, naming what every
 * member is in (unless SHMEM_CHECKS=off).  fn is the public call. */
void shmi_team_barrier_op(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op);

/* Start of a checked team collective: quiet, publish the signature
 * (op, a0..a2) and the npub words of pub (npub <= SHMI_PUB_WORDS; may be
 * 0), barrier, then compare the signature with team rank 0's (fatal on a
 * mismatch, naming both calls).  Returns the collective's seq, for
 * shmi_team_pub. */
uint64_t shmi_team_enter(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                         uint64_t a0, uint64_t a1, uint64_t a2, const uint64_t *pub, int npub);

/* Words team rank i published for collective seq (valid until this PE
 * enters the team's next checked collective). */
const uint64_t *shmi_team_pub(const struct shmem_team_s *t, int rank, uint64_t seq);

/* Copies of the same, for teams spanning nodes (two-level): nwords words,
 * resp. n bytes, of what team rank i published/staged for collective seq,
 * read over the network when i is on another node (fn names the call). */
void shmi_team_pub_read(const struct shmem_team_s *t, int rank, uint64_t seq, uint64_t *dst,
                        int nwords, const char *fn);

/* ---- Push collectives (coll.c, issue 19) -------------------------------------
 * A small broadcast on a team with more members than CPUs has no barrier:
 * the root writes its data into every member's stage (and a word saying so,
 * struct shmi_push) and returns; each member waits for its own word.  The
 * signature is still compared on every PE: each participant publishes it
 * (sig, cur) before it writes or waits, the receiver compares the root's
 * arguments that came with the data, a member waiting also watches the
 * root's published call (a root in another collective or a barrier), and
 * the root, after a full fence, reads every member's (a member that is in
 * another call, or a second root) while every barrier and checked
 * collective on such a team looks for a push it is not part of
 * (shmi_push_check_in): on each side of a mismatch one PE sees the other's
 * write, so it is reported, never waited for.
 *
 * Without a barrier, the double-buffered slot words (stage, pub, push) of
 * collective seq may be rewritten at seq + 2 only after every member has
 * entered seq + 1: the first collective after a push, with no barrier
 * since, waits for that (shmi_team_push_guard) before it writes any. */
void shmi_team_push_settle(struct shmem_team_s *t);
static inline void shmi_team_push_guard(struct shmem_team_s *t)
{
    if (__builtin_expect(t->push_seq != 0, 0) && t->push_seq == t->seq &&
        t->epoch == t->push_epoch)
        shmi_team_push_settle(t);
}
/* Start of a push collective: the guard, then our signature (sig, cur)
 * published and a full fence.  Returns its seq. */
uint64_t shmi_push_enter(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                         uint64_t a0, uint64_t a1, uint64_t a2);
/* The root, after writing every member's push word and a full fence:
 * fatal when another PE pushed the same collective, or a member is in
 * another call (signature, or a barrier). */
void shmi_push_check_root(struct shmem_team_s *t, const char *fn, uint64_t seq);
/* A member: wait (the library's wait, watchdog included) until team rank
 * root's push of collective seq is in our slot, its arguments equal ours;
 * fatal on a mismatch, including a root that is in another call. */
void shmi_push_wait(struct shmem_team_s *t, const char *fn, int root, uint64_t seq);
/* End of a push collective, on every participant. */
static inline void shmi_push_done(struct shmem_team_s *t, uint64_t seq)
{
    t->push_seq = seq;
    t->push_epoch = t->epoch;
}

/* Small collectives (coll.c, reduce.c): a member copies up to
 * SHMI_STAGE_BYTES of its data into shmi_team_stage_next before
 * shmi_team_enter; after it, peers read them with shmi_team_stage.  The
 * buffers are double-buffered like the published words, so no closing
 * barrier is needed: one barrier per small collective instead of two. */
static inline unsigned char *shmi_team_stage_next(struct shmem_team_s *t)
{
    shmi_team_push_guard(t);
    return shmi_g.ctl->team[t->slot].stage[(t->seq + 1) & 1];
}
/* Data team rank i staged for collective seq (valid as shmi_team_pub). */
const unsigned char *shmi_team_stage(const struct shmem_team_s *t, int rank, uint64_t seq);
void shmi_team_stage_read(const struct shmem_team_s *t, int rank, uint64_t seq, size_t off,
                          void *dst, size_t n, const char *fn);

/* Identity of a symmetric address that is equal on every PE (segment and
 * offset: addresses of globals differ across PEs when ASLR is on); 0 for
 * NULL.  Used in signatures to check that all PEs pass the same buffer. */
uint64_t shmi_sym_key(const void *a);

/* Public name of a checked collective's operation (ops.c, from SHMI_COLL_OPS). */
const char *shmi_op_name(enum shmi_coll_op op);
/* The call a signature stands for, "shmem_malloc(64) [collective call #3]"
 * (ops.c: its op's format in SHMI_COLL_OPS), for the mismatch messages. */
void shmi_op_describe(const struct shmi_sig *s, char *buf, size_t len);
/* Name of the reduction or scan routine encoded in a signature (reduce.c). */
const char *shmi_reduce_name(uint64_t code, char *buf, size_t len);

/* The bodies of shmem_team_split_strided, _split_2d and _destroy (team.c),
 * after the entry point's checks (api/team.c); fn names the call. */
int shmi_team_split_strided(const char *fn, shmem_team_t parent_team, int start, int stride,
                            int size, const shmem_team_config_t *config, long config_mask,
                            shmem_team_t *new_team);
int shmi_team_split_2d(const char *fn, shmem_team_t parent_team, int xrange,
                       const shmem_team_config_t *xaxis_config, long xaxis_mask,
                       shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                       long yaxis_mask, shmem_team_t *yaxis_team);
void shmi_team_destroy(const char *fn, shmem_team_t team);

/* Set up SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (team.c); called once by
 * shmem_init before its first barrier. */
void shmi_team_init(void);

#endif
