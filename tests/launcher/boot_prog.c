/* boot_prog.c - a PE program for the launcher tests: the bootstrap alone.
 *
 * Links only shmi_boot and shmi_util (no heap, no transport), so symrun and
 * the bootstrap are tested before the rest of the library exists.
 *
 *   boot_prog MODE [ARG] [MARKER...]   (arguments after ARG are ignored: the
 *                                       tests put a unique marker there for
 *                                       pgrep)
 * Modes: gather N, gathersmall N (blocks up to 4 KiB), gatherintr N (gather
 * under a 200 us SIGALRM storm: EINTR everywhere), fds N (rounds of 4
 * memfds per PE), fdsmany K (one round of K per PE, K = 0 allowed), addr, print N, sleep, init, nested, barrier (two), plain
 * [CODE] (never calls init); failure modes, after a first barrier, by the last PE (highest
 * rank) while the others block in a barrier: abort CODE, segv, kill, nofini,
 * finiearly, exit CODE (after fini), mismatch (PE 0 gathers 8 bytes, the
 * others 16); blame (the last PE SIGKILLs itself while symrun is stopped,
 * the others then exit 1: see mode_blame). */
#include "bootstrap/boot.h"
#include "util/err.h"
#include "util/log.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static shmi_boot_t boot;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "[pe %d] boot_prog: FAILED %s (%s:%d): ",     \
                    boot.rank, #cond, __FILE__, __LINE__);                 \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static void barrier(void)
{
    int rc = shmi_boot_barrier(&boot);
    CHECK(rc == 0, "barrier: %s", shmi_strerror(rc));
}

static int last(void) { return boot.rank == boot.size - 1; }

static unsigned char pattern(int rank, int iter, size_t i)
{
    return (unsigned char)(rank * 131 + iter * 7 + (int)(i % 251));
}

/* pattern(rank, iter, i) for i < len into buf: the first period (251
 * bytes) byte by byte, the rest by doubling copies, so that a sanitizer
 * build checks whole ranges instead of every byte (1 MiB per PE and
 * iteration: launcher_gather_np8 took over 60 s under TSan on 2 CPUs). */
static void fill_pattern(unsigned char *buf, int rank, int iter, size_t len)
{
    size_t k = len < 251 ? len : 251;
    for (size_t i = 0; i < k; i++) buf[i] = pattern(rank, iter, i);
    while (k < len) {
        size_t c = k <= len - k ? k : len - k;
        memcpy(buf + k, buf, c);
        k += c;
    }
}

/* The test times how long symrun takes to end the job after the failure,
 * not the start-up before it (slow under TSan on a loaded machine): the
 * failing PE prints the wall time in ms just before it fails. */
static void failing_now(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    printf("failing %lld\n", (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000);
    fflush(stdout);
}

/* allgather + barrier, sizes 0 .. max (1 MiB), sometimes in place. */
static int mode_gather(long iters, size_t max)
{
    static const size_t sizes[] = { 0, 1, 3, 8, 4096, 65536, 1 << 20, 17 };
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    for (int it = 0; it < iters; it++) {
        size_t len = sizes[it % ns];
        if (len > max) len = it % 2;
        unsigned char *out = malloc(len * (size_t)boot.size + 1);
        unsigned char *in = (it & 1) ? out + len * (size_t)boot.rank : malloc(len + 1);
        CHECK(out && in, "out of memory");
        unsigned char *want = malloc(len + 1);
        CHECK(want, "out of memory");
        fill_pattern(in, boot.rank, it, len);
        int rc = shmi_boot_allgather(&boot, in, out, len);
        CHECK(rc == 0, "allgather of %zu bytes: %s", len, shmi_strerror(rc));
        for (int r = 0; r < boot.size; r++) {
            const unsigned char *got = out + (size_t)r * len;
            fill_pattern(want, r, it, len);
            if (memcmp(got, want, len) == 0) continue;
            size_t i = 0;
            while (got[i] == want[i]) i++;
            CHECK(0, "iteration %d, %zu bytes: byte %zu of PE %d is %d, expected %d", it, len, i,
                  r, got[i], want[i]);
        }
        free(want);
        if (!(it & 1)) free(in);
        free(out);
        barrier();
    }
    return 0;
}

/* SIGALRM every 200 us without SA_RESTART: every blocking call of the
 * bootstrap sees EINTR and must carry on. */
static void on_alarm(int sig) { (void)sig; }

static int mode_gather_eintr(long iters)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    struct itimerval it = { { 0, 200 }, { 0, 200 } };
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0 && setitimer(ITIMER_REAL, &it, NULL) == 0, "timer");
    int rc = mode_gather(iters, 1 << 20);
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
    return rc;
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

/* Each PE makes K memfds holding its values; after the exchange every PE
 * reads every peer's value through the received descriptors. */
static int mode_fds(long rounds, int K)
{
    int before = count_fds();
    for (int rd = 0; rd < rounds; rd++) {
        int *mine = malloc(sizeof(int) * (size_t)K + 1), *all = malloc(sizeof(int) * (size_t)K * (size_t)boot.size + 1);
        CHECK(all && mine, "out of memory");
        for (int k = 0; k < K; k++) {
            int v = boot.rank * K + k + rd * 100000;
            mine[k] = memfd_create("boot_prog", MFD_CLOEXEC);
            CHECK(mine[k] >= 0 && pwrite(mine[k], &v, sizeof v, 0) == sizeof v, "memfd");
        }
        int rc = boot.ops->exchange_fds(&boot, mine, K, all);
        CHECK(rc == 0, "exchange_fds: %s", shmi_strerror(rc));
        for (int i = 0; i < boot.size * K; i++) {
            int v = -1;
            CHECK(all[i] >= 0 && pread(all[i], &v, sizeof v, 0) == sizeof v, "read fd %d", i);
            CHECK(v == i + rd * 100000, "descriptor %d of PE %d holds %d", i % K, i / K, v);
            close(all[i]);
        }
        for (int k = 0; k < K; k++) close(mine[k]);
        free(all);
        free(mine);
        barrier();
    }
    CHECK(count_fds() == before, "descriptors leaked: %d before, %d after", before, count_fds());
    return 0;
}

/* Addresses of a global, code, brk heap and a fresh mapping: equal on all PEs
 * unless address randomization is on. */
static int mode_addr(void)
{
    static int global;
    void *heap = malloc(64), *map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t mine[4] = { (uintptr_t)&global, (uintptr_t)&mode_addr, (uintptr_t)heap, (uintptr_t)map };
    uintptr_t *all = malloc(sizeof mine * (size_t)boot.size);
    CHECK(all && shmi_boot_allgather(&boot, mine, all, sizeof mine) == 0, "allgather");
    int same = 1;
    for (int r = 0; r < boot.size; r++) same &= memcmp(all + 4 * r, mine, sizeof mine) == 0;
    if (boot.rank == 0) printf("layout %s\n", same ? "same" : "differs");
    free(all);
    free(heap);
    munmap(map, 4096);
    return 0;
}

static int mode_print(long lines)
{
    for (long i = 0; i < lines; i++) printf("line %ld of pe %d\n", i, boot.rank);
    fflush(stdout);
    fprintf(stderr, "partial of pe %d", boot.rank); /* no newline: symrun flushes it */
    barrier();
    return 0;
}

/* Never returns: for the timeout, signal and SIGKILL tests. */
static _Noreturn void mode_sleep(void)
{
    printf("ready %d %ld\n", boot.rank, (long)getpid());
    fflush(stdout);
    for (;;) pause();
}

/* A child of an initialized PE sees SYMRUN_* but not the (close-on-exec)
 * socket: its init must fail clearly (boot_prog exits 3), not hang. */
static int mode_nested(void)
{
    int st;
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        execl("/proc/self/exe", "boot_prog", "init", (char *)NULL);
        _exit(99);
    }
    CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "nested init: wait status %#x", st);
    barrier();
    return 0;
}

/* The state letter of /proc/PID/stat (after the last ')'), '?' if gone. */
static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

/* Wait (up to 30 s) until pid is in one of the states (a gone pid counts as
 * any); 1 if it got there. */
static int wait_state(pid_t pid, const char *states)
{
    for (int i = 0; i < 30000; i++) {
        char c = proc_state(pid);
        if (c == '?' || strchr(states, c)) return 1;
        usleep(1000);
    }
    return 0;
}

/* The blame rule (issue 17, item 9), made deterministic: symrun is stopped
 * (SIGSTOP) while the last PE kills itself with SIGKILL and every other PE,
 * having seen it dead, exits 1 "in consequence"; a child of PE 0 continues
 * symrun once all are dead.  symrun then finds every PE dead at once, PE 0
 * first in its wait order: it must still name the killed PE (137). */
static int mode_blame(void)
{
    pid_t me = getpid(), symrun = getppid();
    pid_t *pids = malloc(sizeof *pids * (size_t)boot.size);
    CHECK(pids, "out of memory");
    sigset_t rt;
    sigemptyset(&rt);
    sigaddset(&rt, SIGRTMIN);
    sigprocmask(SIG_BLOCK, &rt, NULL); /* queued for PE 0 until it waits */
    int rc = shmi_boot_allgather(&boot, &me, pids, sizeof me);
    CHECK(rc == 0, "allgather: %s", shmi_strerror(rc));
    barrier();
    /* symrun may stop only once every PE has its barrier reply: each tells
     * PE 0 with a queued signal */
    if (boot.rank != 0) {
        CHECK(sigqueue(pids[0], SIGRTMIN, (union sigval){ 0 }) == 0, "sigqueue");
    } else {
        struct timespec t = { 30, 0 };
        for (int r = 1; r < boot.size; r++)
            CHECK(sigtimedwait(&rt, NULL, &t) == SIGRTMIN, "PE %d of %d never said it is past the barrier", r, boot.size);
        kill(symrun, SIGSTOP);
    }
    CHECK(wait_state(symrun, "Tt"), "symrun never stopped");
    if (last()) raise(SIGKILL);
    CHECK(wait_state(pids[boot.size - 1], "Z"), "the last PE never died");
    if (boot.rank == 0) {
        pid_t helper = fork();
        CHECK(helper >= 0, "fork");
        if (helper == 0) { /* waits for PE 0 .. n-2 to be dead, then continues symrun */
            for (int fd = 3; fd < 1024; fd++) close(fd);
            for (int r = 0; r < boot.size - 1; r++) wait_state(pids[r], "Z");
            kill(symrun, SIGCONT);
            _exit(0);
        }
    }
    _exit(1); /* the consequence: a failed PE, before finalize */
}

static int run(const char *mode, long arg)
{
    if (!strcmp(mode, "gather")) return mode_gather(arg ? arg : 50, 1 << 20);
    if (!strcmp(mode, "gathersmall")) return mode_gather(arg ? arg : 50, 4096);
    if (!strcmp(mode, "gatherintr")) return mode_gather_eintr(arg ? arg : 50);
    if (!strcmp(mode, "fds")) return mode_fds(arg ? arg : 3, 4);
    if (!strcmp(mode, "fdsmany")) return mode_fds(1, (int)arg);
    if (!strcmp(mode, "addr")) return mode_addr();
    if (!strcmp(mode, "print")) return mode_print(arg);
    if (!strcmp(mode, "sleep")) mode_sleep();
    if (!strcmp(mode, "init")) return 0;
    if (!strcmp(mode, "nested")) return mode_nested();
    if (!strcmp(mode, "blame")) return mode_blame();
    barrier(); /* the failure modes: everybody is up, then the last PE fails */
    if (last() && (!strcmp(mode, "abort") || !strcmp(mode, "segv") || !strcmp(mode, "kill")))
        failing_now();
    if (!strcmp(mode, "abort") && last()) {
        char msg[64];
        snprintf(msg, sizeof msg, "[pe %d] boot_prog: aborting on purpose\n", boot.rank);
        shmi_boot_abort(&boot, (int)arg, msg);
        _exit((int)arg);
    }
    if (!strcmp(mode, "segv") && last()) raise(SIGSEGV);
    if (!strcmp(mode, "kill") && last()) raise(SIGKILL);
    if (!strcmp(mode, "nofini") && last()) exit(0);
    if (!strcmp(mode, "finiearly") && last()) {
        shmi_boot_fini(&boot);
        exit(0);
    }
    if (!strcmp(mode, "exit")) {
        shmi_boot_fini(&boot);
        exit(last() ? (int)arg : 0);
    }
    if (!strcmp(mode, "mismatch")) {
        char in[16] = { 0 }, *out = malloc(16 * (size_t)boot.size);
        shmi_boot_allgather(&boot, in, out, boot.rank == 0 ? 8 : 16);
        free(out);
    }
    barrier(); /* the others block here until symrun ends them */
    return 0;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 2) {
        fprintf(stderr, "usage: boot_prog MODE [ARG] [MARKER...]\n");
        return 2;
    }
    if (!strcmp(argv[1], "plain")) { /* a program that never calls init */
        printf("plain %s\n", getenv("SYMRUN_RANK") ? getenv("SYMRUN_RANK") : "?");
        return argc > 2 ? atoi(argv[2]) : 0;
    }
    int rc = shmi_boot_init(&boot, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "boot_prog: %s\n", err);
        return 3;
    }
    shmi_log_pe = boot.rank;
    rc = run(argv[1], argc > 2 ? atol(argv[2]) : 0);
    shmi_boot_fini(&boot);
    return rc;
}
