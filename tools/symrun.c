/* symrun.c - the launcher: starts N PEs, serves their bootstrap, ends the job.
 *
 *   symrun -n N [-l] [--timeout SECONDS] [--aslr] [--] PROGRAM [ARGS...]
 *
 * Each PE is fork+exec'd with one end of its own unix socketpair (SYMRUN_FD)
 * and SYMRUN_RANK/SYMRUN_SIZE/SYMRUN_PID; symrun serves the protocol of
 * src/bootstrap/symrun_proto.h from one poll() loop over all sockets, the
 * output pipes of --prefix and a self-pipe fed by the signal handlers.  All
 * socket I/O is non-blocking: a slow or stopped PE never stalls the others,
 * the timeout or a signal.  symrun depends on libc only and creates no files.
 *
 * Invariants:
 *  - Nothing is left behind: every PE gets PR_SET_PDEATHSIG(SIGKILL) (so
 *    SIGKILL of symrun ends them) and symrun exits only after reaping all.
 *  - The first failure decides the exit status and prints the only line
 *    (a PE killed by a signal, a non-zero exit, an abort, a PE that left
 *    without shmem_finalize, a protocol error, timeout, SIGINT/TERM/HUP);
 *    then every PE gets SIGTERM and, TERM_GRACE_MS later, SIGKILL.
 *  - A collective round completes only when every PE sent the same call; a
 *    PE that can no longer join (exited, finalized) ends the job instead of
 *    leaving the others blocked forever.
 *  - PEs start with ADDR_NO_RANDOMIZE unless --aslr: same executable, same
 *    environment size and no randomization give every PE the same address
 *    layout, which symmetric globals and the agreed heap base rely on. */
#include "bootstrap/symrun_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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
    ABORT_MAX = SHMI_SYMRUN_ABORT_MSG_MAX,
    ABORT_WIRE_MAX = 1 << 20,
};
#define NEVER INT64_MAX
#define CMSG_BYTES CMSG_SPACE(SHMI_SYMRUN_FDS_PER_MSG * sizeof(int))

/* A reply shared by every PE's queue: freed (fds closed) with the last ref. */
struct blob {
    int refs;
    char *data;
    int *fds, nfds;
};

struct out {
    struct out *next;
    struct shmi_symrun_hdr h;
    struct blob *blob;
    const char *pay;          /* h.len bytes */
    const int *fds;           /* sent with the first byte */
    int nfds;
    size_t sent;              /* of header + payload */
};

struct lbuf { /* --prefix: one output pipe of a PE */
    int fd, dst;
    char *buf;
    size_t len;
};

struct pe {
    int rank, running, status;
    pid_t pid;
    int sock, connected, finalized, exec_errno;
    int joined, done, fds_got; /* in the current round */
    int64_t eof_at;
    struct shmi_symrun_hdr h;  /* message being read */
    size_t hgot;
    uint64_t pgot;
    int pend[SHMI_SYMRUN_FDS_PER_MSG], npend;
    char text[ABORT_MAX + 1];  /* HELLO / ABORT payload */
    struct out *q, *qtail;
    struct lbuf io[2];
};

struct round {
    int nj, ndone, first;
    int op;
    int32_t arg;
    uint64_t len;
    char *buf;
    int *fds;
};

struct opts {
    int n, prefix, aslr;
    double timeout;
    char **argv;
};

static const int handled[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NHANDLED ((int)(sizeof handled / sizeof handled[0]))

struct job {
    struct opts o;
    struct pe *pe;
    struct round r;
    int running, ending, status;
    int64_t kill_at, deadline;
    pid_t self;
    int sig[2];
    struct rlimit nofile;             /* as inherited; restored in the PEs */
    sigset_t mask;                    /* likewise */
    struct sigaction old[NHANDLED];   /* likewise */
};

static int sig_wfd = -1;

/* ---- small helpers ------------------------------------------------------- */

static int64_t now_ms(void)
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

static const char *op_name(int op)
{
    switch (op) {
    case SHMI_SYMRUN_ALLGATHER: return "allgather";
    case SHMI_SYMRUN_BARRIER: return "barrier";
    case SHMI_SYMRUN_FDS: return "exchange_fds";
    }
    return "?";
}

/* "allgather of 16 bytes", "barrier", "exchange_fds of 4 descriptors" */
static const char *call_desc(char *buf, size_t len, int op, int32_t arg, uint64_t n)
{
    if (op == SHMI_SYMRUN_ALLGATHER)
        snprintf(buf, len, "allgather of %llu bytes", (unsigned long long)n);
    else if (op == SHMI_SYMRUN_FDS)
        snprintf(buf, len, "exchange_fds of %d descriptors", (int)arg);
    else
        snprintf(buf, len, "%s", op_name(op));
    return buf;
}

/* ---- ending the job ------------------------------------------------------ */

static void signal_all(struct job *j, int sig)
{
    for (int i = 0; i < j->o.n; i++)
        if (j->pe[i].running) kill(j->pe[i].pid, sig);
}

/* The first failure: one line, its exit status, then end every PE.  culprit
 * is the rank the cause is about, or -1. */
static void fail(struct job *j, int status, int culprit, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(struct job *j, int status, int culprit, const char *fmt, ...)
{
    char cause[1536];
    if (j->ending) return;
    j->ending = 1;
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
    j->kill_at = now_ms() + TERM_GRACE_MS;
}

/* ---- output queue (symrun -> PE) ------------------------------------------ */

static void blob_unref(struct blob *b)
{
    if (!b || --b->refs > 0) return;
    free(b->data);
    for (int i = 0; i < b->nfds; i++)
        if (b->fds[i] >= 0) close(b->fds[i]);
    free(b->fds);
    free(b);
}

static int enqueue(struct pe *p, struct shmi_symrun_hdr h, struct blob *b,
                   const char *pay, const int *fds, int nfds)
{
    if (p->sock < 0) return 0; /* PE gone: its death is judged elsewhere */
    struct out *o = calloc(1, sizeof *o);
    if (!o) return -1;
    *o = (struct out){ .h = h, .blob = b, .pay = pay, .fds = fds, .nfds = nfds };
    if (b) b->refs++;
    if (p->qtail) p->qtail->next = o;
    else p->q = o;
    p->qtail = o;
    return 0;
}

static void queue_free(struct pe *p)
{
    while (p->q) {
        struct out *o = p->q;
        p->q = o->next;
        blob_unref(o->blob);
        free(o);
    }
    p->qtail = NULL;
}

/* One non-blocking sendmsg of the queue head: >0 progress, 0 would block,
 * -1 the PE is gone. */
static int send_head(struct pe *p)
{
    struct out *o = p->q;
    union { char buf[CMSG_BYTES]; struct cmsghdr align; } u;
    struct iovec iov[2];
    int cnt = 0;
    size_t hs = sizeof o->h;
    if (o->sent < hs) iov[cnt++] = (struct iovec){ (char *)&o->h + o->sent, hs - o->sent };
    size_t poff = o->sent > hs ? o->sent - hs : 0;
    if (o->h.len > poff) iov[cnt++] = (struct iovec){ (char *)o->pay + poff, o->h.len - poff };
    struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };
    if (o->sent == 0 && o->nfds > 0) {
        memset(u.buf, 0, sizeof u.buf);
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE((size_t)o->nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        *c = (struct cmsghdr){ .cmsg_len = CMSG_LEN((size_t)o->nfds * sizeof(int)),
                               .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS };
        memcpy(CMSG_DATA(c), o->fds, (size_t)o->nfds * sizeof(int));
    }
    ssize_t n = sendmsg(p->sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) return errno == EINTR ? 1 : (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    o->sent += (size_t)n;
    if (o->sent == hs + o->h.len) {
        p->q = o->next;
        if (!p->q) p->qtail = NULL;
        blob_unref(o->blob);
        free(o);
    }
    return 1;
}

static void pe_send(struct pe *p)
{
    while (p->q) {
        int r = send_head(p);
        if (r == 0) return;
        if (r < 0) { queue_free(p); return; } /* EPIPE: the exit is judged at reap */
    }
}

/* ---- collective rounds --------------------------------------------------- */

static void pe_close_sock(struct pe *p)
{
    if (p->sock >= 0) close(p->sock);
    p->sock = -1;
    while (p->npend > 0) close(p->pend[--p->npend]);
    p->hgot = 0;
    p->pgot = 0;
    queue_free(p);
}

/* A PE broke the protocol: report, and stop reading its garbled stream. */
static int pe_bad(struct job *j, struct pe *p, int status, const char *what)
{
    fail(j, status, p->rank, "PE %d (pid %ld) %s", p->rank, (long)p->pid, what);
    pe_close_sock(p);
    return -1;
}

static int round_start(struct job *j, struct pe *p)
{
    struct round *r = &j->r;
    uint64_t n = (uint64_t)j->o.n;
    r->op = p->h.op;
    r->arg = p->h.arg;
    r->len = p->h.len;
    r->first = p->rank;
    if (r->op == SHMI_SYMRUN_ALLGATHER) {
        if (r->len > SIZE_MAX / n || !(r->buf = malloc(r->len * n + 1)))
            return pe_bad(j, p, 1, "called allgather with a block too large for symrun's "
                                   "memory (block x PEs); use smaller blocks");
    } else if (r->op == SHMI_SYMRUN_FDS) {
        if ((uint64_t)r->arg * n > INT_MAX / 2 ||
            !(r->fds = malloc(((size_t)r->arg * n + 1) * sizeof(int))))
            return pe_bad(j, p, 1, "called exchange_fds with too many descriptors");
        for (uint64_t i = 0; i < (uint64_t)r->arg * n; i++) r->fds[i] = -1;
    }
    return 0;
}

static int round_join(struct job *j, struct pe *p)
{
    struct round *r = &j->r;
    char a[64], b[64], why[256];
    if (p->finalized) {
        snprintf(why, sizeof why, "called %s after shmem_finalize", op_name(p->h.op));
        return pe_bad(j, p, 1, why);
    }
    if (p->joined) {
        if (p->h.op == SHMI_SYMRUN_FDS && r->op == SHMI_SYMRUN_FDS && !p->done) return 0;
        return pe_bad(j, p, 1, "started a second collective before the first ended "
                               "(protocol error: symrun and library versions differ?)");
    }
    if (r->nj == 0 && round_start(j, p) != 0) return -1;
    if (p->h.op != r->op || p->h.arg != r->arg || p->h.len != r->len) {
        snprintf(why, sizeof why, "called %s while PE %d called %s; every PE must make "
                 "the same collective calls in the same order",
                 call_desc(a, sizeof a, p->h.op, p->h.arg, p->h.len), r->first,
                 call_desc(b, sizeof b, r->op, r->arg, r->len));
        return pe_bad(j, p, 1, why);
    }
    p->joined = 1;
    r->nj++;
    return 0;
}

static int reply_fds(struct job *j, struct blob *b, int total)
{
    for (int i = 0; i < j->o.n; i++) {
        int k = 0;
        do { /* total == 0 still answers with one empty message */
            int c = total - k < SHMI_SYMRUN_FDS_PER_MSG ? total - k : SHMI_SYMRUN_FDS_PER_MSG;
            struct shmi_symrun_hdr h = { .magic = SHMI_SYMRUN_MAGIC, .op = SHMI_SYMRUN_FDS,
                                         .nfds = (uint8_t)c, .arg = total };
            if (enqueue(&j->pe[i], h, b, NULL, b->fds + k, c)) return -1;
            k += c;
        } while (k < total);
    }
    return 0;
}

static int reply_data(struct job *j, struct blob *b, int op, uint64_t len)
{
    for (int i = 0; i < j->o.n; i++) {
        struct shmi_symrun_hdr h = { .magic = SHMI_SYMRUN_MAGIC, .op = (uint8_t)op, .len = len };
        if (enqueue(&j->pe[i], h, b, b ? b->data : NULL, NULL, 0)) return -1;
    }
    return 0;
}

/* Forget the round, closing descriptors nobody took over. */
static void round_clear(struct job *j)
{
    struct round *r = &j->r;
    if (r->fds)
        for (int i = 0; i < r->arg * j->o.n; i++)
            if (r->fds[i] >= 0) close(r->fds[i]);
    free(r->fds);
    free(r->buf);
    memset(r, 0, sizeof *r);
    for (int i = 0; i < j->o.n; i++) {
        j->pe[i].joined = j->pe[i].done = 0;
        j->pe[i].fds_got = 0;
    }
}

/* Every PE has contributed: queue the answer for all, start a fresh round. */
static void round_complete(struct job *j)
{
    struct round *r = &j->r;
    struct blob *b = calloc(1, sizeof *b);
    int rc = -1;
    if (!b) goto out;
    b->refs = 1; /* ours, dropped below */
    b->data = r->buf;
    b->fds = r->fds;
    b->nfds = r->op == SHMI_SYMRUN_FDS ? r->arg * j->o.n : 0;
    r->buf = NULL;
    r->fds = NULL;
    if (r->op == SHMI_SYMRUN_FDS) rc = reply_fds(j, b, b->nfds);
    else rc = reply_data(j, b, r->op, r->op == SHMI_SYMRUN_ALLGATHER ? r->len * (uint64_t)j->o.n : 0);
out:
    if (rc) fail(j, 1, -1, "out of memory answering %s for %d PEs", op_name(r->op), j->o.n);
    blob_unref(b);
    round_clear(j);
    for (int i = 0; i < j->o.n; i++) pe_send(&j->pe[i]);
}

static void contribution_done(struct job *j, struct pe *p)
{
    p->done = 1;
    if (++j->r.ndone == j->o.n) round_complete(j);
}

/* A round some PE waits in can no longer complete: say who is missing. */
static void check_stuck(struct job *j)
{
    char d[64];
    if (j->ending || j->r.nj == 0) return;
    for (int i = 0; i < j->o.n; i++) {
        struct pe *p = &j->pe[i];
        const char *why = NULL;
        if (p->done || (p->joined && p->running)) continue;
        if (!p->running)
            why = p->finalized ? "has called shmem_finalize and exited"
                : p->connected ? "has exited" : "has exited without calling shmem_init";
        else if (p->finalized)
            why = "has already called shmem_finalize";
        if (!why) continue;
        fail(j, 1, p->rank, "PE %d waits in %s, but PE %d (pid %ld) %s, so it can never "
             "complete", j->r.first, call_desc(d, sizeof d, j->r.op, j->r.arg, j->r.len),
             p->rank, (long)p->pid, why);
        return;
    }
}

/* ---- input (PE -> symrun) ------------------------------------------------- */

static int on_hello(struct job *j, struct pe *p)
{
    int32_t id[2];
    char why[256];
    memcpy(id, p->text, sizeof id);
    if (id[0] != p->rank || id[1] != j->o.n) {
        snprintf(why, sizeof why, "says it is PE %d of %d, but symrun started it as PE %d "
                 "of %d (SYMRUN_RANK/SYMRUN_SIZE changed?)", id[0], id[1], p->rank, j->o.n);
        return pe_bad(j, p, 1, why);
    }
    p->connected = 1;
    return 0;
}

static void on_abort(struct job *j, struct pe *p)
{
    size_t n = p->h.len < ABORT_MAX ? (size_t)p->h.len : ABORT_MAX;
    int code = p->h.arg;
    p->text[n] = 0;
    while (n > 0 && (p->text[n - 1] == '\n' || p->text[n - 1] == ' ')) p->text[--n] = 0;
    for (size_t i = 0; i < n; i++)
        if (p->text[i] == '\n') p->text[i] = ' ';
    if (code < 0 || code > 255) code = (code & 0xff) ? code & 0xff : 1;
    fail(j, code, p->rank, "PE %d (pid %ld) aborted the job with status %d%s%s", p->rank,
         (long)p->pid, code, n ? ": " : "", p->text);
}

static int on_fds(struct job *j, struct pe *p)
{
    int base = p->rank * j->r.arg + p->fds_got;
    for (int i = 0; i < p->npend; i++) j->r.fds[base + i] = p->pend[i];
    p->fds_got += p->npend;
    p->npend = 0;
    if (p->fds_got == j->r.arg) contribution_done(j, p);
    return 0;
}

static int on_message(struct job *j, struct pe *p)
{
    switch (p->h.op) {
    case SHMI_SYMRUN_HELLO: return on_hello(j, p);
    case SHMI_SYMRUN_ALLGATHER:
    case SHMI_SYMRUN_BARRIER: contribution_done(j, p); return 0;
    case SHMI_SYMRUN_FDS: return on_fds(j, p);
    case SHMI_SYMRUN_ABORT: on_abort(j, p); return 0;
    case SHMI_SYMRUN_FINI: p->finalized = 1; return 0;
    case SHMI_SYMRUN_EXECFAIL: p->exec_errno = p->h.arg; return 0;
    }
    return 0;
}

/* Header complete: validate it before reading any payload. */
static int on_header(struct job *j, struct pe *p)
{
    const struct shmi_symrun_hdr *h = &p->h;
    int op = h->op, fds_ok = op == SHMI_SYMRUN_FDS && h->nfds == p->npend &&
             h->nfds <= SHMI_SYMRUN_FDS_PER_MSG && h->arg >= 0;
    int len_ok = op == SHMI_SYMRUN_ALLGATHER || (op == SHMI_SYMRUN_HELLO && h->len == 8) ||
                 (op == SHMI_SYMRUN_ABORT && h->len <= ABORT_WIRE_MAX) || h->len == 0;
    if (h->magic != SHMI_SYMRUN_MAGIC || op < SHMI_SYMRUN_HELLO || op > SHMI_SYMRUN_EXECFAIL ||
        !len_ok || (op == SHMI_SYMRUN_FDS ? !fds_ok : (h->nfds || p->npend)))
        return pe_bad(j, p, 1, "sent a malformed message to symrun (is it linked with a "
                               "symheap library of another version?)");
    if (op == SHMI_SYMRUN_HELLO && h->arg != SHMI_SYMRUN_VERSION) {
        char why[256];
        snprintf(why, sizeof why, "speaks symrun protocol %d, this symrun speaks %d; run "
                 "it with the symrun of the symheap it was built with", (int)h->arg,
                 SHMI_SYMRUN_VERSION);
        return pe_bad(j, p, 1, why);
    }
    if (op == SHMI_SYMRUN_HELLO && p->connected)
        return pe_bad(j, p, 1, "called shmem_init a second time (or ran a second SHMEM program)");
    if (!p->connected && op != SHMI_SYMRUN_HELLO && op != SHMI_SYMRUN_EXECFAIL)
        return pe_bad(j, p, 1, "talked to symrun before shmem_init (protocol error)");
    if (op == SHMI_SYMRUN_ALLGATHER || op == SHMI_SYMRUN_BARRIER || op == SHMI_SYMRUN_FDS) {
        if (round_join(j, p)) return -1;
        if (op == SHMI_SYMRUN_FDS && h->nfds > j->r.arg - p->fds_got)
            return pe_bad(j, p, 1, "sent more descriptors than it announced");
    }
    return 0;
}

/* Where the next payload bytes go, and how many. */
static char *pay_dst(struct job *j, struct pe *p, size_t *want)
{
    static char sink[4096]; /* abort text past ABORT_MAX */
    uint64_t left = p->h.len - p->pgot;
    if (p->h.op == SHMI_SYMRUN_ALLGATHER) {
        *want = left > (1u << 30) ? (1u << 30) : (size_t)left;
        return j->r.buf + (size_t)p->rank * j->r.len + p->pgot;
    }
    if (p->pgot < ABORT_MAX) {
        *want = left < ABORT_MAX - p->pgot ? (size_t)left : (size_t)(ABORT_MAX - p->pgot);
        return p->text + p->pgot;
    }
    *want = left < sizeof sink ? (size_t)left : sizeof sink;
    return sink;
}

static int take_fds(struct job *j, struct pe *p, struct msghdr *m)
{
    int bad = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *in = (int *)CMSG_DATA(c);
        for (int i = 0; i < n; i++) {
            if (p->npend < SHMI_SYMRUN_FDS_PER_MSG && p->hgot == 0) p->pend[p->npend++] = in[i];
            else { close(in[i]); bad = 1; }
        }
    }
    if (m->msg_flags & MSG_CTRUNC) {
        char why[256];
        snprintf(why, sizeof why, "sent descriptors that symrun could not take: symrun's "
                 "open-file limit (%lu) is too low for %d PEs; raise it with ulimit -n",
                 (unsigned long)j->nofile.rlim_max, j->o.n);
        return pe_bad(j, p, 1, why);
    }
    return bad ? pe_bad(j, p, 1, "sent descriptors with the wrong message (protocol error)") : 0;
}

/* One non-blocking recvmsg: >0 progress, 0 would block, -1 EOF/error. */
static int pe_recv(struct job *j, struct pe *p)
{
    union { char buf[CMSG_BYTES]; struct cmsghdr align; } u;
    size_t want;
    char *dst = p->hgot < sizeof p->h ? (char *)&p->h + p->hgot : pay_dst(j, p, &want);
    if (p->hgot < sizeof p->h) want = sizeof p->h - p->hgot;
    struct iovec iov = { dst, want };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof u.buf };
    ssize_t n = recvmsg(p->sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0) return errno == EINTR ? 1 : (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    if (n == 0) return -1;
    if (take_fds(j, p, &m)) return -1;
    if (p->hgot < sizeof p->h) {
        p->hgot += (size_t)n;
        if (p->hgot == sizeof p->h && on_header(j, p)) return -1;
    } else {
        p->pgot += (uint64_t)n;
    }
    if (p->hgot == sizeof p->h && p->pgot == p->h.len) {
        p->hgot = 0;
        p->pgot = 0;
        if (on_message(j, p)) return -1;
    }
    return p->sock >= 0 ? 1 : -1;
}

static void on_eof(struct job *j, struct pe *p)
{
    if (p->sock < 0) return;
    pe_close_sock(p);
    if (p->connected && !p->finalized && !p->eof_at) p->eof_at = now_ms();
    (void)j;
}

static void pe_read(struct job *j, struct pe *p)
{
    int r;
    while (p->sock >= 0 && (r = pe_recv(j, p)) > 0) {}
    if (p->sock >= 0 && r < 0) on_eof(j, p);
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
        fail(j, p->exec_errno == ENOENT ? 127 : 126, p->rank, "cannot run '%s': %s", prog,
             strerror(p->exec_errno));
    } else if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        fail(j, 128 + sig, p->rank, "PE %d (pid %ld) was killed by signal %d (%s, %s)%s",
             p->rank, (long)p->pid, sig, sig_name(sig), strsignal(sig),
             WCOREDUMP(st) ? ", core dumped" : "");
    } else if (WEXITSTATUS(st) != 0) {
        fail(j, WEXITSTATUS(st), p->rank, "PE %d (pid %ld) exited with status %d%s", p->rank,
             (long)p->pid, WEXITSTATUS(st),
             p->connected && !p->finalized ? " before shmem_finalize" : "");
    } else if (p->connected && !p->finalized) {
        fail(j, 1, p->rank, "PE %d (pid %ld) exited without calling shmem_finalize", p->rank,
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
    if (p->sock >= 0) pe_read(j, p);
    pe_close_sock(p);
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

static void drain_signals(struct job *j)
{
    unsigned char c[64];
    ssize_t n;
    while ((n = read(j->sig[0], c, sizeof c)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (c[i] == SIGCHLD) continue; /* reap() runs every turn */
            if (j->ending) j->kill_at = now_ms(); /* a second ^C: SIGKILL now */
            fail(j, 128 + c[i], -1, "got %s (%s)", sig_name(c[i]), strsignal(c[i]));
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

static void spawn_all(struct job *j)
{
    for (int i = 0; i < j->o.n && !j->ending; i++) {
        int e = spawn(j, &j->pe[i]);
        if (e)
            fail(j, 1, -1, "cannot start PE %d of %d: %s; lower -n or raise the process/file "
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
    int64_t t = NEVER, now = now_ms();
    if (j->ending && j->kill_at < t) t = j->kill_at;
    if (!j->ending && j->deadline < t) t = j->deadline;
    for (int i = 0; i < j->o.n && !j->ending; i++)
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
            if (p->sock >= 0 && (pfd[i].revents & POLLOUT)) pe_send(p);
            if (p->sock >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) pe_read(j, p);
        } else {
            struct lbuf *l = &p->io[w[i].kind - 1];
            if (l->fd >= 0 && lb_read(p, l) < 0) lb_close(p, l);
        }
    }
}

static void timers(struct job *j)
{
    int64_t now = now_ms();
    if (j->ending && now >= j->kill_at) {
        signal_all(j, SIGKILL);
        j->kill_at = NEVER;
    }
    if (!j->ending && now >= j->deadline)
        fail(j, 124, -1, "the job is still running after --timeout %g s", j->o.timeout);
    for (int i = 0; i < j->o.n && !j->ending; i++) {
        struct pe *p = &j->pe[i];
        if (p->eof_at && p->running && now >= p->eof_at + EOF_GRACE_MS)
            fail(j, 1, i, "PE %d (pid %ld) closed its connection to symrun without calling "
                 "shmem_finalize", i, (long)p->pid);
    }
}

static void serve(struct job *j)
{
    size_t cap = 1 + 3 * (size_t)j->o.n;
    struct pollfd *pfd = malloc(cap * sizeof *pfd);
    struct who *w = malloc(cap * sizeof *w);
    if (!pfd || !w) {
        fail(j, 1, -1, "out of memory");
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
        check_stuck(j);
    }
    free(pfd);
    free(w);
}

/* ---- options ------------------------------------------------------------------- */

static const char usage_line[] =
    "usage: symrun -n N [-l] [--timeout SECONDS] [--aslr] [--] PROGRAM [ARGS...]\n";

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
           "  -h, --help            this text\n"
           "  --version             print the version\n\n"
           "Exit status: 0 when every PE exited 0; else that of the first failure: the\n"
           "PE's exit status, 128+N for a PE killed by signal N, the code a PE aborted\n"
           "with, 124 on --timeout, 126/127 when PROGRAM cannot be run, 2 for bad usage.\n"
           "If one PE fails, symrun ends the others (SIGTERM, then SIGKILL). See\n"
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
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); return 1; }
        else if (!strcmp(a, "--version")) {
            printf("symrun (symheap) %s, protocol %d\n", SYMHEAP_VERSION, SHMI_SYMRUN_VERSION);
            return 1;
        } else rc = bad_usage("unknown option '%s'", a);
    }
    if (rc) return rc;
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
    if (strchr(prog, '/')) return access(prog, F_OK) == 0 ? 0 : errno;
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
    j->deadline = j->o.timeout > 0 ? now_ms() + (int64_t)(j->o.timeout * 1000) : NEVER;
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
        if (strchr(prog, '/'))
            say("symrun: cannot run '%s': %s\n", prog, strerror(rc));
        else
            say("symrun: cannot run '%s': no such program in PATH=%s\n", prog,
                path ? path : "(unset, so /bin:/usr/bin)");
        return rc == ENOENT ? 127 : 126;
    }
    if (setup(&j) != 0) {
        say("symrun: cannot set up: %s\n", strerror(errno));
        return 1;
    }
    spawn_all(&j);
    serve(&j);
    round_clear(&j);
    free(j.pe);
    return j.status;
}
