/* mn_prog.c MODE [MARKER] - a PE program for the multi-node tests (PEs on
 * two network namespaces, "hosts", talking through UCX over TCP).
 *
 *   rma    across hosts: put/get (blocking, nbi, p/g, iput/iget, 1 MiB),
 *          heap and globals; AMOs on 4 and 8 bytes (fetch, set, swap,
 *          cswap, fetch_add, add, inc, and/or/xor, fetch_and/or/xor) from
 *          every PE onto one word; fence ordering; quiet; put_signal and
 *          signal_wait_until; wait_until on a value a remote PE puts;
 *          barriers in a loop, shmem_malloc/free (checked collectives);
 *          shmem_ptr is NULL exactly for the PEs of the other host; a
 *          computing PE serves gets/AMOs (passive progress); a put with
 *          no quiet is complete after barrier_all.
 *          Prints "mn_prog: rma ok, N PEs, R remote" (PE 0).
 *   coll   team collectives across hosts, small (staged) and large: broadcast
 *          (8 B, 1 MiB, in place), fcollect, collect (uneven sizes),
 *          alltoall, alltoalls, long sum/max reductions (8 B and 1 MiB, in
 *          place and not), sum_inscan/exscan; then on teams made by splits
 *          of the world (strided copy, 2d rows/columns), and destroy.
 *          Prints "mn_prog: coll ok, N PEs, R remote" (PE 0).
 *   aset   the deprecated active-set routines across hosts, on the world and
 *          (4+ PEs) on the odd PEs (stride 2, spanning the hosts), small and
 *          1 MiB: shmem_barrier (a put to the right neighbour is there
 *          after it), shmem_broadcast64 (root 1), shmem_fcollect64,
 *          shmem_collect64 (uneven sizes), shmem_alltoall64,
 *          shmem_long_sum_to_all (in place and not), pSync in the globals.
 *          Prints "mn_prog: aset ok, N PEs, R remote" (PE 0).
 *   selftest  run with SHMEM_SELFTEST=1: allocations of 8 B to 1 MiB, each
 *          one self-tested across the hosts, then used.
 *          Prints "mn_prog: selftest ok, N PEs, R remote" (PE 0).
 *   mismatch PE  PE calls shmem_malloc(128), the others shmem_malloc(64):
 *          the job must stop with the collective-mismatch message.
 *   kill   after init and a barrier the last PE kills itself with SIGKILL
 *          while the others wait in a barrier (the launcher ends them).
 *   hang   after init and a barrier the last PE waits forever outside the
 *          library while the others wait in a barrier (the test cancels the
 *          job: scancel).
 *   dist   every shmemx_dist call on the world (both hosts): init_root/local;
 *          per layout (block, cyclic, block-cyclic, user) owner lookup checked
 *          at each owner, iteration, init + get, put by range + allgather;
 *          2-D halo (periodic, corners, two epochs; rows split, then columns:
 *          ghost columns from the other host) and 1-D, gather; the read
 *          cache on a PE of the other host (hits, write-through, barrier
 *          staleness, invalidate, refresh); lazy arrays (computed reads of
 *          never-filled remote blocks, owner-opened blocks read plainly, a
 *          block touched from the other host then reached by a get and an
 *          AMO, the read cache over a never-filled block, a plain get of
 *          a never-touched block, a lazy distributed array's get/put); the
 *          arena (alloc on PE 0 and the other host from every PE, gptr
 *          put/get, free by another PE, stats, exhaustion of a part on the
 *          other host).  Values are compared with ones computed locally.
 *   distfail  PE 0 frees a block of the last PE's arena part twice: the job
 *          must stop with the arena's one line naming that PE.
 *          Prints "mn_prog: dist ok, N PEs, R remote" (PE 0).
 *   getloop  PE 0 gets from the last PE until the job is ended from outside;
 *          the others wait in a barrier
 *   getloop0  the last PE gets from PE 0 until the job is ended from outside;
 *          the others wait in a barrier
 *   quietloop  PE 0 puts 8 bytes to the last PE and calls shmem_quiet until
 *          the job is ended from outside; the others wait in a barrier
 *   traffic  puts, gets and barriers between neighbours until the job is
 *          ended from outside (the netdown and freeze cases cut a host off).
 * The marker argument is ignored (tests use it to find leftover processes).
 *
 * Without a launcher (the uid cases): MN_UID_FILE=F MN_UID_RANK=r
 * MN_UID_NRANKS=n; rank 0 makes a unique ID and writes it to F, the others
 * wait for F (10 s at most) and every process joins with
 * shmemx_init_uniqueid instead of shmem_init. */
#define SHMEM_NO_DEPRECATION_WARNINGS 1 /* aset: the active-set routines */
#include <shmem.h>
#include <shmemx.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
/* Across hosts UCX's own thread (its library not instrumented) writes remote
 * puts and AMOs into this PE's heap while the PE polls it: to the program
 * that is another PE's store, but TSan sees two threads of one process.
 * Those reports are not ours; races between our own threads still are. */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:libucp.so\nrace:libuct.so\nrace:libucs.so\n";
}
#endif

static long gword[4];    /* symmetric globals */
static long lock_word;   /* a distributed lock: its queue tail lives on PE 0 */
static int fails;

#define CHECK(c, ...)                                                              \
    do {                                                                           \
        if (!(c)) {                                                                \
            fprintf(stderr, "[pe %d] mn_prog: FAILED %s: ", shmem_my_pe(), #c);    \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            fails++;                                                               \
        }                                                                          \
    } while (0)

#define BIG (1 << 20)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Passive progress: the last PE (on the other host) computes, making no
 * call, right after a barrier (its progress thread may be parked: ucx.c),
 * while PE 0 gets from it, adds to it and puts the value that ends its loop.
 * Without progress on the target's side every one of these waits until the
 * target calls the library again (here: never; it gives up after 3 s).
 * Then a put with no quiet before barrier_all must be there after it. */
static void passive(int me, int n, long *w)
{
    int last = n - 1;
    w[6] = 0;
    w[7] = 77;
    shmem_barrier_all();
    if (me == last) {
        double t0 = now_s();
        while (__atomic_load_n(&w[6], __ATOMIC_ACQUIRE) != 1 && now_s() - t0 < 3.0) {}
        CHECK(w[6] == 1, "passive: the end flag did not arrive while computing (%.1f s)",
              now_s() - t0);
        CHECK(w[7] == 77 + 20, "passive: w[7]=%ld after 20 remote adds, want %d", w[7], 97);
    } else if (me == 0) {
        double t0 = now_s();
        long sum = 0;
        for (int i = 0; i < 20; i++) {
            sum += shmem_long_g(&w[7], last);
            shmem_long_atomic_add(&w[7], 1, last);
            shmem_quiet();
        }
        shmem_long_atomic_set(&w[6], 1, last);
        double dt = now_s() - t0;
        CHECK(dt < 1.0, "passive: 20 gets and adds on a computing PE took %.2f s", dt);
        CHECK(sum == 20 * 77 + 190, "passive: the gets saw %ld, want %d", sum, 20 * 77 + 190);
    }
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 1; pe < n; pe++) shmem_long_p(&w[6], 1000 + pe, pe);
    shmem_barrier_all(); /* no quiet: the barrier completes PE 0's puts */
    if (me != 0) CHECK(w[6] == 1000 + me, "put then barrier_all: w[6]=%ld, want %d", w[6], 1000 + me);
    shmem_barrier_all();
}

static void rma(int me, int n)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    long *w = shmem_calloc(8, sizeof(long));
    char *big = shmem_malloc(BIG);
    char *src = malloc(BIG), *back = malloc(BIG);
    for (int i = 0; i < BIG; i++) src[i] = (char)(i * 7 + me);
    /* blocking put to the right, p, put to a global */
    shmem_putmem(big, src, BIG, right);
    shmem_long_p(&w[0], 100 + me, right);
    shmem_long_p(&gword[1], 200 + me, right);
    long v[3] = { me, me * 2, me * 3 };
    shmem_long_put_nbi(&w[1], v, 3, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < BIG; i++)
        if (big[i] != (char)(i * 7 + left)) {
            CHECK(0, "1 MiB put from PE %d: byte %d is %d", left, i, big[i]);
            break;
        }
    CHECK(w[0] == 100 + left, "p from PE %d: %ld", left, w[0]);
    CHECK(gword[1] == 200 + left, "p into a global from PE %d: %ld", left, gword[1]);
    CHECK(w[1] == left && w[2] == 2 * left && w[3] == 3 * left, "put_nbi: %ld %ld %ld", w[1],
          w[2], w[3]);
    /* gets back from the right: blocking, nbi, g, strided */
    shmem_getmem(back, big, BIG, right);
    CHECK(!memcmp(back, src, BIG), "1 MiB get from PE %d differs", right);
    CHECK(shmem_long_g(&w[0], right) == 100 + me, "g: %ld", shmem_long_g(&w[0], right));
    long g3[3] = { 0 };
    shmem_long_get_nbi(g3, &w[1], 3, right);
    shmem_quiet();
    CHECK(g3[0] == me && g3[2] == 3 * me, "get_nbi: %ld %ld", g3[0], g3[2]);
    long st[2] = { 0 };
    shmem_long_iget(st, &w[1], 1, 2, 2, right);
    CHECK(st[0] == me && st[1] == 3 * me, "iget: %ld %ld", st[0], st[1]);
    shmem_barrier_all();

    /* AMOs: every PE on PE 0's words, then checks on PE 0 */
    int *c32 = shmem_calloc(4, sizeof(int));
    long long *c64 = shmem_calloc(4, sizeof(long long));
    shmem_barrier_all();
    for (int k = 0; k < 10; k++) {
        shmem_int_atomic_add(&c32[0], 1, 0);
        shmem_longlong_atomic_fetch_add(&c64[0], 2, 0);
        shmem_longlong_atomic_inc(&c64[1], 0);
    }
    shmem_uint_atomic_or((unsigned *)&c32[1], 1u << me, 0);
    shmem_ulonglong_atomic_fetch_xor((unsigned long long *)&c64[2], 1ull << (me + 32), 0);
    int old = shmem_int_atomic_compare_swap(&c32[2], 0, me + 1, 0); /* one PE wins */
    shmem_barrier_all();
    if (me == 0) {
        CHECK(c32[0] == 10 * n, "int add: %d, want %d", c32[0], 10 * n);
        CHECK(c64[0] == 20 * n, "fetch_add: %lld", c64[0]);
        CHECK(c64[1] == 10 * n, "inc: %lld", c64[1]);
        CHECK(c32[1] == (1 << n) - 1, "or: %x", c32[1]);
        long long x = 0;
        for (int p = 0; p < n; p++) x ^= 1ll << (p + 32);
        CHECK(c64[2] == x, "xor: %llx", c64[2]);
        CHECK(c32[2] >= 1 && c32[2] <= n, "cswap winner: %d", c32[2]);
    }
    int winner = shmem_int_atomic_fetch(&c32[2], 0);
    CHECK((old == 0) == (winner == me + 1), "cswap: old %d, winner %d", old, winner);
    shmem_barrier_all();
    if (me == n - 1) { /* fetching ops on a remote word, one PE */
        int t = 0;
        CHECK(shmem_int_atomic_swap(&c32[3], 7, 0) == 0, "swap");
        shmem_int_atomic_set(&c32[3], 12, 0);
        CHECK((t = (int)shmem_uint_atomic_fetch_and((unsigned *)&c32[3], 4, 0)) == 12, "fetch_and gave %d", t);
        CHECK((t = (int)shmem_uint_atomic_fetch_or((unsigned *)&c32[3], 3, 0)) == 4, "fetch_or gave %d", t);
        CHECK((t = (int)shmem_uint_atomic_fetch_xor((unsigned *)&c32[3], 1, 0)) == 7, "fetch_xor gave %d", t);
        shmem_uint_atomic_and((unsigned *)&c32[3], 2, 0);
        shmem_uint_atomic_xor((unsigned *)&c32[3], 8, 0);
        CHECK((t = shmem_int_atomic_fetch(&c32[3], 0)) == 10, "fetch gave %d", t);
        long long f = -1;
        shmem_longlong_atomic_fetch_add_nbi(&f, &c64[3], 5, 0);
        shmem_quiet();
        CHECK(f == 0 && shmem_longlong_atomic_fetch(&c64[3], 0) == 5, "fetch_add_nbi %lld", f);
    }
    shmem_barrier_all();

    /* fence: data then flag to the right; the right waits on the flag */
    long *data = shmem_calloc(64, sizeof(long)), *flag = shmem_calloc(1, sizeof(long));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    shmem_barrier_all();
    for (int round = 1; round <= 20; round++) {
        long buf[64];
        for (int i = 0; i < 64; i++) buf[i] = round * 1000 + i;
        shmem_long_put_nbi(data, buf, 64, right);
        shmem_fence();
        shmem_long_atomic_set(flag, round, right);
        shmem_long_wait_until(flag, SHMEM_CMP_GE, round);
        CHECK(data[0] == round * 1000 && data[63] == round * 1000 + 63,
              "fence: round %d, data %ld %ld", round, data[0], data[63]);
        shmem_barrier_all(); /* nobody overwrites data before it is checked */
    }
    /* put_signal + signal_wait_until */
    for (int round = 1; round <= 20; round++) {
        long buf[64];
        for (int i = 0; i < 64; i++) buf[i] = -round * 1000 - i;
        shmem_long_put_signal(data, buf, 64, sig, 1, SHMEM_SIGNAL_ADD, right);
        uint64_t s = shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)round);
        CHECK(s >= (uint64_t)round, "signal %lu", (unsigned long)s);
        CHECK(data[0] == -round * 1000 && data[63] == -round * 1000 - 63,
              "put_signal: round %d, data %ld %ld", round, data[0], data[63]);
        shmem_barrier_all();
    }
    /* wait_until on a value put late by the left (after a pause) */
    shmem_long_p(flag, 0, me);
    shmem_barrier_all();
    if (me == 0) usleep(200000);
    shmem_long_p(flag, 4242, right);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, 4242);
    shmem_barrier_all();
    /* barriers, sync, malloc/free in a loop */
    for (int i = 0; i < 100; i++) {
        shmem_long_atomic_inc(&w[4], 0);
        shmem_barrier_all();
        if (me == 0) CHECK(w[4] == (long)n * (i + 1), "barrier %d: count %ld", i, w[4]);
        shmem_sync_all();
        if (i % 10 == 0) shmem_free(shmem_malloc(64 + (size_t)i));
    }
    /* SHMEM_TEAM_SHARED is this host's PEs (half the job here): each one
     * reachable by load/store, and the team works */
    int ns = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(ns == n / 2, "SHMEM_TEAM_SHARED has %d PEs, want %d", ns, n / 2);
    for (int r = 0; r < ns; r++) {
        int wpe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, r, SHMEM_TEAM_WORLD);
        CHECK(wpe >= 0 && shmem_ptr(w, wpe) != NULL, "shared rank %d = PE %d: no shmem_ptr", r, wpe);
    }
    shmem_team_sync(SHMEM_TEAM_SHARED);
    /* a lock across hosts: every PE increments PE 0's counter under it, with
     * a get and a put (not an atomic), half the rounds through test_lock */
    for (int i = 0; i < 50; i++) {
        if (i % 2) while (shmem_test_lock(&lock_word)) {}
        else shmem_set_lock(&lock_word);
        long v = shmem_long_g(&w[5], 0);
        shmem_long_p(&w[5], v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock_word);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(w[5] == 50L * n, "lock: counter %ld, want %ld", w[5], 50L * n);
    passive(me, n, w);
    free(src);
    free(back);
    shmem_free(sig);
    shmem_free(flag);
    shmem_free(data);
    shmem_free(c64);
    shmem_free(c32);
    shmem_free(big);
    shmem_free(w);
}

#define NL (BIG / (int)sizeof(long)) /* longs in 1 MiB */

/* sum/max reductions and scans of len longs on team t (rank me of n):
 * source[k] = me + k, in place when inplace. */
static void reductions(shmem_team_t t, long len, int inplace, const char *what)
{
    int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    long *src = shmem_malloc((size_t)len * sizeof(long));
    long *dst = inplace ? src : shmem_malloc((size_t)len * sizeof(long));
#define FILL() for (long k = 0; k < len; k++) src[k] = me + k
    FILL();
    shmem_long_sum_reduce(t, dst, src, (size_t)len);
    for (long k = 0; k < len; k++)
        if (dst[k] != n * k + (long)n * (n - 1) / 2) {
            CHECK(0, "%s sum_reduce of %ld: [%ld] = %ld", what, len, k, dst[k]);
            break;
        }
    FILL();
    shmem_long_max_reduce(t, dst, src, (size_t)len);
    for (long k = 0; k < len; k++)
        if (dst[k] != n - 1 + k) {
            CHECK(0, "%s max_reduce of %ld: [%ld] = %ld", what, len, k, dst[k]);
            break;
        }
    FILL();
    shmem_long_sum_inscan(t, dst, src, (size_t)len);
    for (long k = 0; k < len; k++)
        if (dst[k] != (me + 1) * k + (long)me * (me + 1) / 2) {
            CHECK(0, "%s sum_inscan of %ld: [%ld] = %ld", what, len, k, dst[k]);
            break;
        }
    FILL();
    shmem_long_sum_exscan(t, dst, src, (size_t)len);
    for (long k = 0; k < len; k++)
        if (dst[k] != (me ? me * k + (long)(me - 1) * me / 2 : 0)) {
            CHECK(0, "%s sum_exscan of %ld: [%ld] = %ld", what, len, k, dst[k]);
            break;
        }
#undef FILL
    if (!inplace) shmem_free(dst);
    shmem_free(src);
}

/* Data-moving collectives on team t with blocks of len longs. */
static void moves(shmem_team_t t, long len, const char *what)
{
    int me = shmem_team_my_pe(t), n = shmem_team_n_pes(t), root = n - 1;
    size_t z = (size_t)len * sizeof(long);
    long *src = shmem_malloc(z * (size_t)n * 3), *dst = shmem_malloc(z * (size_t)n * 3);
    /* broadcast from the last rank, then in place from rank 0 */
    for (long k = 0; k < len; k++) src[k] = me * 1000000L + k;
    shmem_long_broadcast(t, dst, src, (size_t)len, root);
    for (long k = 0; k < len; k++)
        if (dst[k] != root * 1000000L + k) {
            CHECK(0, "%s broadcast of %ld: [%ld] = %ld", what, len, k, dst[k]);
            break;
        }
    shmem_long_broadcast(t, src, src, (size_t)len, 0);
    for (long k = 0; k < len; k++)
        if (src[k] != k) {
            CHECK(0, "%s in-place broadcast of %ld: [%ld] = %ld", what, len, k, src[k]);
            break;
        }
    /* back to back from every root, the source changing in between: a
     * node's members copy from their leader's fetched copy (coll.c), which
     * must be this broadcast's, never the previous one's */
    for (int r = 0; r < n; r++) {
        for (long k = 0; k < len; k++) src[k] = me * 1000000L + r * 1000L + k;
        shmem_long_broadcast(t, dst, src, (size_t)len, r);
        for (long k = 0; k < len; k++)
            if (dst[k] != r * 1000000L + r * 1000L + k) {
                CHECK(0, "%s broadcast of %ld from rank %d: [%ld] = %ld", what, len, r, k, dst[k]);
                break;
            }
        shmem_sync(t); /* nobody changes src while a peer may still read it */
    }
    /* fcollect */
    for (long k = 0; k < len; k++) src[k] = me * 1000000L + k;
    shmem_long_fcollect(t, dst, src, (size_t)len);
    for (long k = 0; k < len * n; k++)
        if (dst[k] != (k / len) * 1000000L + k % len) {
            CHECK(0, "%s fcollect of %ld: [%ld] = %ld", what, len, k, dst[k]);
            break;
        }
    /* collect: rank i gives (i + 1) * len / 2 + 1 elements (uneven) */
    long mine = (me + 1) * len / 2 + 1;
    for (long k = 0; k < mine; k++) src[k] = me * 1000000L + k;
    shmem_long_collect(t, dst, src, (size_t)mine);
    for (long i = 0, at = 0; i < n; i++) {
        long c = (i + 1) * len / 2 + 1, k = 0;
        for (; k < c && dst[at + k] == i * 1000000L + k; k++) {}
        if (k < c) {
            CHECK(0, "%s collect of %ld: rank %ld's [%ld] = %ld", what, len, i, k, dst[at + k]);
            break;
        }
        at += c;
    }
    /* alltoall: block j of rank me's source goes to rank j */
    for (long j = 0; j < n; j++)
        for (long k = 0; k < len; k++) src[j * len + k] = me * 1000000L + j * 1000 + k % 1000;
    shmem_long_alltoall(t, dst, src, (size_t)len);
    for (long i = 0, bad = 0; i < n && !bad; i++)
        for (long k = 0; k < len; k++)
            if (dst[i * len + k] != i * 1000000L + me * 1000 + k % 1000) {
                CHECK(0, "%s alltoall of %ld: block %ld [%ld] = %ld", what, len, i, k,
                      dst[i * len + k]);
                bad = 1;
                break;
            }
    /* alltoalls: dst stride 2, sst stride 3, len / 2 + 1 elements per PE */
    long ne = len / 2 + 1;
    for (long j = 0; j < n; j++)
        for (long e = 0; e < ne; e++) src[(j * ne + e) * 3] = me * 1000000L + j * 1000 + e % 1000;
    shmem_long_alltoalls(t, dst, src, 2, 3, (size_t)ne);
    for (long i = 0, bad = 0; i < n && !bad; i++)
        for (long e = 0; e < ne; e++)
            if (dst[(i * ne + e) * 2] != i * 1000000L + me * 1000 + e % 1000) {
                CHECK(0, "%s alltoalls of %ld: block %ld [%ld] = %ld", what, ne, i, e,
                      dst[(i * ne + e) * 2]);
                bad = 1;
                break;
            }
    shmem_free(dst);
    shmem_free(src);
}

static void colls(shmem_team_t t, const char *what)
{
    moves(t, 1, what);          /* staged (one barrier) */
    moves(t, 20000, what);      /* 160 KB blocks: pulled from the sources */
    moves(t, 64, what);         /* 512 B: just above the stage (two-level fcollect) */
    moves(t, NL, what);         /* 1 MiB blocks */
    reductions(t, 1, 0, what);  /* 8 B */
    reductions(t, 1, 1, what);
    reductions(t, NL, 0, what); /* 1 MiB */
    reductions(t, NL, 1, what);
}

static void coll(int me, int n)
{
    colls(SHMEM_TEAM_WORLD, "world");
    /* a split copy of the world (spans the hosts), reversed */
    shmem_team_t rev;
    CHECK(!shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &rev),
          "split_strided");
    CHECK(shmem_team_my_pe(rev) == n - 1 - me, "rank in the reversed team: %d",
          shmem_team_my_pe(rev));
    moves(rev, 3, "reversed");
    moves(rev, 64, "reversed"); /* two-level fcollect on a split */
    reductions(rev, 3, 0, "reversed");
    reductions(rev, 5000, 1, "reversed");
    /* 2d: rows of 2 (one host's PEs with 2 per host) and columns (across) */
    shmem_team_t x, y;
    CHECK(!shmem_team_split_2d(rev, 2, NULL, 0, &x, NULL, 0, &y), "split_2d");
    moves(x, 300, "row");
    reductions(x, 300, 0, "row");
    moves(y, 2, "column");
    moves(y, 64, "column");     /* a node's members not consecutive (2x4) */
    reductions(y, 3000, 0, "column");
    shmem_team_destroy(y);
    shmem_team_destroy(x);
    shmem_team_destroy(rev);
}

/* ---- aset: the deprecated active-set collectives ------------------------- */

static long psync_bar[SHMEM_BARRIER_SYNC_SIZE], psync_bc[SHMEM_BCAST_SYNC_SIZE];
static long psync_col[SHMEM_COLLECT_SYNC_SIZE], psync_red[SHMEM_REDUCE_SYNC_SIZE];
static long psync_a2a[SHMEM_ALLTOALL_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* One active set: member i is world PE start + (1 << lstride) * i; len
 * longs per member (a multiple of 8 bytes: the *64 routines). */
static void aset_case(int start, int lstride, int size, long len, const char *what)
{
    int me = shmem_my_pe(), st = 1 << lstride, r = (me - start) / st;
    /* shmem_malloc is collective over every PE, members or not */
    long *src = shmem_malloc((size_t)len * size * sizeof(long));
    long *dst = shmem_malloc((size_t)len * size * sizeof(long));
    if (me < start || (me - start) % st || r >= size) goto out; /* not a member */
    for (long k = 0; k < len * size; k++) src[k] = 1000000L * me + k, dst[k] = -1;
    /* barrier: a put to the right neighbour is complete after it */
    int right = start + st * ((r + 1) % size), left = start + st * ((r + size - 1) % size);
    shmem_barrier(start, lstride, size, psync_bar); /* every dst initialized */
    shmem_long_p(&dst[0], me, right);
    shmem_barrier(start, lstride, size, psync_bar);
    CHECK(dst[0] == left, "%s aset barrier: got %ld from the left, want %d", what, dst[0], left);
    shmem_barrier(start, lstride, size, psync_bar);
    /* broadcast from set member 1 (0 when alone) */
    int root = size > 1 ? 1 : 0, rpe = start + st * root;
    for (long k = 0; k < len; k++) dst[k] = -1;
    shmem_broadcast64(dst, src, (size_t)len, root, start, lstride, size, psync_bc);
    for (long k = 0; k < len && r != root; k++)
        if (dst[k] != 1000000L * rpe + k) {
            CHECK(0, "%s aset broadcast64 (%ld): dst[%ld]=%ld, want %ld", what, len, k, dst[k],
                  1000000L * rpe + k);
            break;
        }
    /* fcollect: member i's len longs at i * len */
    shmem_fcollect64(dst, src, (size_t)len, start, lstride, size, psync_col);
    for (long k = 0; k < len * size; k++) {
        long pe = start + st * (k / len), want = 1000000L * pe + k % len;
        if (dst[k] != want) {
            CHECK(0, "%s aset fcollect64 (%ld): dst[%ld]=%ld, want %ld", what, len, k, dst[k], want);
            break;
        }
    }
    /* collect: member i gives len - (i % 2) longs (at least 1 when len > 1) */
    shmem_barrier(start, lstride, size, psync_bar); /* dst read by all: reuse it */
    long mine = len > 1 ? len - r % 2 : len, off = 0;
    shmem_collect64(dst, src, (size_t)mine, start, lstride, size, psync_col);
    for (int i = 0; i < size; i++) {
        long ni = len > 1 ? len - i % 2 : len, pe = start + st * i;
        for (long k = 0; k < ni; k++)
            if (dst[off + k] != 1000000L * pe + k) {
                CHECK(0, "%s aset collect64 (%ld): block of member %d, [%ld]=%ld, want %ld", what,
                      len, i, k, dst[off + k], 1000000L * pe + k);
                break;
            }
        off += ni;
    }
    /* alltoall: block i of dst = member i's block r */
    shmem_barrier(start, lstride, size, psync_bar);
    shmem_alltoall64(dst, src, (size_t)len, start, lstride, size, psync_a2a);
    for (int i = 0; i < size; i++) {
        long pe = start + st * i;
        for (long k = 0; k < len; k++)
            if (dst[i * len + k] != 1000000L * pe + r * len + k) {
                CHECK(0, "%s aset alltoall64 (%ld): from member %d, [%ld]=%ld", what, len, i, k,
                      dst[i * len + k]);
                break;
            }
    }
    /* sum_to_all, out of place then in place */
    for (int inplace = 0; inplace < 2; inplace++) {
        shmem_barrier(start, lstride, size, psync_bar);
        for (long k = 0; k < len; k++) src[k] = me + k;
        long *out = inplace ? src : dst;
        shmem_long_sum_to_all(out, src, (int)len, start, lstride, size, pwrk, psync_red);
        long pes = 0;
        for (int i = 0; i < size; i++) pes += start + st * i;
        for (long k = 0; k < len; k++)
            if (out[k] != pes + size * k) {
                CHECK(0, "%s aset long_sum_to_all (%ld%s): [%ld]=%ld, want %ld", what, len,
                      inplace ? ", in place" : "", k, out[k], pes + size * k);
                break;
            }
    }
    shmem_barrier(start, lstride, size, psync_bar);
out:
    shmem_free(dst);
    shmem_free(src);
}

static void aset(int n)
{
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync_bar[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync_bc[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++) psync_col[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync_red[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++) psync_a2a[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all(); /* every pSync initialized before any use */
    aset_case(0, 0, n, 1, "world");
    aset_case(0, 0, n, BIG / 8 / n, "world");
    if (n >= 4) {
        aset_case(1, 1, n / 2, 3, "odd PEs");
        aset_case(1, 1, n / 2, 5000, "odd PEs");
    }
    shmem_barrier_all();
}

/* ---- selftest: SHMEM_SELFTEST=1 checks every allocation across hosts ------ */

static void selftest(int me, int n)
{
    static const size_t sizes[] = { 8, 64, 4096, BIG };
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        size_t m = sizes[z] / sizeof(long);
        long *p = shmem_calloc(m, sizeof(long));
        CHECK(p != NULL, "shmem_calloc(%zu longs)", m);
        if (!p) return;
        for (size_t k = 0; k < m; k++)
            if (p[k] != 0) {
                CHECK(0, "selftest: calloc'ed block of %zu bytes has p[%zu]=%ld", sizes[z], k, p[k]);
                break;
            }
        shmem_barrier_all(); /* every PE checked its zeros */
        shmem_long_p(&p[m - 1], me, (me + 1) % n);
        shmem_barrier_all();
        CHECK(p[m - 1] == (me + n - 1) % n, "selftest: block of %zu bytes: %ld from the left",
              sizes[z], p[m - 1]);
        shmem_barrier_all();
        shmem_free(p);
    }
}

/* ---- dist: every shmemx_dist call on a team spanning the hosts --------------- */

/* The values every check compares with: computed here, never fetched. */
static long dval(size_t g) { return (long)(g * 7 + 3); }
static void dfill(void *out, size_t g, int pe, void *ctx)
{
    (void)pe, (void)ctx;
    *(long *)out = dval(g);
}
static void lfill(void *out, size_t g, int pe, void *ctx)
{
    (void)ctx;
    *(long *)out = (long)g * 3 + pe * 100000;
}
static int user_owner(size_t i, int npes, void *ctx)
{
    (void)ctx;
    return (int)((i * 5 + i / 7) % (size_t)npes);
}

/* A distributed array under one layout: owner lookup against each owner's
 * part, iteration, init + get of every element, put by range, all-gather. */
static void dist_layout(int me, int n, shmemx_layout_t lay, const char *what)
{
    const size_t N = 1001;
    shmemx_dist_t d = shmemx_dist_create(N, sizeof(long), lay);
    CHECK(d != NULL, "%s: shmemx_dist_create(%zu)", what, N);
    if (!d) return;
    shmemx_dist_init(d, SHMEMX_FILL_ELEM(dfill, NULL), NULL);
    long *part = shmemx_dist_local(d), *all = malloc(N * sizeof(long));
    size_t total = 0;
    for (int pe = 0; pe < n; pe++) total += shmemx_dist_local_count(d, pe);
    CHECK(total == N && shmemx_dist_size(d) == N && shmemx_dist_elem_size(d) == sizeof(long),
          "%s: local counts add up to %zu of %zu", what, total, N);
    for (size_t i = (size_t)me; i < N; i += 17) { /* owner lookup, read at the owner */
        size_t l;
        int o = shmemx_dist_owner(d, i, &l);
        CHECK(shmemx_dist_global_index(d, o, l) == i, "%s: global_index(owner(%zu))", what, i);
        long v = shmem_long_g(part + l, o);
        CHECK(v == dval(i), "%s: element %zu at PE %d [%zu] is %ld, want %ld", what, i, o, l, v,
              dval(i));
    }
    shmemx_dist_run_t r;
    for (shmemx_dist_iter_t it = shmemx_dist_iter(d, me, 0, SIZE_MAX); shmemx_dist_next(&it, &r);)
        for (size_t k = 0; k < r.count; k++)
            CHECK(part[r.local + k] == dval(r.global + k), "%s: own run at %zu", what, r.global);
    size_t first, count;
    if (shmemx_dist_local_range(d, me, &first, &count) && count)
        CHECK(part[0] == dval(first), "%s: local_range first %zu", what, first);
    shmemx_dist_get(d, all, 0, N); /* every owner, both hosts */
    long sum = 0, want = 0;
    for (size_t i = 0; i < N; i++) sum += all[i], want += dval(i);
    CHECK(sum == want, "%s: dist_get checksum %ld, want %ld", what, sum, want);
    /* Each PE puts its slice of the range, then everyone reads it all. */
    shmem_barrier_all(); /* every PE has read the array */
    size_t lo = N * (size_t)me / (size_t)n, hi = N * (size_t)(me + 1) / (size_t)n;
    for (size_t i = lo; i < hi; i++) all[i - lo] = -dval(i);
    shmemx_dist_put(d, lo, all, hi - lo);
    shmem_barrier_all();
    memset(all, 0, N * sizeof(long));
    shmemx_dist_allgather(d, all);
    for (size_t i = 0; i < N; i++)
        if (all[i] != -dval(i)) {
            CHECK(0, "%s: after put + allgather element %zu is %ld, want %ld", what, i, all[i],
                  -dval(i));
            break;
        }
    free(all);
    shmemx_dist_destroy(d);
}

/* Halo exchange: every ghost cell (corners, periodic wrap) holds its
 * neighbour's value, twice (epochs); then gather. */
static long hval(size_t r, size_t c, int step) { return (long)(r * 1000 + c) * (step + 1); }
static void dist_halo_2d(int me, int n, const int *grid)
{
    const size_t NR = 37, NC = 29;
    shmemx_halo_t h = shmemx_halo_create_2d(NR, NC, sizeof(long), 1,
                                            SHMEMX_HALO_PERIODIC | SHMEMX_HALO_CORNERS, grid);
    CHECK(h != NULL, "halo_create_2d");
    if (!h) return;
    shmemx_halo_box_t b;
    long *u = shmemx_halo_data(h, &b);
    for (int step = 0; step < 2; step++) {
        for (size_t r = 0; r < b.nrows; r++)
            for (size_t c = 0; c < b.ncols; c++) u[r * b.pitch + c] = hval(b.row0 + r, b.col0 + c, step);
        shmemx_halo_exchange(h);
        for (ptrdiff_t r = -1; r <= (ptrdiff_t)b.nrows && b.nrows; r++)
            for (ptrdiff_t c = -1; c <= (ptrdiff_t)b.ncols; c++) {
                size_t gr = (size_t)((ptrdiff_t)(b.row0 + NR) + r) % NR; /* periodic */
                size_t gc = (size_t)((ptrdiff_t)(b.col0 + NC) + c) % NC;
                long v = u[r * (ptrdiff_t)b.pitch + c];
                if (v != hval(gr, gc, step)) {
                    CHECK(0, "halo step %d: cell (%td, %td) of PE %d is %ld, want %ld", step, r,
                          c, me, v, hval(gr, gc, step));
                    r = (ptrdiff_t)b.nrows + 1;
                    break;
                }
            }
    }
    shmem_barrier_all();
    long *all = malloc(NR * NC * sizeof(long)), sum = 0, want = 0;
    shmemx_halo_gather(h, all);
    for (size_t i = 0; i < NR * NC; i++) sum += all[i], want += hval(i / NC, i % NC, 1);
    CHECK(sum == want, "halo_gather checksum %ld, want %ld", sum, want);
    shmemx_halo_box_t pb;
    shmemx_halo_box(h, n - 1, &pb);
    CHECK(pb.prows * pb.pcols == n, "halo_box grid %d x %d", pb.prows, pb.pcols);
    free(all);
    shmem_barrier_all();
    shmemx_halo_destroy(h);
}

static void dist_halo(int me, int n)
{
    /* The chosen grid splits rows first (the other host is up or down); one
     * column per PE puts it left and right: ghost columns, a get per row. */
    int cols[2] = { 1, n };
    dist_halo_2d(me, n, NULL);
    dist_halo_2d(me, n, cols);
    /* 1-D, width 2, fixed ends */
    shmemx_halo_box_t b;
    shmemx_halo_t h = shmemx_halo_create_1d(1000, sizeof(long), 2, 0);
    long *u = shmemx_halo_data(h, &b);
    u = shmemx_halo_data(h, &b);
    for (size_t c = 0; c < b.ncols; c++) u[c] = hval(0, b.col0 + c, 0);
    shmemx_halo_exchange(h);
    for (ptrdiff_t c = -2; c < (ptrdiff_t)b.ncols + 2; c++) {
        ptrdiff_t g = (ptrdiff_t)b.col0 + c;
        if (g >= 0 && g < 1000)
            CHECK(u[c] == hval(0, (size_t)g, 0), "halo 1-D: column %td is %ld", g, u[c]);
    }
    shmem_barrier_all();
    shmemx_halo_destroy(h);
}

/* The read cache on a PE of the other host: hits, write-through, the
 * barrier staleness rule, invalidate and refresh. */
static void dist_cache(int me, int n)
{
    const size_t M = 4096;
    long *a = shmem_malloc(M * sizeof(long));
    int peer = (me + n / 2) % n; /* the other host */
    for (size_t i = 0; i < M; i++) a[i] = me * 1000000L + (long)i;
    shmem_barrier_all();
    shmemx_cache_t c = shmemx_cache_create(64 << 10, 1024, SHMEMX_CACHE_UNTIL_BARRIER);
    long *buf = malloc(M * sizeof(long));
    for (int round = 0; round < 2; round++) {
        shmemx_cache_getmem(c, buf, a + 100, 1000 * sizeof(long), peer);
        for (size_t i = 0; i < 1000; i++)
            if (buf[i] != peer * 1000000L + 100 + (long)i) {
                CHECK(0, "cache round %d: [%zu] is %ld", round, 100 + i, buf[i]);
                break;
            }
    }
    shmemx_cache_stats_t st;
    shmemx_cache_stats(c, &st);
    CHECK(st.hits > 0 && st.misses > 0 && st.bytes_saved >= 1000 * sizeof(long),
          "cache stats: %llu hits, %llu misses, %llu saved", (unsigned long long)st.hits,
          (unsigned long long)st.misses, (unsigned long long)st.bytes_saved);
    long mark = -1 - me; /* each PE writes its own slot of the peer's array */
    shmemx_cache_putmem(c, a + 2000 + me, &mark, sizeof mark, peer);
    shmemx_cache_getmem(c, buf, a + 2000 + me, sizeof(long), peer);
    CHECK(buf[0] == mark, "cache write-through: %ld", buf[0]);
    shmem_barrier_all();
    int from = (me + n - n / 2) % n; /* the PE whose peer I am */
    CHECK(a[2000 + from] == -1 - from, "cache put from PE %d landed as %ld", from, a[2000 + from]);
    a[150] = -7; /* seen by my readers after the barrier */
    shmem_barrier_all();
    shmemx_cache_getmem(c, buf, a + 150, sizeof(long), peer);
    CHECK(buf[0] == -7, "cache after barrier: %ld, want -7", buf[0]);
    shmemx_cache_invalidate_range(c, a + 150, sizeof(long), peer);
    shmemx_cache_refresh(c);
    shmemx_cache_invalidate(c);
    shmemx_cache_getmem(c, buf, a + 151, sizeof(long), peer);
    CHECK(buf[0] == peer * 1000000L + 151, "cache after invalidate: %ld", buf[0]);
    shmemx_cache_destroy(c);
    free(buf);
    shmem_barrier_all();
    shmem_free(a);
}

/* Lazy arrays: a PE of the other host reads never-filled blocks (computed
 * there, nothing committed on the owner), then the owner's own touches open
 * them to the network: plain gets, shmemx_lazy_get and dist_get/put see the
 * owner's memory. */
static void dist_lazy(int me, int n)
{
    size_t per = (size_t)sysconf(_SC_PAGESIZE) / sizeof(long), N = 4 * per;
    int peer = (me + n / 2) % n;
    long *z = shmemx_lazy_alloc(N, sizeof(long), 0, SHMEMX_FILL_ELEM(lfill, NULL));
    long *buf = malloc(N * sizeof(long));
    shmemx_lazy_get(buf, z, N * sizeof(long), peer); /* nothing filled yet: computed here */
    for (size_t i = 0; i < N; i++)
        if (buf[i] != (long)i * 3 + peer * 100000) {
            CHECK(0, "lazy_get (computed) [%zu] = %ld", i, buf[i]);
            break;
        }
    shmemx_lazy_info_t info;
    CHECK(shmemx_lazy_info(z, &info) == 0 && info.computed_reads >= 4, "lazy computed_reads");
    shmem_barrier_all();
    CHECK(info.ready == 0, "lazy: %zu blocks ready before any owner touched", info.ready);
    z[0] += 1;                                /* a fault: this block is filled and open */
    shmemx_lazy_touch(z + per, per * sizeof(long), me); /* and this one */
    shmem_barrier_all();
    shmemx_lazy_touch(z, sizeof(long), peer); /* open on the peer: nothing to do */
    shmem_getmem(buf, z, 2 * per * sizeof(long), peer);
    CHECK(buf[0] == peer * 100000 + 1 && buf[per] == (long)per * 3 + peer * 100000,
          "lazy plain get of opened blocks: %ld %ld", buf[0], buf[per]);
    shmemx_lazy_get(buf, z, N * sizeof(long), peer);
    CHECK(buf[0] == peer * 100000 + 1 && buf[N - 1] == (long)(N - 1) * 3 + peer * 100000,
          "lazy_get mixed: %ld %ld", buf[0], buf[N - 1]);
    /* A block the owner never touched: touched from here, the owner fills and
     * opens it (its opener thread), then plain RMA reaches it. */
    shmemx_lazy_touch(z + 2 * per, sizeof(long), peer);
    shmem_long_atomic_add(z + 2 * per + 1, 1000, peer);
    shmem_getmem(buf, z + 2 * per, 2 * sizeof(long), peer);
    CHECK(buf[0] == (long)(2 * per) * 3 + peer * 100000 &&
          buf[1] == (long)(2 * per + 1) * 3 + peer * 100000 + 1000,
          "lazy block touched from another node: %ld %ld", buf[0], buf[1]);
    shmem_barrier_all();
    CHECK(z[2 * per + 1] == (long)(2 * per + 1) * 3 + me * 100000 + 1000,
          "lazy: my block 2 after the remote add: %ld", z[2 * per + 1]);
    /* The read cache over a block nobody filled: computed, nothing committed. */
    shmemx_cache_t c = shmemx_cache_create(64 << 10, 4096, SHMEMX_CACHE_MANUAL);
    shmemx_cache_getmem(c, buf, z + 3 * per, per * sizeof(long), peer);
    CHECK(buf[5] == (long)(3 * per + 5) * 3 + peer * 100000, "cache over lazy: %ld", buf[5]);
    shmemx_cache_destroy(c);
    shmem_barrier_all();
    CHECK(shmemx_lazy_info(z, &info) == 0 && info.ready == 3, "lazy: %zu blocks ready", info.ready);
    shmem_barrier_all();
    /* A plain get of a block nobody touched (over TCP the owner's transport
     * thread faults on it and fills it; docs/placement.md) */
    shmem_getmem(buf, z + 3 * per, per * sizeof(long), peer);
    CHECK(buf[per - 1] == (long)(4 * per - 1) * 3 + peer * 100000, "lazy plain get of a "
          "never-touched block on the other host: %ld", buf[per - 1]);
    shmem_barrier_all();
    shmemx_lazy_free(z);
    /* A lazy distributed array: get of everything (computed where not filled),
     * put into blocks the owners opened. */
    shmemx_dist_t d = shmemx_dist_create_lazy(N, sizeof(long), SHMEMX_LAYOUT_BLOCK, 0,
                                              SHMEMX_FILL_ELEM(dfill, NULL));
    long *all = malloc(N * sizeof(long)), sum = 0, want = 0;
    shmemx_dist_get(d, all, 0, N);
    for (size_t i = 0; i < N; i++) sum += all[i], want += dval(i);
    CHECK(sum == want, "lazy dist_get checksum %ld, want %ld", sum, want);
    shmem_barrier_all(); /* the puts below open the blocks they reach, on either host */
    size_t lo = N * (size_t)me / (size_t)n, hi = N * (size_t)(me + 1) / (size_t)n;
    for (size_t i = lo; i < hi; i++) all[i - lo] = dval(i) + 1;
    shmemx_dist_put(d, lo, all, hi - lo);
    shmem_barrier_all();
    shmemx_dist_get(d, all, 0, N);
    sum = 0;
    for (size_t i = 0; i < N; i++) sum += all[i];
    CHECK(sum == want + (long)N, "lazy dist put/get checksum %ld, want %ld", sum, want + (long)N);
    shmem_barrier_all();
    shmemx_dist_destroy(d);
    free(all);
    free(buf);
}

/* The arena: blocks in the parts of PEs of both hosts, written and read
 * through global pointers, freed by another PE than the allocator;
 * contention on one part from every PE. */
static void dist_arena(int me, int n)
{
    enum { PER = 16 };
    shmemx_arena_t a = shmemx_arena_create(64 << 10);
    shmemx_gptr_t *g = shmem_calloc((size_t)n * PER, sizeof *g); /* on PE 0: everyone's */
    int peer = (me + n / 2) % n;
    long v[8], back[8];
    for (int k = 0; k < PER; k++) { /* contention: every PE allocates on PE 0 and the peer */
        int pe = k % 2 ? peer : 0;
        shmemx_gptr_t p = shmemx_arena_alloc(a, sizeof v + (size_t)k, pe);
        CHECK(p != SHMEMX_GPTR_NULL && shmemx_gptr_pe(p) == pe, "arena_alloc on PE %d", pe);
        for (int i = 0; i < 8; i++) v[i] = me * 1000 + k * 10 + i;
        shmemx_gptr_put(p, v, sizeof v);
        CHECK((shmemx_gptr_local(p) == NULL) == (shmem_ptr(g, pe) == NULL), "gptr_local");
        shmem_uint64_p(&g[me * PER + k], p, 0);
    }
    shmem_barrier_all();
    shmemx_arena_stats_t st;
    shmemx_arena_stats(a, me, &st);
    int mine = 0; /* blocks on me: PE 0 gets n * PER / 2 from the even k, and peers */
    for (int q = 0; q < n; q++)
        for (int k = 0; k < PER; k++) mine += (k % 2 ? (q + n / 2) % n : 0) == me;
    CHECK((int)st.blocks == mine, "arena_stats: %zu blocks on PE %d, want %d", st.blocks, me, mine);
    shmem_barrier_all();
    /* Check and free the blocks of the PE to my left: another PE than their allocator. */
    int left = (me + n - 1) % n;
    for (int k = 0; k < PER; k++) {
        shmemx_gptr_t p = shmem_uint64_g(&g[left * PER + k], 0);
        shmemx_gptr_get(back, p, sizeof back);
        CHECK(back[0] == left * 1000 + k * 10 && back[7] == left * 1000 + k * 10 + 7,
              "arena block %d of PE %d: %ld %ld", k, left, back[0], back[7]);
        shmemx_arena_free(a, p);
    }
    shmem_barrier_all();
    shmemx_arena_stats(a, (me + 1) % n, &st);
    CHECK(st.used == 0 && st.blocks == 0 && st.free == st.size && st.largest_free + 16 == st.size,
          "arena after free on PE %d: used %zu blocks %zu free %zu of %zu", (me + 1) % n, st.used,
          st.blocks, st.free, st.size);
    shmem_barrier_all();
    shmem_free(g);
    shmemx_arena_destroy(a);
    /* Exhaustion of a part on the other host: its allocator (the only one)
     * gets NULL when it is full, and every block back. */
    a = shmemx_arena_create(4096);
    shmemx_gptr_t blk[64];
    int got = 0;
    while (got < 64 && (blk[got] = shmemx_arena_alloc(a, 100, peer)) != SHMEMX_GPTR_NULL) got++;
    shmemx_arena_stats(a, peer, &st);
    CHECK(got > 16 && got < 64 && (int)st.blocks == got && st.largest_free < 100,
          "arena exhaustion on PE %d: %d blocks, stats %zu blocks, largest free %zu", peer, got,
          st.blocks, st.largest_free);
    while (got) shmemx_arena_free(a, blk[--got]);
    shmemx_arena_stats(a, peer, &st);
    CHECK(st.blocks == 0 && st.largest_free + 16 == st.size, "arena after freeing all on PE %d",
          peer);
    shmem_barrier_all();
    shmemx_arena_destroy(a);
}

/* distfail: PE 0 frees a block of the other host's part twice: the job
 * stops with the arena's one line naming the PE. */
static void distfail(int n)
{
    shmemx_arena_t a = shmemx_arena_create(4096);
    if (shmem_my_pe() == 0) {
        shmemx_gptr_t g = shmemx_arena_alloc(a, 64, n - 1);
        shmemx_arena_free(a, g);
        shmemx_arena_free(a, g);
        printf("mn_prog: double free not detected\n");
    }
    shmem_barrier_all();
    shmemx_arena_destroy(a);
}

/* MN_TIMES=1: what each call costs from PE 0 on its own part, a part on its
 * node and one on the other host (the figures in docs/placement.md). */
static void dist_times(int me, int n)
{
    shmemx_arena_t a = shmemx_arena_create(1 << 20);
    int targets[3] = { me, (me + 1) % (n / 2) + (me / (n / 2)) * (n / 2), (me + n / 2) % n };
    const char *names[3] = { "own", "same-node", "other-node" };
    shmem_barrier_all();
    if (me == 0)
        for (int t = 0; t < 3; t++) {
            double t0 = now_s();
            for (int i = 0; i < 200; i++) shmemx_arena_free(a, shmemx_arena_alloc(a, 64, targets[t]));
            printf("TIME arena alloc+free %s part: %.2f us\n", names[t], (now_s() - t0) / 200 * 1e6);
        }
    shmem_barrier_all();
    shmemx_arena_destroy(a);
    size_t per = 4096 / sizeof(long);
    long *z = shmemx_lazy_alloc(600 * per, sizeof(long), 0, SHMEMX_FILL_ELEM(lfill, NULL));
    long buf[512];
    if (me == 0)
        for (int t = 1; t < 3; t++) {
            double t0 = now_s();
            for (int i = 0; i < 200; i++) shmemx_lazy_touch(z + (size_t)(t * 200 + i) * per, 8, targets[t]);
            printf("TIME lazy_touch %s block: %.2f us\n", names[t], (now_s() - t0) / 200 * 1e6);
            t0 = now_s();
            for (int i = 0; i < 200; i++) shmemx_lazy_get(buf, z + (size_t)(i) * per, 4096, targets[t]);
            printf("TIME lazy_get %s never-filled 4 KiB: %.2f us\n", names[t], (now_s() - t0) / 200 * 1e6);
            t0 = now_s();
            for (int i = 0; i < 200; i++) shmemx_lazy_get(buf, z + (size_t)(t * 200 + i) * per, 4096, targets[t]);
            printf("TIME lazy_get %s open 4 KiB: %.2f us\n", names[t], (now_s() - t0) / 200 * 1e6);
        }
    shmem_barrier_all();
    shmemx_lazy_free(z);
    long *c = shmem_calloc(1 << 16, sizeof(long));
    shmem_barrier_all();
    if (me == 0)
        for (int t = 1; t < 3; t++) {
            double t0 = now_s();
            for (int i = 0; i < 200; i++) shmem_getmem(buf, c, 8, targets[t]);
            printf("TIME shmem_getmem 8 B %s: %.2f us\n", names[t], (now_s() - t0) / 200 * 1e6);
        }
    if (me == 0)
        for (int t = 1; t < 3; t++) {
            shmemx_cache_t ca = shmemx_cache_create(1 << 20, 4096, SHMEMX_CACHE_MANUAL);
            double t0 = now_s();
            for (int i = 0; i < 50; i++) shmemx_cache_getmem(ca, buf, c + i * 512, 8, targets[t]);
            double miss = (now_s() - t0) / 50 * 1e6;
            t0 = now_s();
            for (int i = 0; i < 50; i++) shmemx_cache_getmem(ca, buf, c + i * 512, 8, targets[t]);
            printf("TIME cache %s: miss (4 KiB line) %.2f us, hit %.3f us\n", names[t], miss, (now_s() - t0) / 50 * 1e6);
            shmemx_cache_destroy(ca);
        }
    shmem_barrier_all();
    shmem_free(c);
}

/* Strategies 1 and 2 on a plain symmetric array, then the rest. */
static void dist(int me, int n)
{
    long *s = shmem_malloc(500 * sizeof(long));
    shmemx_init_root(s, 500, sizeof(long), SHMEMX_FILL_ELEM(dfill, NULL), n - 1);
    CHECK(s[0] == dval(0) && s[499] == dval(499), "init_root: %ld %ld", s[0], s[499]);
    shmemx_init_local(s, 500, sizeof(long), SHMEMX_FILL_ELEM(lfill, NULL));
    long x = shmem_long_g(&s[42], (me + n / 2) % n);
    CHECK(x == 42 * 3 + ((me + n / 2) % n) * 100000, "init_local seen remotely: %ld", x);
    shmem_barrier_all();
    shmem_free(s);
    dist_layout(me, n, SHMEMX_LAYOUT_BLOCK, "block");
    dist_layout(me, n, SHMEMX_LAYOUT_CYCLIC, "cyclic");
    dist_layout(me, n, SHMEMX_LAYOUT_BLOCK_CYCLIC(3), "block-cyclic(3)");
    dist_layout(me, n, SHMEMX_LAYOUT_USER(user_owner, NULL), "user");
    dist_halo(me, n);
    dist_cache(me, n);
    dist_lazy(me, n);
    dist_arena(me, n);
    if (getenv("MN_TIMES")) dist_times(me, n);
}

/* The uid start-up (see the top), or shmem_init. */
static void start(void)
{
    const char *file = getenv("MN_UID_FILE");
    if (!file) {
        shmem_init();
        return;
    }
    int rank = atoi(getenv("MN_UID_RANK")), nranks = atoi(getenv("MN_UID_NRANKS"));
    shmemx_uniqueid_t id;
    if (rank == 0) {
        char tmp[4096];
        shmemx_get_uniqueid(&id);
        snprintf(tmp, sizeof tmp, "%s.tmp", file);
        FILE *f = fopen(tmp, "w");
        if (!f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0 || rename(tmp, file)) {
            fprintf(stderr, "mn_prog: cannot write %s\n", file);
            exit(1);
        }
    } else {
        FILE *f = NULL;
        for (int i = 0; i < 1000 && !(f = fopen(file, "r")); i++) {
            struct timespec t = { 0, 10 * 1000 * 1000 };
            nanosleep(&t, NULL);
        }
        if (!f || fread(&id, sizeof id, 1, f) != 1) {
            fprintf(stderr, "mn_prog: rank %d: no ID in %s\n", rank, file);
            exit(1);
        }
        fclose(f);
    }
    shmemx_init_uniqueid(&id, rank, nranks);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "rma";
    start();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *probe = shmem_calloc(1, sizeof(int));
    int remote = 0;
    for (int pe = 0; pe < n; pe++) remote += shmem_ptr(probe, pe) == NULL;
    shmem_barrier_all();
    if (!strcmp(mode, "rma")) {
        CHECK(remote > 0 && remote < n, "%d of %d PEs have no shmem_ptr: not on two hosts",
              remote, n);
        rma(me, n);
        int bad = shmem_int_atomic_fetch_add(probe, fails, 0);
        (void)bad;
        shmem_barrier_all();
        if (me == 0 && *probe == 0 && !fails)
            printf("mn_prog: rma ok, %d PEs, %d remote\n", n, remote);
        if (me == 0 && *probe) fprintf(stderr, "mn_prog: %d check(s) failed\n", *probe);
    } else if (!strcmp(mode, "coll")) {
        CHECK(remote > 0 && remote < n, "%d of %d PEs have no shmem_ptr: not on two hosts",
              remote, n);
        coll(me, n);
        shmem_int_atomic_fetch_add(probe, fails, 0);
        shmem_barrier_all();
        if (me == 0 && *probe == 0 && !fails)
            printf("mn_prog: coll ok, %d PEs, %d remote\n", n, remote);
        if (me == 0 && *probe) fprintf(stderr, "mn_prog: %d check(s) failed\n", *probe);
    } else if (!strcmp(mode, "aset") || !strcmp(mode, "selftest") || !strcmp(mode, "dist")) {
        CHECK(remote > 0 && remote < n, "%d of %d PEs have no shmem_ptr: not on two hosts",
              remote, n);
        if (mode[0] == 'a') aset(n);
        else if (mode[0] == 'd') dist(me, n);
        else selftest(me, n);
        shmem_int_atomic_fetch_add(probe, fails, 0);
        shmem_barrier_all();
        if (me == 0 && *probe == 0 && !fails)
            printf("mn_prog: %s ok, %d PEs, %d remote\n", mode, n, remote);
        if (me == 0 && *probe) fprintf(stderr, "mn_prog: %d check(s) failed\n", *probe);
    } else if (!strcmp(mode, "distfail")) {
        distfail(n);
        return 3;
    } else if (!strcmp(mode, "mismatch")) {
        /* PE `odd` (argv[3]) allocates another size: its leader or the next
         * node's leader must stop the job with both calls named */
        int odd = argc > 3 ? atoi(argv[3]) : n - 1;
        void *p = shmem_malloc(me == odd ? 128 : 64);
        shmem_free(p);
        printf("mn_prog: mismatch not detected on PE %d\n", me);
        return 3;
    } else if (!strcmp(mode, "kill")) {
        printf("ready %d %ld\n", me, (long)getpid());
        fflush(stdout);
        shmem_barrier_all();
        if (me == n - 1 && n > 1) raise(SIGKILL);
        shmem_barrier_all(); /* never completes with n > 1 */
        if (n > 1) return 2;
    } else if (!strcmp(mode, "hang")) {
        /* every PE waits in a barrier that the last one never joins: the job
         * runs until it is cancelled (scancel) */
        printf("ready %d %ld\n", me, (long)getpid());
        fflush(stdout);
        shmem_barrier_all();
        if (me == n - 1) for (;;) pause();
        shmem_barrier_all();
        return 2;
    } else if (!strcmp(mode, "traffic")) {
        /* puts, gets and barriers to the neighbours until the job is ended
         * from outside (the test takes the link between the hosts down) */
        long *w = shmem_calloc(1, sizeof *w);
        printf("ready %d %ld\n", me, (long)getpid());
        fflush(stdout);
        shmem_barrier_all();
        for (long i = 1;; i++) {
            shmem_long_p(w, i, (me + 1) % n);
            (void)shmem_long_g(w, (me + n - 1) % n);
            shmem_barrier_all();
        }
    } else if (!strcmp(mode, "getloop") || !strcmp(mode, "getloop0")) {
        /* PE 0 gets from the last PE (getloop0: the last from PE 0) until
         * the job is ended from outside (the test stops the PE asked); the
         * others wait in a barrier */
        int from = mode[7] == '0' ? n - 1 : 0, to = from == 0 ? n - 1 : 0;
        long *w = shmem_calloc(1, sizeof *w);
        printf("ready %d %ld\n", me, (long)getpid());
        fflush(stdout);
        shmem_barrier_all();
        if (me == from)
            for (long i = 1;; i++) (void)shmem_long_g(w, to);
        shmem_barrier_all();
    } else if (!strcmp(mode, "quietloop")) {
        /* PE 0 puts to the last PE and waits for completion until the job
         * is ended from outside (the test stops the last PE) */
        long *w = shmem_calloc(1, sizeof *w);
        printf("ready %d %ld\n", me, (long)getpid());
        fflush(stdout);
        shmem_barrier_all();
        if (me == 0)
            for (long i = 1;; i++) {
                shmem_long_put_nbi(w, &i, 1, n - 1);
                shmem_quiet();
            }
        shmem_barrier_all();
    } else {
        fprintf(stderr, "mn_prog: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_free(probe);
    shmem_finalize();
    return fails ? 1 : 0;
}
