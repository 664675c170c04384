/* symrun.c - the launcher: starts N PEs, serves their bootstrap, ends the job.
 *
 *   symrun -n N [-l] [--timeout SECONDS] [--aslr] [--] PROGRAM [ARGS...]
 *
 * Each PE is fork+exec'd with one end of its own unix socketpair (SYMRUN_FD)
 * and SYMRUN_RANK/SYMRUN_SIZE/SYMRUN_PID.  One poll() loop watches all
 * sockets (the protocol itself is in symrun_serve.c), the output pipes of
 * --prefix and a self-pipe fed by the signal handlers.  All socket I/O is
 * non-blocking: a slow or stopped PE never stalls the others, the timeout or
 * a signal.  symrun depends on libc only and creates no files.
 *
 * Invariants:
 *  - Nothing is left behind: every PE gets PR_SET_PDEATHSIG(SIGKILL) (so
 *    SIGKILL of symrun ends them) and symrun exits only after reaping all.
 *  - The first failure decides the exit status and prints the only line
 *    (a PE killed by a signal, a non-zero exit, an abort, a PE that left
 *    without shmem_finalize, a protocol error, timeout, SIGINT/TERM/HUP);
 *    then every PE gets SIGTERM and, TERM_GRACE_MS later, SIGKILL.
 *  - The blame rule: a PE that exits non-zero, leaves unfinalized or aborts
 *    may only be failing because a peer died (its barrier broke, its GPU
 *    context went with the peer's).  Such a failure is held BLAME_GRACE_MS
 *    (symrun_blame); a PE killed by a signal meanwhile is the one reported.
 *  - A PE's exit is judged only after its socket and pipes are drained: all
 *    it wrote (a FINI, an ABORT, its last output line) is there by then.
 *  - PEs start with ADDR_NO_RANDOMIZE unless --aslr: the same executable
 *    without randomization is mapped at the same addresses in every PE,
 *    which symmetric globals and the agreed heap base rely on.
 *  - When 2 or more PEs fit the CPUs symrun may use, each PE is bound to a
 *    CPU of its own (--bind-to, plan_binding), as mpirun does: two PEs the
 *    kernel placed on one CPU stay there while other processes keep the
 *    other CPUs busy, and every wait of one for the other then costs a
 *    scheduler tick (bench/waits.sh --load --only halo: 341 MFlop/s in the
 *    launches where that happened, 4,700-6,800 bound). */
#include "symrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYMHEAP_VERSION
#define SYMHEAP_VERSION "unknown"
#endif

enum {
    MAX_PES = 4096,
    TERM_GRACE_MS = 400, /* SIGTERM .. SIGKILL: everything ends within ~1 s */
    EOF_GRACE_MS = 500,  /* socket closed but process alive: wait for the exit */
    LINE_BYTES = 65536,  /* --prefix: longer lines are split */
    BLAME_GRACE_MS = 200, /* a failure waits this long for a signal death to blame */
};

static const int handled[NHANDLED] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
static int sig_wfd = -1;

/* ---- small helpers ------------------------------------------------------- */

int64_t symrun_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void write_all(int fd, struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t n = writev(fd, iov, cnt);
        if (n < 0) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            if (errno == EAGAIN) poll(&p, 1, 100);
            else if (errno != EINTR) return; /* our stdout is gone: drop */
            continue;
        }
        for (; cnt > 0 && (size_t)n >= iov->iov_len; iov++, cnt--) n -= (ssize_t)iov->iov_len;
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    struct iovec iov = { buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1 };
    write_all(2, &iov, 1);
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static const char *sig_name(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);
    snprintf(buf, sizeof buf, "SIG%s", abbrev ? abbrev : "?");
    return buf;
}

/* ---- ending the job ------------------------------------------------------ */

static void signal_all(struct job *j, int sig)
{
    for (int i = 0; i < j->o.n; i++)
        if (j->pe[i].running) kill(j->pe[i].pid, sig);
}

void symrun_fail(struct job *j, int status, int culprit, const char *fmt, ...)
{
    char cause[1536];
    if (j->ending) return;
    j->ending = 1;
    j->held.at = 0; /* this cause wins over one held back */
    j->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cause, sizeof cause, fmt, ap);
    va_end(ap);
    int k = j->running - (culprit >= 0 && j->pe[culprit].running);
    if (k > 0)
        say("symrun: %s; ending the %s%d PE%s\n", cause, culprit >= 0 ? "other " : "", k, plural(k));
    else
        say("symrun: %s\n", cause);
    signal_all(j, SIGTERM);
    j->kill_at = symrun_now_ms() + TERM_GRACE_MS;
}

void symrun_blame(struct job *j, int status, int culprit, const char *fmt, ...)
{
    if (j->ending || j->held.at) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->held.cause, sizeof j->held.cause, fmt, ap);
    va_end(ap);
    j->held.status = status;
    j->held.culprit = culprit;
    j->held.at = symrun_now_ms() + BLAME_GRACE_MS;
}

/* Report what is held once its time has come, or when no PE is left that
 * could still turn out to be the cause. */
static void blame_due(struct job *j, int64_t now)
{
    if (!j->held.at || j->ending || (now < j->held.at && j->running > 0)) return;
    j->held.at = 0;
    symrun_fail(j, j->held.status, j->held.culprit, "%s", j->held.cause);
}

/* ---- --prefix output ----------------------------------------------------- */

static void lb_emit(const struct pe *p, const struct lbuf *l, char *s, size_t n)
{
    char pre[32];
    int m = snprintf(pre, sizeof pre, "[pe %d] ", p->rank);
    struct iovec iov[3] = { { pre, (size_t)m }, { s, n }, { "\n", 1 } };
    write_all(l->dst, iov, 3);
}

/* Emit complete lines; a full buffer without a newline is emitted as one. */
static void lb_lines(struct pe *p, struct lbuf *l)
{
    size_t start = 0;
    for (size_t i = 0; i < l->len; i++) {
        if (l->buf[i] != '\n') continue;
        lb_emit(p, l, l->buf + start, i - start);
        start = i + 1;
    }
    memmove(l->buf, l->buf + start, l->len - start);
    l->len -= start;
    if (l->len == LINE_BYTES) {
        lb_emit(p, l, l->buf, l->len);
        l->len = 0;
    }
}

static int lb_read(struct pe *p, struct lbuf *l)
{
    if (!l->buf && !(l->buf = malloc(LINE_BYTES))) return -1;
    ssize_t n = read(l->fd, l->buf + l->len, LINE_BYTES - l->len);
    if (n < 0) return errno == EINTR ? 1 : errno == EAGAIN ? 0 : -1;
    if (n == 0) return -1;
    l->len += (size_t)n;
    lb_lines(p, l);
    return 1;
}

static void lb_close(struct pe *p, struct lbuf *l)
{
    if (l->fd < 0) return;
    if (l->len) lb_emit(p, l, l->buf, l->len); /* partial last line, newline added */
    l->len = 0;
    close(l->fd);
    l->fd = -1;
    free(l->buf);
    l->buf = NULL;
}

/* ---- process exit ---------------------------------------------------------- */

static void judge(struct job *j, struct pe *p)
{
    int st = p->status;
    const char *prog = j->o.argv[0];
    if (p->exec_errno) {
        symrun_fail(j, p->exec_errno == ENOENT ? 127 : 126, p->rank, "cannot run '%s': %s", prog,
             strerror(p->exec_errno));
    } else if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        symrun_fail(j, 128 + sig, p->rank, "PE %d (pid %ld) was killed by signal %d (%s, %s)%s",
             p->rank, (long)p->pid, sig, sig_name(sig), strsignal(sig),
             WCOREDUMP(st) ? ", core dumped" : "");
    } else if (WEXITSTATUS(st) != 0) {
        symrun_blame(j, WEXITSTATUS(st), p->rank, "PE %d (pid %ld) exited with status %d%s", p->rank,
             (long)p->pid, WEXITSTATUS(st),
             p->connected && !p->finalized ? " before shmem_finalize" : "");
    } else if (p->connected && !p->finalized) {
        symrun_blame(j, 1, p->rank, "PE %d (pid %ld) exited without calling shmem_finalize", p->rank,
             (long)p->pid);
    }
}

/* The process is gone, so all it wrote is in the socket and pipes: drain
 * them (a FINI or ABORT may be there), then judge the exit. */
static void pe_exited(struct job *j, struct pe *p, int st)
{
    p->running = 0;
    p->status = st;
    j->running--;
    if (p->sock >= 0) symrun_pe_read(j, p);
    symrun_pe_close_sock(p);
    for (int k = 0; k < 2; k++) {
        while (p->io[k].fd >= 0 && lb_read(p, &p->io[k]) > 0) {}
        lb_close(p, &p->io[k]);
    }
    judge(j, p);
}

static void reap(struct job *j)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
        for (int i = 0; i < j->o.n; i++)
            if (j->pe[i].running && j->pe[i].pid == pid) pe_exited(j, &j->pe[i], st);
}

/* ---- signals --------------------------------------------------------------- */

static void on_signal(int sig)
{
    int e = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t r = write(sig_wfd, &c, 1); /* full pipe: a wakeup is pending anyway */
    (void)r;
    errno = e;
}

static int signals_init(struct job *j)
{
    if (pipe2(j->sig, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    sig_wfd = j->sig[1];
    sigprocmask(SIG_SETMASK, NULL, &j->mask);
    for (int i = 0; i < NHANDLED; i++) {
        int sig = handled[i];
        struct sigaction sa = { .sa_handler = sig == SIGPIPE ? SIG_IGN : on_signal,
                                .sa_flags = SA_RESTART };
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, NULL, &j->old[i]) != 0) return -1;
        /* ignored when we started (nohup, a script's background job): the
         * user asked for that signal not to end the job, so keep it so */
        if (sig != SIGCHLD && sig != SIGPIPE && j->old[i].sa_handler == SIG_IGN) continue;
        if (sigaction(sig, &sa, NULL) != 0) return -1;
    }
    return 0;
}

/* SIGQUIT (Ctrl-\\): ask PE 0 to print what every PE is blocked in (the
 * library reads all PEs' control blocks; SIGUSR2 is its dump request).  Only
 * sent to a PE that has initialized symheap, where SIGUSR2 is handled. */
static void dump_request(struct job *j)
{
    struct pe *p = &j->pe[0];
    if (!p->running || !p->connected || p->finalized) {
        fprintf(stderr, "symrun: got SIGQUIT; PE 0 is not running symheap, no dump\n");
        return;
    }
    fprintf(stderr, "symrun: got SIGQUIT: asking PE 0 what every PE is blocked in\n");
    kill(p->pid, SIGUSR2);
}

static void drain_signals(struct job *j)
{
    unsigned char c[64];
    ssize_t n;
    while ((n = read(j->sig[0], c, sizeof c)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (c[i] == SIGCHLD) continue; /* reap() runs every turn */
            if (c[i] == SIGQUIT) {
                dump_request(j);
                continue;
            }
            if (j->ending) j->kill_at = symrun_now_ms(); /* a second ^C: SIGKILL now */
            symrun_fail(j, 128 + c[i], -1, "got %s (%s)", sig_name(c[i]), strsignal(c[i]));
        }
    }
}

/* ---- starting the PEs -------------------------------------------------------- */

static void set_env(const char *name, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    setenv(name, buf, 1);
}

/* In the child: only symrun is single-threaded, so setenv after fork is safe. */
static _Noreturn void child(struct job *j, int rank, int sock, int out, int err)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != j->self) _exit(127); /* symrun died before prctl */
    for (int i = 0; i < NHANDLED; i++) sigaction(handled[i], &j->old[i], NULL);
    sigprocmask(SIG_SETMASK, &j->mask, NULL);
    setrlimit(RLIMIT_NOFILE, &j->nofile);
    if (out >= 0 && (dup2(out, 1) < 0 || dup2(err, 2) < 0)) _exit(127);
    if (rank > 0) { /* like mpirun: only PE 0 reads our stdin */
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) dup2(fd, 0);
    }
    fcntl(sock, F_SETFD, 0);
    set_env("SYMRUN_FD", sock);
    set_env("SYMRUN_RANK", rank);
    set_env("SYMRUN_SIZE", j->o.n);
    set_env("SYMRUN_PID", j->self);
    if (j->o.ncpu > 0) { /* best effort: a PE that cannot be bound still runs */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(j->o.cpu[rank % j->o.ncpu], &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    execvp(j->o.argv[0], j->o.argv);
    struct shmi_symrun_hdr h = { .magic = SHMI_SYMRUN_MAGIC, .op = SHMI_SYMRUN_EXECFAIL,
                                 .arg = errno };
    ssize_t r = send(sock, &h, sizeof h, MSG_NOSIGNAL);
    (void)r;
    _exit(h.arg == ENOENT ? 127 : 126);
}

static void close_pair(int *fds)
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) close(fds[i]);
}

static int spawn(struct job *j, struct pe *p)
{
    int sv[2] = { -1, -1 }, po[2] = { -1, -1 }, pr[2] = { -1, -1 }, e = 0;
    sigset_t all, old;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        (j->o.prefix && (pipe2(po, O_CLOEXEC) != 0 || pipe2(pr, O_CLOEXEC) != 0)))
        goto err;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old); /* no handler may run in the child */
    pid_t pid = fork();
    if (pid == 0) child(j, p->rank, sv[1], po[1], pr[1]);
    e = errno;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) goto err;
    p->pid = pid;
    p->running = 1;
    j->running++;
    p->sock = sv[0];
    p->io[0].fd = po[0];
    p->io[1].fd = pr[0];
    close(sv[1]);
    if (po[1] >= 0) close(po[1]);
    if (pr[1] >= 0) close(pr[1]);
    for (int k = 0; k < 3; k++) {
        int fd = k == 0 ? sv[0] : k == 1 ? po[0] : pr[0];
        if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    return 0;
err:
    e = e ? e : errno;
    close_pair(sv);
    close_pair(po);
    close_pair(pr);
    return e;
}

/* --bind-to: with BIND_AUTO, bind when 2 <= N <= the CPUs we may use.  The
 * PEs take consecutive CPUs of our affinity mask from an offset that
 * depends on our pid, so that jobs started side by side (a test suite in
 * parallel) do not all pile onto the first CPUs. */
static void plan_binding(struct opts *o)
{
    cpu_set_t set;
    o->ncpu = 0;
    if (o->bind == BIND_NONE || sched_getaffinity(0, sizeof set, &set) != 0) return;
    int all[1024], n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 1024; c++)
        if (CPU_ISSET(c, &set)) all[n++] = c;
    if (n == 0 || (o->bind == BIND_AUTO && (o->n < 2 || o->n > n))) return;
    int start = (int)(getpid() % n);
    o->ncpu = o->n < n ? o->n : n; /* --bind-to core with more PEs: round robin */
    for (int i = 0; i < o->ncpu; i++) o->cpu[i] = all[(start + i) % n];
}

static void spawn_all(struct job *j)
{
    plan_binding(&j->o);
    for (int i = 0; i < j->o.n && !j->ending; i++) {
        int e = spawn(j, &j->pe[i]);
        if (e)
            symrun_fail(j, 1, -1, "cannot start PE %d of %d: %s; lower -n or raise the process/file "
                 "limits (ulimit -u, ulimit -n)", i, j->o.n, strerror(e));
    }
}

/* ---- main loop --------------------------------------------------------------- */

enum { W_SIG = -1 };
struct who { int pe, kind; }; /* kind: 0 socket, 1 stdout pipe, 2 stderr pipe */

static int build_poll(struct job *j, struct pollfd *pfd, struct who *w)
{
    int n = 0;
    pfd[n] = (struct pollfd){ .fd = j->sig[0], .events = POLLIN };
    w[n++] = (struct who){ W_SIG, 0 };
    for (int i = 0; i < j->o.n; i++) {
        struct pe *p = &j->pe[i];
        if (p->sock >= 0) {
            pfd[n] = (struct pollfd){ .fd = p->sock, .events = POLLIN | (p->q ? POLLOUT : 0) };
            w[n++] = (struct who){ i, 0 };
        }
        for (int k = 0; k < 2; k++)
            if (p->io[k].fd >= 0) {
                pfd[n] = (struct pollfd){ .fd = p->io[k].fd, .events = POLLIN };
                w[n++] = (struct who){ i, k + 1 };
            }
    }
    return n;
}

static int next_timeout(struct job *j)
{
    int64_t t = NEVER, now = symrun_now_ms();
    if (j->ending && j->kill_at < t) t = j->kill_at;
    if (!j->ending && j->deadline < t) t = j->deadline;
    if (!j->ending && j->held.at && j->held.at < t) t = j->held.at;
    for (int i = 0; i < j->o.n && !j->ending && !j->held.at; i++)
        if (j->pe[i].eof_at && j->pe[i].running && j->pe[i].eof_at + EOF_GRACE_MS < t)
            t = j->pe[i].eof_at + EOF_GRACE_MS;
    if (t == NEVER) return -1;
    return t <= now ? 0 : t - now > INT_MAX ? INT_MAX : (int)(t - now);
}

static void dispatch(struct job *j, struct pollfd *pfd, struct who *w, int n)
{
    for (int i = 0; i < n; i++) {
        if (!pfd[i].revents) continue;
        if (w[i].pe == W_SIG) { drain_signals(j); continue; }
        struct pe *p = &j->pe[w[i].pe];
        if (w[i].kind == 0) {
            if (p->sock >= 0 && (pfd[i].revents & POLLOUT)) symrun_pe_send(p);
            if (p->sock >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) symrun_pe_read(j, p);
        } else {
            struct lbuf *l = &p->io[w[i].kind - 1];
            if (l->fd >= 0 && lb_read(p, l) < 0) lb_close(p, l);
        }
    }
}

static void timers(struct job *j)
{
    int64_t now = symrun_now_ms();
    if (j->ending && now >= j->kill_at) {
        signal_all(j, SIGKILL);
        j->kill_at = NEVER;
    }
    if (!j->ending && now >= j->deadline)
        symrun_fail(j, 124, -1, "the job is still running after --timeout %g s", j->o.timeout);
    blame_due(j, now);
    /* while a failure is held, PEs that lose their peers are its consequence */
    for (int i = 0; i < j->o.n && !j->ending && !j->held.at; i++) {
        struct pe *p = &j->pe[i];
        if (p->eof_at && p->running && now >= p->eof_at + EOF_GRACE_MS)
            symrun_fail(j, 1, i, "PE %d (pid %ld) closed its connection to symrun without calling "
                 "shmem_finalize", i, (long)p->pid);
    }
}

static void serve(struct job *j)
{
    size_t cap = 1 + 3 * (size_t)j->o.n;
    struct pollfd *pfd = malloc(cap * sizeof *pfd);
    struct who *w = malloc(cap * sizeof *w);
    if (!pfd || !w) {
        symrun_fail(j, 1, -1, "out of memory");
        while (j->running > 0) { /* still end and reap everyone */
            usleep(10000);
            reap(j);
            timers(j);
        }
    }
    while (j->running > 0 && pfd && w) {
        int n = build_poll(j, pfd, w);
        if (poll(pfd, (nfds_t)n, next_timeout(j)) > 0) dispatch(j, pfd, w, n);
        reap(j);
        timers(j);
        if (!j->held.at) symrun_check_stuck(j);
    }
    free(pfd);
    free(w);
}

/* ---- options ------------------------------------------------------------------- */

static const char usage_line[] =
    "usage: symrun -n N [-l] [--timeout SECONDS] [--aslr] [--check] [--bind-to core|none]\n"
    "              [--] PROGRAM [ARGS...]\n";

static void help(void)
{
    printf("%s\n"
           "Start N processing elements (PEs) of a symheap (OpenSHMEM) program on this\n"
           "machine and end them all together.\n\n"
           "  -n N, -np N, --np N   number of PEs (1 to %d)\n"
           "  -l, --prefix          prefix every output line with \"[pe N] \"\n"
           "  --timeout SECONDS     end all PEs and exit 124 if the job runs longer\n"
           "  --aslr                keep address space randomization (by default PEs\n"
           "                        start without it so all share one address layout)\n"
           "  --check               self-test mode: SHMEM_SELFTEST=1 and (unless set)\n"
           "                        SHMEM_CHECKS=full: the brief's manual checks run at\n"
           "                        init and at every allocation (docs/debugging.md)\n"
           "  --bind-to core|none   core (the default when 2 <= N <= the CPUs symrun\n"
           "                        may use): each PE on a CPU of its own; none: the\n"
           "                        kernel places them (also SYMRUN_BIND_TO=none)\n"
           "  --no-mps              do not start CUDA MPS when PEs share a GPU\n"
           "                        (docs/gpu.md)\n"
           "  -h, --help            this text\n"
           "  --version             print the version\n\n"
           "Exit status: 0 when every PE exited 0; else that of the first failure: the\n"
           "PE's exit status, 128+N for a PE killed by signal N, the code a PE aborted\n"
           "with, 124 on --timeout, 126/127 when PROGRAM cannot be run, 2 for bad usage.\n"
           "A PE killed by a signal within 200 ms of another PE's failure is the one\n"
           "blamed (the other likely failed because of it).\n"
           "If one PE fails, symrun ends the others (SIGTERM, then SIGKILL). SIGQUIT\n"
           "(Ctrl-\\) prints what every PE is blocked in, without ending the job. See\n"
           "docs/launcher.md.\n", usage_line, MAX_PES);
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "symrun: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%sTry 'symrun --help' for more information.\n", usage_line);
    return 2;
}

static int parse_n(const char *s, int *n)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || v < 1 || v > MAX_PES)
        return bad_usage("-n needs a number of PEs from 1 to %d, got '%s'", MAX_PES, s ? s : "");
    *n = (int)v;
    return 0;
}

static int parse_bind(const char *what, const char *s, int *bind)
{
    if (s && !strcmp(s, "core")) *bind = BIND_CORE;
    else if (s && !strcmp(s, "none")) *bind = BIND_NONE;
    else return bad_usage("%s needs core or none, got '%s'", what, s ? s : "");
    return 0;
}

static int parse_timeout(const char *s, double *t)
{
    char *end;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v > 0 && v < 1e8))
        return bad_usage("--timeout needs a number of seconds > 0, got '%s'", s ? s : "");
    *t = v;
    return 0;
}

/* 0: run; 1: done (help/version printed); else the exit status (2). */
static int parse_args(int argc, char **argv, struct opts *o)
{
    int i = 1, rc = 0;
    for (; i < argc && argv[i][0] == '-' && rc == 0; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np"))
            rc = parse_n(i + 1 < argc ? argv[++i] : NULL, &o->n);
        else if (!strncmp(a, "--np=", 5)) rc = parse_n(a + 5, &o->n);
        else if (!strncmp(a, "-n", 2) && a[2] != 'p') rc = parse_n(a + 2, &o->n);
        else if (!strcmp(a, "--timeout")) rc = parse_timeout(i + 1 < argc ? argv[++i] : NULL, &o->timeout);
        else if (!strncmp(a, "--timeout=", 10)) rc = parse_timeout(a + 10, &o->timeout);
        else if (!strcmp(a, "-l") || !strcmp(a, "--prefix")) o->prefix = 1;
        else if (!strcmp(a, "--aslr")) o->aslr = 1;
        else if (!strcmp(a, "--check")) o->check = 1;
        else if (!strcmp(a, "--no-mps")) o->no_mps = 1;
        else if (!strcmp(a, "--bind-to")) rc = parse_bind("--bind-to", i + 1 < argc ? argv[++i] : NULL, &o->bind);
        else if (!strncmp(a, "--bind-to=", 10)) rc = parse_bind("--bind-to", a + 10, &o->bind);
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); return 1; }
        else if (!strcmp(a, "--version")) {
            printf("symrun (symheap) %s, protocol %d\n", SYMHEAP_VERSION, SHMI_SYMRUN_VERSION);
            return 1;
        } else rc = bad_usage("unknown option '%s'", a);
    }
    if (rc) return rc;
    const char *env_bind = getenv("SYMRUN_BIND_TO");
    if (o->bind == BIND_AUTO && env_bind && *env_bind && (rc = parse_bind("SYMRUN_BIND_TO", env_bind, &o->bind)))
        return rc;
    if (o->n == 0) return bad_usage("missing -n N, the number of PEs");
    if (i >= argc) return bad_usage("missing the program to run");
    o->argv = argv + i;
    return 0;
}

/* ---- set-up -------------------------------------------------------------------- */

/* execvp's search, done once up front so "not found" starts nothing. */
static int find_prog(const char *prog)
{
    char path[PATH_MAX];
    struct stat st;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0) return errno;
        return S_ISDIR(st.st_mode) ? EISDIR : 0; /* else execvp says "Permission denied" late */
    }
    const char *dirs = getenv("PATH");
    if (!dirs) dirs = "/bin:/usr/bin";
    for (const char *d = dirs;; d++) {
        const char *e = strchrnul(d, ':');
        int len = (int)(e - d);
        snprintf(path, sizeof path, "%.*s%s%s", len, d, len ? "/" : "", prog);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0) return 0;
        if (!*e) return ENOENT;
        d = e;
    }
}

/* stdio must be open, or a pipe of --prefix could become fd 1 in symrun. */
static void open_stdio(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd) _exit(1);
}

static int setup(struct job *j)
{
    j->self = getpid();
    j->kill_at = NEVER;
    j->deadline = j->o.timeout > 0 ? symrun_now_ms() + (int64_t)(j->o.timeout * 1000) : NEVER;
    /* we hold a socket (+2 pipes) per PE and, during exchange_fds, every PE's
     * descriptors: use the hard limit; the PEs get the inherited one back */
    getrlimit(RLIMIT_NOFILE, &j->nofile);
    struct rlimit hi = { j->nofile.rlim_max, j->nofile.rlim_max };
    setrlimit(RLIMIT_NOFILE, &hi);
    if (!j->o.aslr) {
        int cur = personality(0xffffffff);
        if (cur == -1 || personality((unsigned long)cur | ADDR_NO_RANDOMIZE) == -1)
            say("symrun: warning: cannot turn off address randomization (personality: %s); "
                "PEs may get different address layouts; pass --aslr to accept that\n",
                strerror(errno));
    }
    if (!(j->pe = calloc((size_t)j->o.n, sizeof *j->pe))) return -1;
    for (int i = 0; i < j->o.n; i++)
        j->pe[i] = (struct pe){ .rank = i, .sock = -1, .io = { { -1, 1, 0, 0 }, { -1, 2, 0, 0 } } };
    return signals_init(j);
}

int main(int argc, char **argv)
{
    struct job j = { 0 };
    int rc = parse_args(argc, argv, &j.o);
    if (rc) return rc == 1 ? 0 : rc;
    open_stdio();
    if ((rc = find_prog(j.o.argv[0])) != 0) {
        const char *prog = j.o.argv[0], *path = getenv("PATH");
        if (rc == EISDIR)
            say("symrun: cannot run '%s': it is a directory, not a program\n", prog);
        else if (strchr(prog, '/'))
            say("symrun: cannot run '%s': %s\n", prog, strerror(rc));
        else
            say("symrun: cannot run '%s': no such program in PATH=%s\n", prog,
                path ? path : "(unset, so /bin:/usr/bin)");
        return rc == ENOENT ? 127 : 126;
    }
    if (j.o.check) { /* before fork: every PE inherits it */
        setenv("SHMEM_SELFTEST", "1", 1);
        setenv("SHMEM_CHECKS", "full", 0);
    }
    if (setup(&j) != 0) {
        say("symrun: cannot set up: %s\n", strerror(errno));
        return 1;
    }
    symrun_mps_start(&j); /* PEs sharing a GPU (issue 7) */
    spawn_all(&j);
    serve(&j);
    symrun_mps_stop();
    symrun_round_clear(&j);
    free(j.pe);
    return j.status;
}
