/* symrun_serve.c - symrun's side of the bootstrap protocol (symrun_proto.h).
 *
 * Input: each PE's socket is read without blocking into a small state machine
 * (header, then payload straight into its place in the round's buffer).
 * Collectives are rounds: the first PE's call fixes op and size, every other
 * PE must make the same call, and when all N have contributed the answer is
 * queued for every PE.  Output: a per-PE queue of messages that point into
 * one shared, reference-counted reply (no per-PE copy of an allgather), sent
 * as far as each socket takes it, so a slow or stopped PE delays nobody.
 *
 * Invariants: at most one round is being collected; while one round is still
 * being sent the next one can start (a PE that got its answer may call
 * again).  Descriptors (SCM_RIGHTS) must come with a header's first byte;
 * anything else, a bad header or a mismatched call ends the job with a line
 * naming the PEs, and symrun stops reading that PE's stream. */
#include "symrun.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

enum { ABORT_WIRE_MAX = 1 << 20 }; /* longer ABORT text is a protocol error */
#define CMSG_BYTES CMSG_SPACE(SHMI_SYMRUN_FDS_PER_MSG * sizeof(int))

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

void symrun_pe_send(struct pe *p)
{
    while (p->q) {
        int r = send_head(p);
        if (r == 0) return;
        if (r < 0) { queue_free(p); return; } /* EPIPE: the exit is judged at reap */
    }
}

/* ---- collective rounds --------------------------------------------------- */

void symrun_pe_close_sock(struct pe *p)
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
    symrun_fail(j, status, p->rank, "PE %d (pid %ld) %s", p->rank, (long)p->pid, what);
    symrun_pe_close_sock(p);
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
void symrun_round_clear(struct job *j)
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
    if (rc) symrun_fail(j, 1, -1, "out of memory answering %s for %d PEs", op_name(r->op), j->o.n);
    blob_unref(b);
    symrun_round_clear(j);
    for (int i = 0; i < j->o.n; i++) symrun_pe_send(&j->pe[i]);
}

static void contribution_done(struct job *j, struct pe *p)
{
    p->done = 1;
    if (++j->r.ndone == j->o.n) round_complete(j);
}

/* A round some PE waits in can no longer complete: say who is missing. */
void symrun_check_stuck(struct job *j)
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
        symrun_fail(j, 1, p->rank, "PE %d waits in %s, but PE %d (pid %ld) %s, so it can never "
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
    symrun_blame(j, code, p->rank, "PE %d (pid %ld) aborted the job with status %d%s%s", p->rank,
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
    symrun_pe_close_sock(p);
    if (p->connected && !p->finalized && !p->eof_at) p->eof_at = symrun_now_ms();
    (void)j;
}

void symrun_pe_read(struct job *j, struct pe *p)
{
    int r;
    while (p->sock >= 0 && (r = pe_recv(j, p)) > 0) {}
    if (p->sock >= 0 && r < 0) on_eof(j, p);
}
