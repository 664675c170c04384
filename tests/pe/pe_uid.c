/* pe_uid.c - start-up without a launcher: a unique ID made by one process,
 * handed to the PEs by fork (as torchrun or multiprocessing would hand it
 * around), shmemx_init_uniqueid / nvshmemx_init_attr in each.  Run directly,
 * never under symrun:
 *
 *   pe_uid ok N          a maker process (not a PE) makes the ID, N children
 *                        are the PEs: RMA, AMOs, a reduction, malloc/free
 *   pe_uid root N        the maker is rank 0 itself, N-1 children the rest
 *                        (forked before the ID exists, sent it over a pipe)
 *   pe_uid nvshmem N     as ok, through nvshmemx_get_uniqueid and
 *                        nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID)
 *   pe_uid kill N        rank N-1 kills itself (SIGKILL) after init, the
 *                        others wait in a barrier: every PE must end
 *   pe_uid missing N     rank N-1 never starts (SHMEM_BOOTSTRAP_TIMEOUT=2)
 *   pe_uid twice N       two children say rank 0
 *   pe_uid nranks N      the last child says nranks N+1
 *   pe_uid late N        rank 1 says nranks N+1 and rank N-1 starts 1 s later,
 *                        after the job was ended: it must be told, not wait
 *   pe_uid root_dies N   the maker (not a PE) dies after the PEs started
 *   pe_uid abort N       rank 1 calls shmem_global_exit(7): every PE exits 7
 *
 * The parent waits for every child (a watchdog ends them after 60 s) and
 * exits 0 when each ended as the case expects; the message is for ctest's
 * PASS_REGULAR_EXPRESSION. */
#include <shmem.h>
#include <shmemx.h>
#include <symheap/nvshmemx.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...) (fprintf(stderr, "pe_uid: " __VA_ARGS__), fputc('\n', stderr), 1)

static const char *mode;
static int n;

/* The work of a PE: ring put, fetch-add on PE 0, a sum, malloc/free. */
static int work(int rank)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (me != rank || np != n) return FAIL("PE %d of %d, expected %d of %d", me, np, rank, n);
    long *ring = shmem_calloc(1, sizeof(long));
    long *count = shmem_calloc(1, sizeof(long));
    int *sum = shmem_malloc(sizeof(int));
    long v = 1000 + me;
    shmem_long_put(ring, &v, 1, (me + 1) % np);
    shmem_long_atomic_fetch_add(count, 1, 0);
    shmem_barrier_all();
    if (*ring != 1000 + (me + np - 1) % np) return FAIL("PE %d: ring=%ld", me, *ring);
    if (me == 0 && *count != np) return FAIL("count=%ld, expected %d", *count, np);
    *sum = me;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, sum, sum, 1);
    if (*sum != np * (np - 1) / 2) return FAIL("PE %d: sum=%d", me, *sum);
    shmem_free(sum);
    shmem_free(count);
    shmem_free(ring);
    return 0;
}

static int pe(const shmemx_uniqueid_t *id, int rank, int nranks)
{
    if (!strcmp(mode, "nvshmem")) {
        nvshmemx_uniqueid_t nid = NVSHMEMX_UNIQUEID_INITIALIZER;
        memcpy(nid.internal, id->internal, sizeof nid.internal);
        nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
        nvshmemx_set_attr_uniqueid_args(rank, nranks, &nid, &attr);
        if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) return 1;
        if (nvshmem_my_pe() != rank) return FAIL("nvshmem_my_pe=%d", nvshmem_my_pe());
    } else {
        if (!strcmp(mode, "late") && rank == n - 1) {
            struct timespec t = { 1, 0 }; /* the others have ended the job by now */
            nanosleep(&t, NULL);
        }
        shmemx_init_uniqueid(id, rank, nranks);
    }
    if (!strcmp(mode, "kill") && rank == n - 1) raise(SIGKILL);
    if (!strcmp(mode, "abort") && rank == 1) shmem_global_exit(7);
    if (!strcmp(mode, "kill") || !strcmp(mode, "abort") || !strcmp(mode, "root_dies")) {
        int *never = shmem_calloc(1, sizeof(int)); /* kill, abort: a PE never comes */
        shmem_int_wait_until(never, SHMEM_CMP_EQ, 1); /* nobody sets it: the job must end */
        return FAIL("PE %d: a wait that nothing can end ended", rank);
    }
    int rc = work(rank);
    shmem_finalize();
    return rc;
}

static volatile sig_atomic_t timed_out;
static void on_alarm(int s) { (void)s; timed_out = 1; }

int main(int argc, char **argv)
{
    if (argc != 3 || (n = atoi(argv[2])) < 2) {
        fprintf(stderr, "usage: pe_uid MODE N (N >= 2)\n");
        return 2;
    }
    mode = argv[1];
    int as_root = !strcmp(mode, "root");
    if (!strcmp(mode, "missing")) setenv("SHMEM_BOOTSTRAP_TIMEOUT", "2", 1);

    /* The ID comes from a maker: this process (root), or a child that makes
     * it, sends it over a pipe and serves until told to end (any other). */
    shmemx_uniqueid_t id;
    pid_t maker = -1;
    int idpipe[2] = { -1, -1 }; /* root: the ID to the children, made after they forked */
    if (as_root) {
        /* The children are forked before the ID (and its rendezvous thread)
         * exists: a fork while that thread holds a lock (ASan's allocator's,
         * seen) would leave the child deadlocked on it. */
        if (pipe(idpipe)) return FAIL("pipe");
    } else {
        int p[2], q[2];
        if (pipe(p) || pipe(q)) return FAIL("pipe");
        if ((maker = fork()) == 0) {
            close(p[0]);
            close(q[1]);
            shmemx_get_uniqueid(&id);
            if (write(p[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(3);
            char c;
            /* serve the rendezvous until the parent closes q (or kills us) */
            while (read(q[0], &c, 1) > 0) {}
            _exit(0);
        }
        close(p[1]);
        close(q[0]);
        if (read(p[0], &id, sizeof id) != (ssize_t)sizeof id) return FAIL("no ID from maker");
        close(p[0]);
        (void)q[1]; /* kept open while the PEs run; closed at exit */
    }

    int nkids = as_root ? n - 1 : !strcmp(mode, "missing") ? n - 1 : n;
    pid_t kids[64];
    for (int k = 0; k < nkids && k < 64; k++) {
        int rank = as_root ? k + 1 : k;
        int nranks = !strcmp(mode, "nranks") && k == nkids - 1 ? n + 1 : n;
        if (!strcmp(mode, "late") && k == 1) nranks = n + 1;
        if (!strcmp(mode, "twice") && k == 1) rank = 0;
        if ((kids[k] = fork()) == 0) {
            if (as_root) {
                close(idpipe[1]);
                if (read(idpipe[0], &id, sizeof id) != (ssize_t)sizeof id) _exit(4);
            }
            _exit(pe(&id, rank, nranks));
        }
    }
    if (as_root) { /* one record per child, each written whole (< PIPE_BUF) */
        _Static_assert(sizeof id <= 512, "an ID fits a pipe's atomic write");
        close(idpipe[0]);
        shmemx_get_uniqueid(&id);
        for (int k = 0; k < nkids; k++)
            if (write(idpipe[1], &id, sizeof id) != (ssize_t)sizeof id) return FAIL("write ID");
        close(idpipe[1]);
    }
    if (!strcmp(mode, "root_dies")) {
        struct timespec t = { 1, 0 }; /* the PEs are in their barrier by now */
        nanosleep(&t, NULL);
        kill(maker, SIGKILL);
    }
    int root_rc = as_root ? pe(&id, 0, n) : 0;

    signal(SIGALRM, on_alarm);
    alarm(60);
    int bad = 0, codes[64];
    for (int k = 0; k < nkids; k++) {
        int st;
        while (waitpid(kids[k], &st, 0) < 0)
            if (timed_out) {
                for (int j = 0; j < nkids; j++) kill(kids[j], SIGKILL);
                timed_out = 0;
            }
        codes[k] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    if (maker > 0) {
        kill(maker, SIGTERM);
        waitpid(maker, NULL, 0);
    }
    int expect_ok = !strcmp(mode, "ok") || as_root || !strcmp(mode, "nvshmem");
    for (int k = 0; k < nkids; k++) {
        int rank = as_root ? k + 1 : k, want = expect_ok ? 0 : -1;
        if (!strcmp(mode, "abort")) want = 7;
        if (!strcmp(mode, "kill") && rank == n - 1) want = 128 + SIGKILL;
        if (want == -1 ? codes[k] == 0 : codes[k] != want)
            bad += FAIL("%s: child %d (rank %d) exited %d, expected %s%d", mode, k, rank,
                        codes[k], want == -1 ? "non-zero, not " : "", want == -1 ? 0 : want);
    }
    if (root_rc) bad += FAIL("%s: rank 0 (the maker) failed", mode);
    if (!bad) printf("pe_uid %s %d: ok\n", mode, n);
    return bad ? 1 : 0;
}
