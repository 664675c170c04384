/* sync.c - barriers, checked collectives, ordering (point-to-point waits:
 * wait.c).
 *
 * Barrier: the team's algorithm from its row of the collective table
 * (coll.h, chosen when the team is made): across nodes two-level (below); on
 * one node, with more members than CPUs, central (sense by epoch: count in at
 * rank 0, the last one releases every member); otherwise dissemination over a team's members (ceil(log2 n) rounds, any n,
 * any stride; team.h).  In round r, team rank i writes the barrier's epoch
 * into rank (i + 2^r) % n's flag r of the team's slot and waits until its own
 * flag r has reached the epoch.  Epochs only grow while the team lives, so a
 * partner that already raced into the next barrier (epoch + 1) still
 * satisfies ">= epoch"; flags never need resetting (shmem_team_destroy clears
 * the slot for the next team).  shmi_barrier is this on SHMEM_TEAM_WORLD.
 *
 * Flags hold (epoch << 16) | op: the barrier's kind (SHMI_OP_BARRIER for
 * barrier_all/sync_all/team_sync, a checked collective's op, NONE for the
 * library's own barriers).  A member that finds another kind than its own in
 * a flag of the same epoch met a PE in another collective (PE 0 in
 * shmem_malloc while PE 2 is in shmem_barrier_all): it stops the job at once,
 * naming each member's call from the words `cur` every member sets before it
 * enters.  Free: the flag was read anyway.  A partner already one barrier
 * further (its flag shows epoch + 1) is not compared; the barrier after it
 * or the signature check will be.
 *
 * Checked collectives: before the barrier each member publishes a signature
 * (sequence number, operation, arguments, result) in its team slot, buffer
 * seq % 2; after it, every member compares its own with team rank 0's.  Rank
 * 0 cannot overwrite that buffer before everybody read it: that needs the
 * next checked collective's barrier, which waits for us.  Cost: one remote
 * read; SHMEM_CHECKS=off skips the comparison. */
#include "core/coll.h" /* the barrier algorithms of the table */
#include "core/hooks.h"
#include "util/exe.h"
#include "core/team.h"

#include <shmem.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shmi_word_ready(const void *arg)
{
    const struct shmi_word_wait *w = arg;
    return __atomic_load_n(w->word, __ATOMIC_ACQUIRE) >= w->want;
}

#define BAR_SHIFT 16 /* flag = epoch << BAR_SHIFT | op */

static void bar_wait(int slot, const uint64_t *flag, uint64_t e, int many)
{
    struct shmi_word_wait w = { flag, e << BAR_SHIFT };
    if (shmi_word_ready(&w)) return;
    struct shmi_wait_desc d = { slot ? "a team barrier (team_sync or a team collective)"
                                     : "a barrier (barrier_all, sync or a collective)",
                                NULL, -1, 0, e, 0 };
    shmi_wait_cur = &d;
    (many ? shmi_wait_many : shmi_wait_sync)(&shmi_g.ctl->bell, shmi_word_ready, &w);
}

static _Noreturn void bar_mismatch(const struct shmem_team_s *t, const char *fn, uint64_t e,
                                   unsigned op, int rank, unsigned other);

/* What a flag of epoch e says about the member that wrote it; fatal when it
 * is another kind of call than ours (rank: the writer, or -1 when unknown). */
static inline void bar_check(const struct shmem_team_s *t, const char *fn, const uint64_t *flag,
                             uint64_t e, unsigned op, int rank)
{
    uint64_t v = __atomic_load_n(flag, __ATOMIC_RELAXED);
    unsigned other = (unsigned)(v & ((1u << BAR_SHIFT) - 1));
    if (other != op && op != SHMI_OP_NONE && other != SHMI_OP_NONE && v >> BAR_SHIFT == e &&
        shmi_checks != SHMI_CHECKS_OFF)
        bar_mismatch(t, fn, e, op, rank, other);
}

static int barrier_sig(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                       const uint64_t *arg);
static void push_check_in(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                          uint64_t e);

/* ---- Two levels: teams spanning nodes (issue 9) ------------------------------
 * A flat dissemination barrier over n members spanning nodes sends about
 * n log n flags over the network.  Instead the members of each node count
 * in at their node's leader (its lowest team rank) through its mapped
 * arrive word, the leaders alone run the dissemination over the network,
 * and each leader releases its node's members through their release words:
 * log(nodes) network rounds, none for members that are not leaders.  The
 * arrive counter's high half sums the members' ops as in the central
 * barrier; a leader that sees a different op (locally, or in a remote
 * leader's flag) releases with SHMI_OP_MIXED, so every member reports.
 * Measured across the test's namespaces, 2 hosts x 2 PEs on 2 CPUs:
 * docs/performance.md. */
void shmi_team_hier_free(struct shmem_team_s *t)
{
    if (!t->hier) return;
    free(t->hier->lead);
    free(t->hier->local);
    free(t->hier);
    t->hier = NULL;
}

struct shmi_hier *shmi_team_hier(struct shmem_team_s *t)
{
    if (t->hier) return t->hier;
    int n = t->size;
    struct shmi_hier *h = calloc(1, sizeof *h);
    int *node = malloc((size_t)n * sizeof *node);
    if (h) {
        h->lead = malloc((size_t)n * sizeof *h->lead);
        h->local = malloc((size_t)n * sizeof *h->local);
    }
    if (!h || !node || !h->lead || !h->local)
        shmi_fatal("a team barrier: out of memory for the node layout of a team of %d PEs", n);
    for (int r = 0; r < n; r++) node[r] = shmi_node(shmi_team_pe(t, r));
    shmi_layout_nodes(node, n, t->rank, h);
    free(node);
    return t->hier = h;
}

struct count_wait {
    const uint64_t *word;
    uint32_t want;
};

static int count_ready(const void *arg)
{
    const struct count_wait *w = arg;
    return (int32_t)((uint32_t)__atomic_load_n(w->word, __ATOMIC_ACQUIRE) - w->want) >= 0;
}

/* Barrier flag word w into pe's round-r flag of team slot slot, with the
 * round-0 arguments (arg, or NULL) before it: through the mapping in the
 * flag's line (one store more, no extra transfer) and a doorbell; by another
 * route (tp.h, another node) a put of the arguments, the transport's fence,
 * then the flag (same slot, same address there). */
static void send_flag(const char *fn, int slot, int r, uint64_t e, uint64_t w, int pe,
                      const uint64_t *arg)
{
    struct shmi_tsync *mine = &shmi_g.ctl->team[slot];
    size_t na = sizeof mine->bar[0].arg[0];
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, &mine->bar[r].epoch, NULL, pe);
    if (SHMI_TP_DIRECT(via)) {
        struct shmi_ctl *peer = shmi_ctl_of(pe);
        if (arg) memcpy(peer->team[slot].bar[0].arg[e & 1], arg, na);
        __atomic_store_n(&peer->team[slot].bar[r].epoch, w, __ATOMIC_RELEASE);
        shmi_ring_sync(&peer->bell);
        return;
    }
    int rc = SHMI_OK;
    if (arg) {
        shmi_peer_put(fn, via, mine->bar[0].arg[e & 1], arg, na, pe, SHMI_TP_UNTRACKED);
        rc = via->fence(&shmi_g.tp);
    }
    if (rc == SHMI_OK) rc = via->flag(&shmi_g.tp, &mine->bar[r].epoch, w, pe);
    if (rc) shmi_tp_fail(fn, via, pe, rc);
}

/* With arg (a checked collective's signature arguments, in our published
 * signature) the members' signatures are compared on the way: each leader
 * compares its node's members' (read through the mapping) with its own, and
 * its round-0 flag carries its arguments to the next leader (a put, then a
 * fence, then the flag), which compares them: a chain over the leaders, so
 * equal everywhere means equal to rank 0, without reading rank 0's over the
 * network.  Returns as barrier_sig: a member that is not a leader says 1
 * (its leader compared it and stops the job on a difference). */
int shmi_bar_two_level(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                       const uint64_t *arg)
{
    struct shmi_hier *h = shmi_team_hier(t);
    int slot = t->slot;
    struct shmi_tsync *mine = &shmi_g.ctl->team[slot];
    uint64_t w = e << BAR_SHIFT | op;
    if (t->rank != h->leader) { /* count in at the leader, wait for its release */
        struct shmi_ctl *lc = shmi_ctl_of(shmi_team_pe(t, h->leader));
        __atomic_add_fetch(&lc->team[slot].arrive, 1 | (uint64_t)op << 32, __ATOMIC_SEQ_CST);
        shmi_ring_sync_after_sc(&lc->bell);
        bar_wait(slot, &mine->release, e, 0);
        bar_check(t, fn, &mine->release, e, op, -1);
        return arg ? 1 : 0;
    }
    int mixed = 0, bad = -1; /* bad: a team rank whose signature differs from ours */
    if (h->nlocal > 1) {
        struct count_wait cw = { &mine->arrive, (uint32_t)(e * (uint64_t)(h->nlocal - 1)) };
        if (!count_ready(&cw)) {
            struct shmi_wait_desc d = { "a team barrier (its node's members)", NULL, -1, 0, e, 0 };
            shmi_wait_cur = &d;
            shmi_wait_sync(&shmi_g.ctl->bell, count_ready, &cw);
        }
        t->opsum += (uint64_t)(h->nlocal - 1) * op;
        uint64_t v = __atomic_load_n(&mine->arrive, __ATOMIC_ACQUIRE);
        mixed = (uint32_t)(v >> 32) != (uint32_t)t->opsum;
        if (arg) { /* our signature, and each member's in the same place of its slot */
            const struct shmi_sig *ms =
                (const struct shmi_sig *)(const void *)((const char *)arg -
                                                         offsetof(struct shmi_sig, arg));
            size_t at = (size_t)(ms - mine->sig);
            for (int k = 0; k < h->nlocal && bad < 0; k++) {
                const struct shmi_sig *o = &shmi_team_sync_of(t, h->local[k])->sig[at];
                if (o->seq != ms->seq || o->op != ms->op || memcmp(o->arg, ms->arg, sizeof o->arg))
                    bad = h->local[k];
            }
        }
    }
    for (int r = 0, dist = 1; dist < h->nlead; r++, dist <<= 1) {
        int pe = shmi_team_pe(t, h->lead[(h->lead_idx + dist) % h->nlead]);
        uint64_t f = e << BAR_SHIFT | (mixed ? SHMI_OP_MIXED : op);
        send_flag(fn, slot, r, e, f, pe, r == 0 ? arg : NULL);
        bar_wait(slot, &mine->bar[r].epoch, e, 0);
        /* the previous leader's arguments (it cannot reuse this parity before
         * we pass barrier e + 1) */
        if (r == 0 && arg && h->lead_idx > 0 && bad < 0 &&
            memcmp(mine->bar[0].arg[e & 1], arg, sizeof mine->bar[0].arg[0]))
            bad = h->lead[h->lead_idx - 1];
        /* (the partner may be one barrier further already: then it matched) */
        uint64_t v = __atomic_load_n(&mine->bar[r].epoch, __ATOMIC_ACQUIRE);
        unsigned other = (unsigned)(v & ((1u << BAR_SHIFT) - 1));
        if (v >> BAR_SHIFT == e && other != op && other != SHMI_OP_NONE && op != SHMI_OP_NONE)
            mixed = 1;
    }
    if (mixed && shmi_checks != SHMI_CHECKS_OFF) w = e << BAR_SHIFT | SHMI_OP_MIXED;
    for (int k = 0; k < h->nlocal; k++) {
        struct shmi_ctl *peer = shmi_ctl_of(shmi_team_pe(t, h->local[k]));
        __atomic_store_n(&peer->team[slot].release, w, __ATOMIC_RELEASE);
        if (h->local[k] != t->rank) shmi_ring_sync(&peer->bell);
    }
    bar_check(t, fn, &mine->release, e, op, -1);
    return !arg ? 0 : bad < 0 ? 1 : -1 - bad;
}

void shmi_team_barrier(struct shmem_team_s *t) { barrier_sig(t, NULL, SHMI_OP_NONE, NULL); }

void shmi_team_barrier_op(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op)
{
    barrier_sig(t, fn, op, NULL);
}

/* The barrier of team t: what we are in (for peers' error messages), then
 * the team's algorithm (coll.h: chosen when the team was made).  With arg
 * (a checked collective's signature arguments) the algorithm compares them
 * on the way; the result tells how: 1 equal, -1 - r different from team
 * rank r's, 0 not compared (see each algorithm). */
static int barrier_sig(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                       const uint64_t *arg)
{
    uint64_t e = ++t->epoch;
    if (op != SHMI_OP_NONE) { /* what we are in, for peers' error messages */
        struct shmi_cur *c = &shmi_g.ctl->team[t->slot].cur[e & 1];
        c->site = (uint64_t)(uintptr_t)shmi_call_site;
        c->exe = shmi_exe_bias();
        /* release: a PE that sees it also sees what we wrote before (push.c) */
        __atomic_store_n(&c->w, e << BAR_SHIFT | op, __ATOMIC_RELEASE);
        if (t->algs->push) push_check_in(t, fn, op, e);
    }
    /* The one-node algorithm called directly (inlined): no indirect call on
     * the common path (issue 13). */
    if (t->algs->barrier == shmi_bar_dissemination)
        return shmi_bar_dissemination(t, fn, op, e, arg);
    return t->algs->barrier(t, fn, op, e, arg);
}

/* More members than CPUs (one node): count in at rank 0; the last one in
 * writes the epoch into every member's own release word (never into one
 * shared word: after the barrier rank 0 may clear its slot,
 * shmem_team_destroy).  Arguments are not compared here (0). */
int shmi_bar_central(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                     const uint64_t *arg)
{
    (void)arg;
    uint64_t w = e << BAR_SHIFT | op;
    int n = t->size, me = t->rank, slot = t->slot;
    struct shmi_tsync *mine = &shmi_g.ctl->team[slot];
    {
        /* The counter's low half counts arrivals, its high half sums the
         * members' ops: the last one in compares that sum with n times its
         * own op (plus all earlier barriers', the same on every PE while
         * they matched) and releases with SHMI_OP_MIXED when they differ, so
         * every member reports the mismatch, not only those whose op differs
         * from the last one's. */
        uint64_t *cnt = &shmi_team_sync_of(t, 0)->arrive;
        t->opsum += (uint64_t)n * op;
        uint64_t v = __atomic_add_fetch(cnt, 1 | (uint64_t)op << 32, __ATOMIC_ACQ_REL);
        if ((uint32_t)v == (uint32_t)(e * (uint64_t)n)) {
            if ((uint32_t)(v >> 32) != (uint32_t)t->opsum) w = e << BAR_SHIFT | SHMI_OP_MIXED;
            for (int k = 1; k <= n; k++) {
                struct shmi_ctl *peer = shmi_ctl_of(shmi_team_pe(t, (me + k) % n));
                __atomic_store_n(&peer->team[slot].release, w, __ATOMIC_RELEASE);
                if (k < n) shmi_ring_sync(&peer->bell);
            }
        }
        bar_wait(slot, &mine->release, e, 1);
        bar_check(t, fn, &mine->release, e, op, -1);
        return 0;
    }
}

/* Dissemination (one node): round 0 also carries arg to the right
 * neighbour in the line of its flag; the left neighbour's are compared with
 * ours (0 for rank 0, or when the neighbour was already one barrier
 * further). */
int shmi_bar_dissemination(struct shmem_team_s *t, const char *fn, unsigned op, uint64_t e,
                           const uint64_t *arg)
{
    uint64_t w = e << BAR_SHIFT | op;
    int n = t->size, me = t->rank, slot = t->slot;
    struct shmi_tsync *mine = &shmi_g.ctl->team[slot];
    int cmp = 0;
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        int pe = shmi_team_pe(t, (me + dist) % n);
        send_flag(fn, slot, r, e, w, pe, r == 0 ? arg : NULL);
        bar_wait(slot, &mine->bar[r].epoch, e, 0);
        bar_check(t, fn, &mine->bar[r].epoch, e, op, (me - dist % n + n) % n);
        /* The left neighbour's arguments (written before its flag, which we
         * acquired; it cannot reuse this parity before we pass barrier e+1).
         * Ranks 1..n-1 each compare with their left neighbour: a chain that
         * covers every member, so equal everywhere means equal to rank 0. */
        if (r == 0 && arg && me != 0 &&
            __atomic_load_n(&mine->bar[0].epoch, __ATOMIC_ACQUIRE) >> BAR_SHIFT == e)
            cmp = memcmp(mine->bar[0].arg[e & 1], arg, sizeof mine->bar[0].arg[0]) ? -me : 1;
    }
    return cmp;
}

void shmi_barrier(void) { shmi_team_barrier(SHMEM_TEAM_WORLD); }

static int sig_same(const struct shmi_sig *a, const struct shmi_sig *b)
{
    return a->seq == b->seq && a->op == b->op && !memcmp(a->arg, b->arg, sizeof a->arg);
}

static _Noreturn void sig_fatal(const struct shmem_team_s *t, const char *fn,
                                const struct shmi_sig *mine, int other,
                                const struct shmi_sig *theirs, uint64_t e);

static void check_sig(const struct shmem_team_s *t, const char *fn, const struct shmi_sig *mine,
                      int against)
{
    /* Compare with rank 0's signature (over the network when it is on
     * another node, issue 9); when that matches but team rank `against`'s
     * arguments did not (barrier_sig; -1: none known), with that rank's. */
    struct shmi_sig theirs;
    int other = 0;
    for (;;) {
        shmi_peer_read(fn, &theirs, &shmi_g.ctl->team[t->slot].sig[mine->seq & 1],
                       sizeof theirs, shmi_team_pe(t, other));
        if (!sig_same(&theirs, mine)) break;
        if (against < 0 || other == against) return;
        other = against;
    }
    sig_fatal(t, fn, mine, other, &theirs, t->epoch);
}

/* Our signature mine differs from team rank other's, theirs; e: the
 * barrier epoch whose `cur` words say where each PE called from. */
static _Noreturn void sig_fatal(const struct shmem_team_s *t, const char *fn,
                                const struct shmi_sig *mine, int other,
                                const struct shmi_sig *theirs_in, uint64_t e)
{
    struct shmi_sig theirs = *theirs_in;
    if (theirs.seq == mine->seq && theirs.op != mine->op) /* another call: name every PE's */
        bar_mismatch(t, fn, e, mine->op, other, theirs.op);
    char a[400], b[400];
    shmi_op_describe(mine, a, sizeof a);
    shmi_op_describe(&theirs, b, sizeof b);
    /* where: ours from this thread, the other's from what it published with
     * the barrier just passed */
    struct shmi_cur c0;
    shmi_peer_read(fn, &c0, &shmi_g.ctl->team[t->slot].cur[e & 1], sizeof c0,
                   shmi_team_pe(t, other));
    size_t na = strlen(a), nb = strlen(b);
    shmi_site_of((uint64_t)(uintptr_t)shmi_call_site, shmi_exe_bias(), a + na, sizeof a - na);
    shmi_site_of(c0.site, c0.exe, b + nb, sizeof b - nb);
    int pe0 = shmi_team_pe(t, other);
    char who[40] = "";
    if (t != SHMEM_TEAM_WORLD) snprintf(who, sizeof who, " (rank %d of the team)", other);
    if (theirs.seq != mine->seq) {
        shmi_fatal("%s: collective mismatch: this PE is in %s but PE %d%s is not in the same "
                   "collective (its last checked one is %s): every PE must make the same "
                   "collective calls in the same order", fn, a, pe0, who, b);
    }
    shmi_fatal("%s: collective mismatch: this PE called %s, PE %d%s called %s: every PE must "
               "call collectives with the same arguments%s", fn, a, pe0, who, b,
               mine->op == SHMI_OP_FREE || mine->op == SHMI_OP_REALLOC
                   ? " (free the same pointer)" : "");
}

/* Member rank k's call in barrier epoch e, from its `cur` word and, for a
 * checked collective, its signature. */
static void member_call(const struct shmem_team_s *t, int k, uint64_t e, char *buf, size_t len)
{
    /* its words, read like any peer data (over the network on another node) */
    const struct shmi_tsync *s = &shmi_g.ctl->team[t->slot];
    int pe = shmi_team_pe(t, k);
    struct shmi_cur c; /* a peer is at most in barrier e + 1 */
    shmi_peer_read("collective check", &c, &s->cur[e & 1], sizeof c, pe);
    unsigned op = (unsigned)(c.w & ((1u << BAR_SHIFT) - 1));
    if (c.w >> BAR_SHIFT != e) {
        snprintf(buf, len, "not in this barrier yet");
        return;
    }
    char site[240];
    shmi_site_of(c.site, c.exe, site, sizeof site);
    /* its signature of this call: the newer of the two with this op (it may
     * have published its next call's in the other buffer already) */
    struct shmi_sig sg[2];
    shmi_peer_read("collective check", sg, s->sig, sizeof sg, pe);
    const struct shmi_sig *sig = sg[0].op == op && (sg[1].op != op || sg[0].seq > sg[1].seq)
                                     ? &sg[0]
                                 : sg[1].op == op ? &sg[1] : NULL;
    if (op != SHMI_OP_BARRIER && sig) shmi_op_describe(sig, buf, len);
    else snprintf(buf, len, "%s", shmi_op_name(op));
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s", site);
}

static _Noreturn void bar_mismatch(const struct shmem_team_s *t, const char *fn, uint64_t e,
                                   unsigned op, int rank, unsigned other)
{
    char line[2048], call[400], next[400];
    size_t n = 0;
    member_call(t, 0, e, call, sizeof call);
    for (int k = 0, first = 0; k < t->size && n + 1 < sizeof line; k++) {
        if (k + 1 < t->size) member_call(t, k + 1, e, next, sizeof next);
        if (k + 1 < t->size && !strcmp(next, call)) continue; /* runs of one call: PEs 1-7 */
        int a = shmi_team_pe(t, first), b = shmi_team_pe(t, k);
        if (a == b)
            n += (size_t)snprintf(line + n, sizeof line - n, "%sPE %d: %s", first ? "; " : "", a, call);
        else
            n += (size_t)snprintf(line + n, sizeof line - n, "%sPEs %d-%d: %s", first ? "; " : "",
                                  a, b, call);
        first = k + 1;
        memcpy(call, next, sizeof call);
    }
    char who[64] = "another PE";
    if (rank >= 0) snprintf(who, sizeof who, "PE %d", shmi_team_pe(t, rank));
    shmi_fatal("%s: collective mismatch: this PE is in %s while %s is in %s: every PE must "
               "make the same collective calls in the same order; each PE's call: %s",
               fn ? fn : "barrier", shmi_op_name(op), who, shmi_op_name(other), line);
}

/* Our signature of collective seq, its seq word written last: a PE that
 * reads that word (acquire) equal to seq reads the arguments of this call. */
static struct shmi_sig *sig_publish(struct shmi_tsync *s, uint64_t seq, enum shmi_coll_op op,
                                    uint64_t a0, uint64_t a1, uint64_t a2)
{
    struct shmi_sig *mine = &s->sig[seq & 1];
    mine->op = op;
    mine->pad = 0;
    mine->arg[0] = a0, mine->arg[1] = a1, mine->arg[2] = a2;
    __atomic_store_n(&mine->seq, seq, __ATOMIC_RELEASE);
    return mine;
}

uint64_t shmi_team_enter(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                         uint64_t a0, uint64_t a1, uint64_t a2, const uint64_t *pub, int npub)
{
    shmi_team_push_guard(t);
    uint64_t seq = ++t->seq;
    struct shmi_tsync *s = &shmi_g.ctl->team[t->slot];
    struct shmi_sig *mine = sig_publish(s, seq, op, a0, a1, a2);
    for (int i = 0; i < npub; i++) s->pub[seq & 1][i] = pub[i];
    shmi_quiet();
    /* The signature's arguments ride with the barrier to the right neighbour;
     * only when that comparison could not be made, or failed, is rank 0's
     * signature read (one remote line) for the exact check and message. */
    int nb = barrier_sig(t, fn, op, shmi_checks != SHMI_CHECKS_OFF ? mine->arg : NULL);
    /* (rank 0 too when a leader found a member that differs) */
    if (shmi_checks != SHMI_CHECKS_OFF && (nb < 0 || (t->rank != 0 && nb != 1)))
        check_sig(t, fn, mine, nb < 0 ? -1 - nb : -1);
    return seq;
}

void shmi_barrier_checked(const char *fn, enum shmi_coll_op op, uint64_t a0, uint64_t a1,
                          uint64_t a2)
{
    shmi_team_enter(SHMEM_TEAM_WORLD, fn, op, a0, a1, a2, NULL, 0);
}

/* ---- Push collectives (team.h, coll.c: issue 19) ----------------------------- */

#define PUSH_SEQ(w) ((w) >> 24)
#define PUSH_OP(w) ((unsigned)((w) >> 16) & 0xff)
#define PUSH_ROOT(w) ((int)((w) & 0xffff))

/* The signature a push word stands for (its writer's). */
static struct shmi_sig push_sig(const struct shmi_push *p, uint64_t w)
{
    struct shmi_sig s = { PUSH_SEQ(w), PUSH_OP(w), 0, { 0, 0, 0 } };
    for (int i = 0; i < 3; i++) s.arg[i] = __atomic_load_n(&p->arg[i], __ATOMIC_RELAXED);
    return s;
}

/* A barrier or checked collective on a push team (barrier_sig, after our
 * `cur`): a push of the collective we would have made (seq + 1 for a
 * barrier, seq for a checked collective, already counted) means its root
 * is in another call than ours.  The fence pairs with the root's after its
 * pushes: if it does not see our `cur`/sig, we see its push word. */
static void push_check_in(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                          uint64_t e)
{
    if (shmi_checks == SHMI_CHECKS_OFF) return;
    uint64_t s = op == SHMI_OP_BARRIER ? t->seq + 1 : t->seq;
    struct shmi_tsync *mine = &shmi_g.ctl->team[t->slot];
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t w = __atomic_load_n(&mine->push[s & 1].w, __ATOMIC_ACQUIRE);
    if (PUSH_SEQ(w) != s) return;
    if (PUSH_OP(w) != op) bar_mismatch(t, fn, e, op, PUSH_ROOT(w), PUSH_OP(w));
    struct shmi_sig theirs = push_sig(&mine->push[s & 1], w);
    sig_fatal(t, fn, &mine->sig[s & 1], PUSH_ROOT(w), &theirs, e);
}

void shmi_team_push_settle(struct shmem_team_s *t)
{
    for (int k = 0; k < t->size; k++) {
        if (k == t->rank) continue;
        struct shmi_word_wait w = { &shmi_team_sync_of(t, k)->sig[t->seq & 1].seq, t->seq };
        if (shmi_word_ready(&w)) continue;
        struct shmi_wait_desc d = { "a team collective (its members entering the one before)",
                                    NULL, -1, 0, t->seq, 0 };
        shmi_wait_cur = &d;
        shmi_wait_many(&shmi_g.ctl->bell, shmi_word_ready, &w);
    }
    t->push_seq = 0;
}

uint64_t shmi_push_enter(struct shmem_team_s *t, const char *fn, enum shmi_coll_op op,
                         uint64_t a0, uint64_t a1, uint64_t a2)
{
    (void)fn;
    shmi_team_push_guard(t);
    uint64_t seq = ++t->seq, e = t->epoch + 1;
    struct shmi_tsync *s = &shmi_g.ctl->team[t->slot];
    sig_publish(s, seq, op, a0, a1, a2);
    /* the barrier we did not make: where we are, for anyone's report */
    struct shmi_cur *c = &s->cur[e & 1];
    c->site = (uint64_t)(uintptr_t)shmi_call_site;
    c->exe = shmi_exe_bias();
    __atomic_store_n(&c->w, e << BAR_SHIFT | op, __ATOMIC_RELEASE);
    shmi_quiet();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return seq;
}

/* Team rank k is in another call than ours (signature mine, barrier epoch
 * e): fatal.  Its `cur` first, then its signature (both acquire): a PE that
 * is in this collective wrote its signature before any later `cur`. */
static void push_check_peer(struct shmem_team_s *t, const char *fn, int k,
                            const struct shmi_sig *mine, uint64_t e)
{
    const struct shmi_tsync *o = shmi_team_sync_of(t, k);
    uint64_t cw = __atomic_load_n(&o->cur[e & 1].w, __ATOMIC_ACQUIRE);
    const struct shmi_sig *os = &o->sig[mine->seq & 1];
    uint64_t sq = __atomic_load_n(&os->seq, __ATOMIC_ACQUIRE);
    if (sq == mine->seq) {
        struct shmi_sig theirs = { sq, __atomic_load_n(&os->op, __ATOMIC_RELAXED), 0, { 0 } };
        for (int i = 0; i < 3; i++) theirs.arg[i] = __atomic_load_n(&os->arg[i], __ATOMIC_RELAXED);
        if (!sig_same(&theirs, mine)) sig_fatal(t, fn, mine, k, &theirs, e);
        return;
    }
    /* Not yet in it, but in a barrier we are not in.  (A member still waiting
     * in the push before ours shows that epoch too, with the push's op: only
     * broadcasts are pushed, so an op equal to ours is no mismatch; a pulled
     * broadcast with the same seq was caught by the signature above.) */
    unsigned op = (unsigned)(cw & ((1u << BAR_SHIFT) - 1));
    if (sq < mine->seq && cw >> BAR_SHIFT == e && op != mine->op && op != SHMI_OP_NONE)
        bar_mismatch(t, fn, e, mine->op, k, op);
}

void shmi_push_check_root(struct shmem_team_s *t, const char *fn, uint64_t seq)
{
    if (shmi_checks == SHMI_CHECKS_OFF) return;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    struct shmi_tsync *s = &shmi_g.ctl->team[t->slot];
    const struct shmi_sig *mine = &s->sig[seq & 1];
    uint64_t e = t->epoch + 1;
    uint64_t w = __atomic_load_n(&s->push[seq & 1].w, __ATOMIC_ACQUIRE);
    if (PUSH_SEQ(w) == seq) { /* another PE pushed this collective to us: a second root */
        struct shmi_sig theirs = push_sig(&s->push[seq & 1], w);
        sig_fatal(t, fn, mine, PUSH_ROOT(w), &theirs, e);
    }
    for (int k = 0; k < t->size; k++)
        if (k != t->rank) push_check_peer(t, fn, k, mine, e);
}

struct push_wait {
    const struct shmi_push *box;  /* ours */
    const struct shmi_tsync *root; /* the root's slot */
    const struct shmi_sig *mine;
    uint64_t e;
};

/* The push arrived, or the root shows that it is in another call (its
 * signature of this collective differs, or it is in a barrier without
 * having entered this collective). */
static int push_ready(const void *arg)
{
    const struct push_wait *p = arg;
    uint64_t seq = p->mine->seq;
    uint64_t cw = __atomic_load_n(&p->root->cur[p->e & 1].w, __ATOMIC_ACQUIRE);
    const struct shmi_sig *rs = &p->root->sig[seq & 1];
    uint64_t sq = __atomic_load_n(&rs->seq, __ATOMIC_ACQUIRE);
    if (PUSH_SEQ(__atomic_load_n(&p->box->w, __ATOMIC_ACQUIRE)) >= seq) return 1;
    if (shmi_checks == SHMI_CHECKS_OFF) return 0;
    if (sq == seq) {
        if (__atomic_load_n(&rs->op, __ATOMIC_RELAXED) != p->mine->op) return 1;
        for (int i = 0; i < 3; i++)
            if (__atomic_load_n(&rs->arg[i], __ATOMIC_RELAXED) != p->mine->arg[i]) return 1;
        return 0;
    }
    unsigned op = (unsigned)(cw & ((1u << BAR_SHIFT) - 1));
    return sq < seq && cw >> BAR_SHIFT == p->e && op != p->mine->op && op != SHMI_OP_NONE;
}

void shmi_push_wait(struct shmem_team_s *t, const char *fn, int root, uint64_t seq)
{
    struct shmi_tsync *s = &shmi_g.ctl->team[t->slot];
    struct shmi_push *box = &s->push[seq & 1];
    struct push_wait p = { box, shmi_team_sync_of(t, root), &s->sig[seq & 1], t->epoch + 1 };
    /* the root may wait for us to enter (its next push's guard) */
    shmi_ring_sync_after_sc(&shmi_ctl_of(shmi_team_pe(t, root))->bell);
    if (!push_ready(&p)) {
        struct shmi_wait_desc d = { fn, NULL, -1, 0, seq, 0 };
        shmi_wait_cur = &d;
        shmi_wait_sync(&shmi_g.ctl->bell, push_ready, &p);
    }
    uint64_t w = __atomic_load_n(&box->w, __ATOMIC_ACQUIRE);
    if (shmi_checks == SHMI_CHECKS_OFF) return;
    if (PUSH_SEQ(w) >= seq) {
        struct shmi_sig theirs = push_sig(box, w);
        if (PUSH_ROOT(w) != root || !sig_same(&theirs, p.mine))
            sig_fatal(t, fn, p.mine, PUSH_ROOT(w), &theirs, p.e);
        return;
    }
    push_check_peer(t, fn, root, p.mine, p.e); /* fatal: what push_ready saw */
    shmi_fatal("%s: collective mismatch: PE %d is in another call than this PE's %s", fn,
               shmi_team_pe(t, root), shmi_op_name(p.mine->op));
}
