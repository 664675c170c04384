/* sync_test.c - the barrier engine (sync.c) alone: no launcher, no
 * bootstrap, no shmem_init, no heap.
 *
 * Forked processes are the PEs.  The test maps one memfd holding a control
 * block (struct shmi_ctl) per PE and sets up in each child what shmem_init
 * would leave in the one global state for the engine: shmi_g.ctl (its own
 * block), a transport table of one segment (the blocks) whose delta[pe]
 * reaches every peer's block, and the team (start, stride, size, rank,
 * slot, its barrier algorithm as a row of the collective table).  The
 * engine then runs unchanged: its flags, doorbells and waits (wait.c) are
 * the library's.
 *
 * Teams spanning nodes (the two-level barrier) get a network made for the
 * test: the PEs of other "nodes" are routed through an ops table whose put,
 * get and flag write through a second mapping of the memfd, and in the
 * PE's main mapping the blocks of those PEs are made PROT_NONE, as the real
 * transport's reservation is: an access that bypasses the route faults.
 *
 * Checked, many rounds, 1..8 PEs (the machine may have far fewer CPUs:
 * the waits sleep on the doorbells):
 *  - the barrier property: each PE writes the round it enters into a
 *    shared board before the barrier; after leaving round k it reads every
 *    member's entry, which must be k or k + 1 (never lower: a member that
 *    had not entered; never higher: one that left round k + 1 before we
 *    entered it), for dissemination, central and two-level barriers, the
 *    library's own (op NONE), program barriers (op BARRIER) and checked
 *    collectives (shmi_team_enter, whose published words must be visible
 *    after it);
 *  - two teams with strides 2 and -2 on their own slots beside the world;
 *  - two-level: only the nodes' leaders send over the network, one flag per
 *    dissemination round among the leaders;
 *  - mismatches stop the job through shmi_fatal (caught with the log's
 *    abort hook): a PE in another call (its flag's op), a PE with other
 *    arguments (the neighbour and leader signature comparisons), on each
 *    barrier, naming the right PEs and calls.
 *
 * Usage: barrier_engine_test [rounds]  (default ROUNDS).  The PEs of the
 * mismatch cases write to /dev/null (their fatal lines are expected and
 * checked through the abort hook); SYNC_TEST_VERBOSE=1 shows them. */
#include "core/coll.h"
#include "core/team.h"
#include "transport/tp.h"
#include "transport/wait.h"
#include "util/clock.h"
#include "util/log.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/unit_check.h"

#define MAXPE 8
#define ROUNDS 1000
#define STRIDE ((sizeof(struct shmi_ctl) + 4095) / 4096 * 4096) /* one block per PE */

/* What the PEs share besides their control blocks. */
struct board {
    struct {
        _Alignas(64) uint64_t w;
    } entered[2][MAXPE];      /* [team: 0 world, 1 the half team][world PE] */
    uint64_t violations;      /* rounds left too early, all PEs */
    uint64_t net_flags[MAXPE]; /* flags a PE wrote through the test network */
    char fatal[MAXPE][2048];  /* a PE's shmi_fatal line */
};

static char *blocks;     /* the PEs' control blocks, [pe * STRIDE] (the engine's view) */
static char *net_view;   /* the same memory, for the test network */
static size_t blocks_len;
static struct board *board;

/* ---- What a PE's shmem_init would have set up --------------------------------- */
static intptr_t delta[MAXPE];
static const struct shmi_tp_ops *via[MAXPE];
static uint8_t remote[MAXPE];
static int node_of[MAXPE];

/* The test network: the peer's copy of our symmetric address a, through
 * the second mapping (the main one is PROT_NONE for a remote PE). */
static void *net_ptr(const struct shmi_tp *tp, const void *a, int pe)
{
    return net_view + ((char *)shmi_tp_ptr(tp, a, pe) - blocks);
}
static int net_put(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)mode;
    memcpy(net_ptr(tp, dest, pe), src, n);
    return SHMI_OK;
}
static int net_get(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)mode;
    memcpy(dest, net_ptr(tp, src, pe), n);
    return SHMI_OK;
}
static int net_flag(struct shmi_tp *tp, uint64_t *flag, uint64_t w, int pe)
{
    __atomic_store_n((uint64_t *)net_ptr(tp, flag, pe), w, __ATOMIC_RELEASE);
    shmi_ring(net_ptr(tp, tp->bell, pe));
    board->net_flags[tp->me]++;
    return SHMI_OK;
}
static int net_fence(struct shmi_tp *tp)
{
    (void)tp;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return SHMI_OK;
}
static const char *net_why(struct shmi_tp *tp, int pe, int rc, char *buf, size_t len)
{
    (void)tp;
    snprintf(buf, len, "test network to PE %d: %s", pe, shmi_strerror(rc));
    return buf;
}
static const struct shmi_tp_ops test_net = {
    .name = "test-net", .put = net_put, .get = net_get, .flag = net_flag,
    .fence = net_fence, .quiet = net_fence, .why = net_why,
};

static void on_fatal(int code, const char *msg)
{
    (void)code;
    snprintf(board->fatal[shmi_g.me], sizeof board->fatal[0], "%s", msg);
}

/* PE me of n; node: each PE's node (its lowest PE), or NULL for one node. */
static void pe_setup(int me, int n, const int *node)
{
    memset(&shmi_g, 0, sizeof shmi_g);
    shmi_g.phase = SHMI_RUNNING;
    shmi_g.me = me;
    shmi_g.npes = n;
    shmi_g.ctl = (struct shmi_ctl *)(blocks + (size_t)me * STRIDE);
    struct shmi_tp *tp = &shmi_g.tp;
    tp->me = me;
    tp->npes = n;
    tp->nseg = 1;
    for (int pe = 0; pe < n; pe++) delta[pe] = (intptr_t)(pe - me) * (intptr_t)STRIDE;
    tp->seg[0] = (struct shmi_tp_seg){ .base = (uintptr_t)shmi_g.ctl, .size = STRIDE,
                                       .delta = delta };
    tp->bell = &shmi_g.ctl->bell;
    if (node) {
        for (int pe = 0; pe < n; pe++) {
            node_of[pe] = node[pe];
            remote[pe] = node[pe] != node[me];
            via[pe] = remote[pe] ? &test_net : NULL;
            if (remote[pe] && mprotect(blocks + (size_t)pe * STRIDE, STRIDE, PROT_NONE)) {
                perror("mprotect");
                _exit(4);
            }
            tp->nremote += remote[pe];
        }
        tp->via_host = via;
        tp->remote = remote;
        tp->node = node_of;
        tp->used[tp->nused++] = &test_net;
    }
    shmi_log_pe = me;
    shmi_log_set_abort_hook(on_fatal);
}

static const struct shmi_coll_algs row_dissemination = { .name = "dissemination",
                                                         .barrier = shmi_bar_dissemination };
static const struct shmi_coll_algs row_central = { .name = "central",
                                                   .barrier = shmi_bar_central };
static const struct shmi_coll_algs row_two_level = { .name = "two-level",
                                                     .barrier = shmi_bar_two_level };

static struct shmem_team_s make_team(int start, int stride, int size, int slot,
                                     const struct shmi_coll_algs *algs)
{
    struct shmem_team_s t;
    memset(&t, 0, sizeof t);
    t.start = start;
    t.stride = stride;
    t.size = size;
    t.slot = slot;
    t.live = 1;
    t.rank = shmi_team_rank_of(&t, shmi_g.me);
    t.algs = algs;
    return t;
}

/* ---- One PE's rounds --------------------------------------------------------- */
static uint64_t rnd_state;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* Now and then late into a round, so that partners wait in every way:
 * spinning, yielding, asleep on the doorbell. */
static void jitter(void)
{
    uint64_t r = rnd();
    switch (r % 16) {
    case 0: sched_yield(); break;
    case 1: usleep(30); break;
    case 2: case 3: case 4:
        for (volatile unsigned i = 0, m = (unsigned)(r >> 8) % 4000; i < m; i++) {}
        break;
    default: break;
    }
}

enum call { CALL_LIB, CALL_BARRIER, CALL_CHECKED, CALL_KINDS };

static uint64_t pub_word(int pe, int k) { return (uint64_t)pe * 1000003u + (uint64_t)k; }

/* Round k of team t (board row `row`): enter, the call, check what the
 * barrier promises.  next: the team's next round (members may have entered
 * it already, no further); size: the checked collective's argument (64 * k
 * on a matching PE). */
static void round_on(struct shmem_team_s *t, int row, int k, int next, enum call call,
                     uint64_t size)
{
    int me = shmi_g.me;
    jitter();
    __atomic_store_n(&board->entered[row][me].w, (uint64_t)k, __ATOMIC_RELEASE);
    if (call == CALL_LIB) {
        shmi_team_barrier(t);
    } else if (call == CALL_BARRIER) {
        shmi_team_barrier_op(t, "shmem_barrier_all", SHMI_OP_BARRIER);
    } else {
        uint64_t pub[2] = { pub_word(me, k), (uint64_t)k }, seq0 = t->seq;
        uint64_t seq = shmi_team_enter(t, "shmem_malloc", SHMI_OP_MALLOC, size, 0, 0, pub, 2);
        CHECK(seq == seq0 + 1);
        for (int r = 0; r < t->size; r++) { /* every member's words, through the route */
            uint64_t w[2];
            shmi_team_pub_read(t, r, seq, w, 2, "sync_test");
            if (w[0] != pub_word(shmi_team_pe(t, r), k) || w[1] != (uint64_t)k) {
                fprintf(stderr, "PE %d round %d: rank %d published %lu %lu\n", me, k, r,
                        (unsigned long)w[0], (unsigned long)w[1]);
                CHECK(!"published words visible after shmi_team_enter");
            }
        }
    }
    for (int r = 0; r < t->size; r++) {
        int pe = shmi_team_pe(t, r);
        uint64_t v = __atomic_load_n(&board->entered[row][pe].w, __ATOMIC_ACQUIRE);
        if (v != (uint64_t)k && v != (uint64_t)next) {
            __atomic_fetch_add(&board->violations, 1, __ATOMIC_RELAXED);
            fprintf(stderr, "%s barrier, %d PEs: PE %d left round %d while PE %d was at "
                    "round %lu\n", t->algs->name, t->size, me, k, pe, (unsigned long)v);
            fails++;
        }
    }
    if (fails) _exit(2); /* the first failure says it; the others are killed */
}

/* ---- Scenarios ----------------------------------------------------------------- */
struct scenario {
    const char *name;
    const struct shmi_coll_algs *row;
    int n;
    const int *node;   /* two-level: the node of each PE, else NULL */
    int halves;        /* also two teams of every other PE (strides 2 and -2) */
    /* a mismatch: at round bad_round PE bad_pe makes bad_call with
     * argument bad_size while the others make a checked collective */
    int bad_pe, bad_round;
    enum call bad_call;
    uint64_t bad_size;
};

/* Round k is on the PE's half team (else on the world). */
static int on_half(const struct scenario *s, int k) { return s->halves && k % 4; }

#define EXIT_PASSED 3 /* a mismatch scenario's PE that returned from the bad round */

static _Noreturn void pe_main(const struct scenario *s, int me, int rounds)
{
    fails = 0; /* (the parent's count, inherited) */
    pe_setup(me, s->n, s->node);
    rnd_state = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1) + (uint64_t)s->n;
    struct shmem_team_s world = make_team(0, 1, s->n, 0, s->row);
    struct shmem_team_s half = me % 2 ? make_team(s->n - 1 - (s->n % 2 == 0 ? 0 : 1), -2,
                                                  s->n / 2, 3, s->row)
                                      : make_team(0, 2, (s->n + 1) / 2, 2, s->row);
    int last = s->bad_pe >= 0 ? s->bad_round : rounds;
    for (int k = 1; k <= last; k++) {
        int next = k + 1;
        while (on_half(s, next) != on_half(s, k)) next++;
        enum call c = (enum call)(k % CALL_KINDS);
        uint64_t size = 64 * (uint64_t)k;
        if (k == s->bad_round) {
            c = me == s->bad_pe ? s->bad_call : CALL_CHECKED;
            if (me == s->bad_pe) size = s->bad_size;
        }
        if (on_half(s, k)) round_on(&half, 1, k, next, c, size);
        else round_on(&world, 0, k, next, c, size);
    }
    _exit(s->bad_pe >= 0 ? EXIT_PASSED : fails ? 2 : 0);
}

/* Fork the scenario's PEs and collect how each ended: its wait status, or
 * -1 when it had to be killed (still waiting after the others ended). */
static void run_pes(const struct scenario *s, int rounds, int status[MAXPE])
{
    memset(blocks, 0, blocks_len);
    memset(board, 0, sizeof *board);
    pid_t pid[MAXPE];
    for (int pe = 0; pe < s->n; pe++) {
        fflush(NULL);
        pid[pe] = fork();
        if (pid[pe] < 0) {
            perror("fork");
            exit(1);
        }
        if (pid[pe] == 0) {
            if (s->bad_pe >= 0 && !getenv("SYNC_TEST_VERBOSE")) /* the expected fatal lines */
                if (!freopen("/dev/null", "w", stderr)) _exit(4);
            pe_main(s, pe, rounds);
        }
    }
    /* A mismatch ends the job through the launcher; here: the PEs still
     * waiting half a second after the last one that ended are killed (and
     * after a PE that failed). */
    double t0 = shmi_clock_s(), last_exit = 0, limit = s->bad_pe >= 0 ? 30 : 100;
    int left = s->n, failed = 0;
    for (int pe = 0; pe < s->n; pe++) status[pe] = -1;
    while (left) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        double el = shmi_clock_s() - t0;
        if (p > 0) {
            for (int pe = 0; pe < s->n; pe++)
                if (pid[pe] == p) status[pe] = st;
            left--;
            last_exit = el;
            failed |= st != 0;
            continue;
        }
        int stuck = (s->bad_pe >= 0 || failed) && last_exit > 0 && el - last_exit > 0.5;
        if (el > limit || stuck) {
            if (s->bad_pe < 0) fprintf(stderr, "%s: PEs still waiting after %.0f s\n", s->name, el);
            for (int pe = 0; pe < s->n; pe++)
                if (status[pe] == -1) kill(pid[pe], SIGKILL);
            while (left && waitpid(-1, &st, 0) > 0) left--;
            break;
        }
        usleep(1000);
    }
}

static int exited(int st, int code) { return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == code; }

static int ceil_log2(int n)
{
    int r = 0;
    while ((1 << r) < n) r++;
    return r;
}

static void run_good(const struct scenario *s, int rounds)
{
    int st[MAXPE];
    run_pes(s, rounds, st);
    int ok = 1;
    for (int pe = 0; pe < s->n; pe++)
        if (!exited(st[pe], 0)) {
            ok = 0;
            fprintf(stderr, "%s, %d PEs: PE %d %s %d%s%s\n", s->name, s->n, pe,
                    st[pe] == -1 ? "was killed, still waiting" :
                    WIFSIGNALED(st[pe]) ? "died of signal" : "exited with",
                    st[pe] == -1 ? 0 : WIFSIGNALED(st[pe]) ? WTERMSIG(st[pe]) : WEXITSTATUS(st[pe]),
                    board->fatal[pe][0] ? ": " : "", board->fatal[pe]);
        }
    CHECK(ok);
    CHECK(board->violations == 0);
    if (s->node && !s->halves && ok) {
        /* network traffic: leaders only, one flag per round among them */
        int nlead = 0;
        for (int pe = 0; pe < s->n; pe++) nlead += s->node[pe] == pe;
        for (int pe = 0; pe < s->n; pe++) {
            uint64_t want = s->node[pe] == pe ? (uint64_t)rounds * (uint64_t)ceil_log2(nlead) : 0;
            if (board->net_flags[pe] != want)
                fprintf(stderr, "%s, %d PEs: PE %d sent %lu flags over the network, not %lu\n",
                        s->name, s->n, pe, (unsigned long)board->net_flags[pe],
                        (unsigned long)want);
            CHECK(board->net_flags[pe] == want);
        }
    }
    printf("%-28s %d PEs: %s\n", s->name, s->n, ok && !board->violations ? "ok" : "FAILED");
}

/* A mismatch: each PE with words in says[pe] (NULL-terminated) stops the
 * job with a line holding all of them; no PE outside `may_pass` gets past
 * the bad round (the others stop, or wait for those that stopped). */
static void run_bad(const struct scenario *s, unsigned may_pass, const char *const *says[MAXPE])
{
    int st[MAXPE];
    run_pes(s, s->bad_round + 1, st);
    int ok = 1;
    for (int pe = 0; pe < s->n; pe++) {
        int reported = exited(st[pe], 1) && board->fatal[pe][0];
        if (says[pe]) {
            int all = reported;
            for (const char *const *w = says[pe]; all && *w; w++)
                all = strstr(board->fatal[pe], *w) != NULL;
            if (!all) {
                ok = 0;
                fprintf(stderr, "%s: PE %d should have stopped the job naming", s->name, pe);
                for (const char *const *w = says[pe]; *w; w++) fprintf(stderr, " \"%s\"", *w);
                fprintf(stderr, "; it %s: %s\n", reported ? "said" : "did not",
                        board->fatal[pe][0] ? board->fatal[pe] : "(nothing)");
            }
        }
        if (exited(st[pe], EXIT_PASSED) && !(may_pass >> pe & 1)) {
            ok = 0;
            fprintf(stderr, "%s: PE %d got past the mismatch\n", s->name, pe);
        }
        if (st[pe] != -1 && WIFSIGNALED(st[pe])) {
            ok = 0;
            fprintf(stderr, "%s: PE %d died of signal %d\n", s->name, pe, WTERMSIG(st[pe]));
        }
    }
    CHECK(ok);
    printf("%-28s %d PEs: %s\n", s->name, s->n, ok ? "ok (mismatch reported)" : "FAILED");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
    if (rounds < 4) rounds = 4;
    setvbuf(stdout, NULL, _IOLBF, 0);
    blocks_len = MAXPE * STRIDE;
    int fd = memfd_create("sync_test", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)blocks_len)) {
        perror("memfd_create");
        return 1;
    }
    blocks = mmap(NULL, blocks_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    net_view = mmap(NULL, blocks_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    board = mmap(NULL, sizeof *board, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (blocks == MAP_FAILED || net_view == MAP_FAILED || board == MAP_FAILED) {
        perror("mmap");
        return 1;
    }

    /* The barrier property, 1..8 PEs, each algorithm. */
    for (int n = 1; n <= MAXPE; n++) {
        run_good(&(struct scenario){ "dissemination", &row_dissemination, n, NULL, 0, -1, 0, 0, 0 },
                 rounds);
        run_good(&(struct scenario){ "central", &row_central, n, NULL, 0, -1, 0, 0, 0 }, rounds);
    }
    /* Two-level: nodes of two PEs (blocked), of PEs alternating (cyclic),
     * uneven nodes, every PE its own node, all on one node. */
    static const int blocked[] = { 0, 0, 2, 2, 4, 4, 6, 6 }, cyclic[] = { 0, 1, 0, 1, 0, 1, 0, 1 },
                     uneven[] = { 0, 0, 0, 3, 4, 4, 4, 4 }, own[] = { 0, 1, 2, 3, 4, 5, 6, 7 },
                     one[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
    static const struct {
        const char *name;
        const int *node;
    } layouts[] = { { "two-level, blocked", blocked }, { "two-level, cyclic", cyclic },
                    { "two-level, uneven", uneven }, { "two-level, one PE a node", own },
                    { "two-level, one node", one } };
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++)
        for (int n = 2; n <= MAXPE; n += 3)
            run_good(&(struct scenario){ layouts[l].name, &row_two_level, n, layouts[l].node, 0,
                                         -1, 0, 0, 0 }, rounds);
    /* Two teams of every other PE (strides 2 and -2, slots 2 and 3) between
     * barriers of the world. */
    for (int n = 2; n <= MAXPE; n += 3) {
        run_good(&(struct scenario){ "halves, dissemination", &row_dissemination, n, NULL, 1, -1,
                                     0, 0, 0 }, rounds);
        run_good(&(struct scenario){ "halves, central", &row_central, n, NULL, 1, -1, 0, 0, 0 },
                 rounds);
    }
    run_good(&(struct scenario){ "halves, two-level", &row_two_level, 8, blocked, 1, -1, 0, 0, 0 },
             rounds);

    /* Mismatches, at round 10 (after barriers of every kind); 64 * 10 = 640. */
    {
        /* PE 2 in a barrier while the others allocate: its flag's op is
         * another; PE 2 (its left neighbour's flag) and PE 3 (PE 2's) see
         * it.  Central: the last one in releases with MIXED, every PE
         * reports.  Two-level: PE 5's op reaches its leader in the arrive
         * count, the leaders pass MIXED on; every PE reports. */
        static const char *const op[] = { "collective mismatch", "shmem_malloc", "a barrier",
                                          NULL };
        run_bad(&(struct scenario){ "mismatch op, dissemination", &row_dissemination, 4, NULL, 0,
                                    2, 10, CALL_BARRIER, 0 }, 0,
                (const char *const *[MAXPE]){ NULL, NULL, op, op });
        run_bad(&(struct scenario){ "mismatch op, central", &row_central, 5, NULL, 0, 1, 10,
                                    CALL_BARRIER, 0 }, 0,
                (const char *const *[MAXPE]){ op, op, op, op, op });
        run_bad(&(struct scenario){ "mismatch op, two-level", &row_two_level, 6, blocked, 0, 5,
                                    10, CALL_BARRIER, 0 }, 0,
                (const char *const *[MAXPE]){ op, op, op, op, op, op });
    }
    {
        /* A PE allocates 65 bytes, the others 640. */
        static const char *const by2[] = { "collective mismatch",
                                           "this PE called shmem_malloc(640)",
                                           "PE 2 (rank 2 of the team) called shmem_malloc(65)",
                                           NULL };
        static const char *const by3[] = { "collective mismatch",
                                           "this PE called shmem_malloc(640)",
                                           "PE 3 (rank 3 of the team) called shmem_malloc(65)",
                                           NULL };
        static const char *const vs0[] = { "collective mismatch",
                                           "this PE called shmem_malloc(65)",
                                           "PE 0 (rank 0 of the team) called shmem_malloc(640)",
                                           NULL };
        /* Dissemination, PE 2: PE 3 compares with its left neighbour and
         * names PE 2's call; PE 2 finds its left neighbour's differ and
         * names rank 0's.  PEs 0 and 1 compared nothing or equal, go on. */
        run_bad(&(struct scenario){ "mismatch args, dissemination", &row_dissemination, 4, NULL,
                                    0, 2, 10, CALL_CHECKED, 65 }, 0x3,
                (const char *const *[MAXPE]){ NULL, NULL, vs0, by2 });
        /* Central compares nothing on the way: every PE but rank 0 reads
         * rank 0's signature; PE 1 finds that it differs. */
        run_bad(&(struct scenario){ "mismatch args, central", &row_central, 5, NULL, 0, 1, 10,
                                    CALL_CHECKED, 65 }, 0x1d,
                (const char *const *[MAXPE]){ NULL, vs0 });
        /* Two-level, a member (PE 3 of node 2): its leader compares its
         * node's signatures and names it; PE 3 itself goes on. */
        run_bad(&(struct scenario){ "mismatch args, two-level", &row_two_level, 6, blocked, 0, 3,
                                    10, CALL_CHECKED, 65 }, 0x3b,
                (const char *const *[MAXPE]){ NULL, NULL, by3 });
        /* Two-level, a leader (PE 4): its member differs, and rank 0's
         * signature, read over the test network (its main mapping of PE 0
         * is PROT_NONE), too. */
        run_bad(&(struct scenario){ "mismatch args, two-level", &row_two_level, 6, blocked, 0, 4,
                                    10, CALL_CHECKED, 65 }, 0x2f,
                (const char *const *[MAXPE]){ NULL, NULL, NULL, NULL, vs0 });
    }
    if (fails) return 1;
    printf("barrier_engine_test: ok (%d rounds)\n", rounds);
    return 0;
}
