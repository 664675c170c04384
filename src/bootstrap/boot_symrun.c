/* boot_symrun.c - the PE side of the symrun protocol (symrun_proto.h).
 *
 * symrun gives each PE one end of a unix socketpair (number in SYMRUN_FD) and
 * its rank and size (SYMRUN_RANK, SYMRUN_SIZE); symrun is a star: every
 * collective is "send my part, then read the answer", both with blocking I/O.
 *
 * Invariants:
 *  - Never hang: symrun ends every PE when one dies, and if symrun itself dies
 *    the socket reads EOF (and PR_SET_PDEATHSIG kills us anyway); every read
 *    and write returns SHMI_EBOOT on EOF/EPIPE, retries on EINTR, and waits in
 *    poll() on EAGAIN in case someone made the socket non-blocking.
 *  - We read exactly the bytes of the message we expect, so SCM_RIGHTS
 *    descriptors always arrive with their own header.
 *  - The socket gets FD_CLOEXEC at init so programs that exec children do not
 *    leak it.  The SYMRUN_* variables stay in the environment (children see
 *    them, but their SYMRUN_FD then names a closed or foreign descriptor, which
 *    init detects and reports instead of talking to the wrong peer).
 *  - abort() uses only async-signal-safe calls (write/poll), no allocation.
 *    If it interrupts a half-sent message the stream is garbled; symrun then
 *    reports a protocol error or the PE's exit status instead of the abort. */
#include "bootstrap/boot_impl.h"
#include "bootstrap/symrun_proto.h"
#include "util/err.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

struct sr {
    int fd;
};

#define CMSG_BYTES CMSG_SPACE(SHMI_SYMRUN_FDS_PER_MSG * sizeof(int))

static const char *op_name(int op)
{
    switch (op) {
    case SHMI_SYMRUN_HELLO: return "init";
    case SHMI_SYMRUN_ALLGATHER: return "allgather";
    case SHMI_SYMRUN_BARRIER: return "barrier";
    case SHMI_SYMRUN_FDS: return "exchange_fds";
    case SHMI_SYMRUN_ABORT: return "abort";
    case SHMI_SYMRUN_FINI: return "fini";
    }
    return "unknown message";
}

/* ---- init ---------------------------------------------------------------- */

/* Strict decimal (leading zeros allowed: symrun pads so every PE's
 * environment has the same size). */
static int env_int(const char *name, long min, long max, int *out)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s) {
        int fd_itself = !strcmp(name, "SYMRUN_FD");
        shmi_boot_seterr("symrun bootstrap: %s is %s%s; start the program with symrun, or "
                         "unset SYMRUN_FD to run it as a single PE", name,
                         s ? "empty" : "not set", fd_itself ? "" : " although SYMRUN_FD is");
        return SHMI_EINVAL;
    }
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max) {
        shmi_boot_seterr("symrun bootstrap: %s='%s' is not a number in [%ld, %ld]; "
                         "start the program with symrun, or unset SYMRUN_FD to run "
                         "it as a single PE", name, s, min, max);
        return SHMI_EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* The descriptor must be the unix stream socket symrun made: a PE's child
 * sees SYMRUN_FD but not the (close-on-exec) socket. */
static int check_socket(int fd)
{
    struct stat st;
    int type = 0, dom = 0;
    socklen_t sl = sizeof type, dl = sizeof dom;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
        getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) != 0 || type != SOCK_STREAM ||
        getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0 || dom != AF_UNIX) {
        shmi_boot_seterr("symrun bootstrap: SYMRUN_FD=%d is not symrun's socket (%s); "
                         "was this process started by a PE instead of by symrun? Unset "
                         "SYMRUN_FD to run it as a single PE", fd,
                         fcntl(fd, F_GETFD) < 0 ? "descriptor not open" : "wrong kind of file");
        return SHMI_EBOOT;
    }
    const char *pid = getenv("SYMRUN_PID");
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (pid && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 &&
        cr.pid != (pid_t)atol(pid)) {
        shmi_boot_seterr("symrun bootstrap: SYMRUN_FD=%d is a socket of pid %ld, not of "
                         "symrun (SYMRUN_PID=%s); was this process started by a PE? Unset "
                         "SYMRUN_FD to run it as a single PE", fd, (long)cr.pid, pid);
        return SHMI_EBOOT;
    }
    return 0;
}

/* ---- raw I/O ------------------------------------------------------------- */

/* EAGAIN on a socket someone made non-blocking: wait, never spin. */
static int wait_io(int fd, short ev)
{
    struct pollfd p = { .fd = fd, .events = ev };
    while (poll(&p, 1, -1) < 0)
        if (errno != EINTR) return SHMI_ESYS;
    return 0;
}

/* Send header + payload; descriptors go with the first byte sent. */
static int send_msg(int fd, const struct shmi_symrun_hdr *h, const void *pay,
                    const int *fds, int nfds)
{
    union { char buf[CMSG_BYTES]; struct cmsghdr align; } u;
    struct iovec iov[2] = { { (void *)h, sizeof *h }, { (void *)pay, (size_t)h->len } };
    struct msghdr m = { .msg_iov = iov, .msg_iovlen = h->len ? 2 : 1 };
    if (nfds > 0) {
        memset(u.buf, 0, sizeof u.buf);
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    while (m.msg_iovlen > 0) {
        ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (wait_io(fd, POLLOUT)) return SHMI_ESYS;
                continue;
            }
            return errno == EPIPE || errno == ECONNRESET ? SHMI_EBOOT : SHMI_ESYS;
        }
        m.msg_control = NULL; /* sent with the first byte */
        m.msg_controllen = 0;
        while (m.msg_iovlen > 0 && (size_t)n >= m.msg_iov[0].iov_len) {
            n -= (ssize_t)m.msg_iov[0].iov_len;
            m.msg_iov++;
            m.msg_iovlen--;
        }
        if (m.msg_iovlen > 0) {
            m.msg_iov[0].iov_base = (char *)m.msg_iov[0].iov_base + n;
            m.msg_iov[0].iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* Keep descriptors that came with a recvmsg; extra ones are closed and make
 * the call fail (they would otherwise leak). */
static int take_fds(struct msghdr *m, int *fds, int max, int *got)
{
    int rc = 0;
    if (m->msg_flags & MSG_CTRUNC) rc = SHMI_ERANGE;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *in = (int *)CMSG_DATA(c);
        for (int i = 0; i < n; i++) {
            if (fds && *got < max) fds[(*got)++] = in[i];
            else { close(in[i]); rc = SHMI_ECORRUPT; }
        }
    }
    return rc;
}

/* Read exactly len bytes; descriptors (up to max) are appended to fds. */
static int recv_exact(int fd, void *buf, size_t len, int *fds, int max, int *got)
{
    union { char buf[CMSG_BYTES]; struct cmsghdr align; } u;
    size_t done = 0;
    int rc = 0;
    while (done < len) {
        struct iovec iov = { (char *)buf + done, len - done };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
                            .msg_control = u.buf, .msg_controllen = sizeof u.buf };
        ssize_t n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (wait_io(fd, POLLIN)) return SHMI_ESYS;
                continue;
            }
            return errno == ECONNRESET ? SHMI_EBOOT : SHMI_ESYS;
        }
        if (n == 0) return SHMI_EBOOT; /* symrun is gone */
        int r = take_fds(&m, fds, max, got);
        if (r && !rc) rc = r;
        done += (size_t)n;
    }
    return rc;
}

/* ---- messages ------------------------------------------------------------ */

static int fail(const shmi_boot_t *b, int rc, int op, const char *why)
{
    const char *sys = rc == SHMI_ESYS ? strerror(errno) : shmi_strerror(rc);
    if (rc == SHMI_EBOOT)
        shmi_log_error("%s through symrun failed: lost the connection to symrun "
                       "(it exited or is ending the job)", op_name(op));
    else
        shmi_log_error("%s through symrun failed on PE %d of %d: %s", op_name(op),
                       b->rank, b->size, why ? why : sys);
    return rc;
}

static int send_op(shmi_boot_t *b, int op, int arg, const void *pay, uint64_t len,
                   const int *fds, int nfds)
{
    const struct sr *s = b->priv;
    struct shmi_symrun_hdr h = { .magic = SHMI_SYMRUN_MAGIC, .op = (uint8_t)op,
                                 .nfds = (uint8_t)nfds, .arg = arg, .len = len };
    int rc = send_msg(s->fd, &h, pay, fds, nfds);
    return rc ? fail(b, rc, op, NULL) : 0;
}

/* Read the reply header of op and check it is what we asked for. */
static int recv_reply(shmi_boot_t *b, int op, uint64_t len, struct shmi_symrun_hdr *h,
                      int *fds, int max, int *got)
{
    const struct sr *s = b->priv;
    int rc = recv_exact(s->fd, h, sizeof *h, fds, max, got);
    if (rc == SHMI_ERANGE)
        return fail(b, rc, op, "descriptors were dropped (MSG_CTRUNC): the open-file "
                               "limit is too low; raise it with ulimit -n");
    if (rc) return fail(b, rc, op, NULL);
    if (h->magic != SHMI_SYMRUN_MAGIC || h->op != op || (op != SHMI_SYMRUN_FDS && h->len != len))
        return fail(b, SHMI_ECORRUPT, op, "symrun answered with an unexpected message "
                                          "(symrun and the library are from different builds?)");
    return 0;
}

/* ---- ops ----------------------------------------------------------------- */

static int sr_init(shmi_boot_t *b)
{
    int fd, rc;
    struct sr *s = NULL;
    if ((rc = env_int("SYMRUN_FD", 0, INT_MAX, &fd)) ||
        (rc = env_int("SYMRUN_SIZE", 1, INT_MAX, &b->size)) ||
        (rc = env_int("SYMRUN_RANK", 0, b->size - 1, &b->rank)) ||
        (rc = check_socket(fd)))
        goto out;
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        rc = SHMI_ESYS;
        goto out;
    }
    if (!(s = malloc(sizeof *s))) {
        rc = SHMI_ENOMEM;
        goto out;
    }
    s->fd = fd;
    b->priv = s;
    int32_t id[2] = { b->rank, b->size };
    struct shmi_symrun_hdr h = { .magic = SHMI_SYMRUN_MAGIC, .op = SHMI_SYMRUN_HELLO,
                                 .arg = SHMI_SYMRUN_VERSION, .len = sizeof id };
    if ((rc = send_msg(fd, &h, id, NULL, 0)))
        shmi_boot_seterr("symrun bootstrap: PE %d cannot reach symrun through SYMRUN_FD=%d "
                         "(%s); symrun has exited", b->rank, fd, shmi_strerror(rc));
out:
    if (rc) {
        free(s);
        b->priv = NULL;
    }
    return rc;
}

static int sr_allgather(shmi_boot_t *b, const void *in, void *out, size_t len)
{
    struct shmi_symrun_hdr h;
    int got = 0, rc;
    uint64_t total = (uint64_t)len * (uint64_t)b->size;
    if (len && total / len != (uint64_t)b->size) return SHMI_ERANGE;
    if ((rc = send_op(b, SHMI_SYMRUN_ALLGATHER, 0, in, len, NULL, 0)) ||
        (rc = recv_reply(b, SHMI_SYMRUN_ALLGATHER, total, &h, NULL, 0, &got)))
        return rc;
    rc = recv_exact(((struct sr *)b->priv)->fd, out, total, NULL, 0, &got);
    return rc ? fail(b, rc, SHMI_SYMRUN_ALLGATHER, NULL) : 0;
}

static int sr_barrier(shmi_boot_t *b)
{
    struct shmi_symrun_hdr h;
    int got = 0, rc = send_op(b, SHMI_SYMRUN_BARRIER, 0, NULL, 0, NULL, 0);
    return rc ? rc : recv_reply(b, SHMI_SYMRUN_BARRIER, 0, &h, NULL, 0, &got);
}

/* Receiving size*nfds descriptors may pass the soft RLIMIT_NOFILE (1024 by
 * default; 256 PEs x 4 fds already do): raise the soft limit, within the hard
 * one, to what this exchange needs. */
static int open_fd_count(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return 256;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

static int reserve_fds(shmi_boot_t *b, long extra)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
    rlim_t need = (rlim_t)(open_fd_count() + extra + 16);
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
            shmi_log_error("exchange_fds: PE %d needs %lu open files for %d PEs x %ld "
                           "descriptors but the hard limit is %lu; raise it "
                           "(ulimit -Hn %lu, or limits.conf)", b->rank, (unsigned long)need,
                           b->size, extra / b->size, (unsigned long)rl.rlim_max,
                           (unsigned long)need);
            return SHMI_ERANGE;
        }
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return SHMI_ESYS;
        shmi_log_debug("raised RLIMIT_NOFILE to %lu for exchange_fds", (unsigned long)need);
    }
    return 0;
}

static int send_fds(shmi_boot_t *b, const int *fds, int nfds)
{
    int k = 0, rc = 0;
    do { /* nfds == 0 still sends one (empty) message: it is the round */
        int n = nfds - k < SHMI_SYMRUN_FDS_PER_MSG ? nfds - k : SHMI_SYMRUN_FDS_PER_MSG;
        rc = send_op(b, SHMI_SYMRUN_FDS, nfds, NULL, 0, fds + k, n);
        k += n;
    } while (!rc && k < nfds);
    return rc;
}

static int recv_fds(shmi_boot_t *b, int *all, int total)
{
    struct shmi_symrun_hdr h;
    int got = 0, rc = 0;
    do {
        int before = got;
        rc = recv_reply(b, SHMI_SYMRUN_FDS, 0, &h, all, total, &got);
        if (!rc && (h.arg != total || got - before != h.nfds || h.len != 0))
            rc = fail(b, SHMI_ECORRUPT, SHMI_SYMRUN_FDS, "symrun sent a wrong number of descriptors");
    } while (!rc && got < total);
    if (rc)
        while (got > 0) close(all[--got]);
    return rc;
}

static int sr_exchange_fds(shmi_boot_t *b, const int *fds, int nfds, int *all)
{
    long total = (long)nfds * b->size;
    if (nfds < 0 || total > INT_MAX) return SHMI_EINVAL;
    for (long i = 0; i < total; i++) all[i] = -1;
    int rc = reserve_fds(b, total);
    if (!rc) rc = send_fds(b, fds, nfds);
    if (!rc) rc = recv_fds(b, all, (int)total);
    return rc;
}

/* Async-signal-safe: stack buffer, send/poll only, gives up after ~1 s. */
static void sr_abort(shmi_boot_t *b, int code, const char *msg)
{
    const struct sr *s = b->priv;
    struct {
        struct shmi_symrun_hdr h;
        char text[SHMI_SYMRUN_ABORT_MSG_MAX];
    } m;
    size_t n = 0, off = 0;
    if (!s) return;
    while (msg && msg[n] && n < sizeof m.text) { m.text[n] = msg[n]; n++; }
    memset(&m.h, 0, sizeof m.h);
    m.h.magic = SHMI_SYMRUN_MAGIC;
    m.h.op = SHMI_SYMRUN_ABORT;
    m.h.arg = code;
    m.h.len = n;
    size_t len = sizeof m.h + n;
    for (int tries = 0; off < len && tries < 100;) {
        ssize_t w = send(s->fd, (char *)&m + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) { off += (size_t)w; continue; }
        if (w < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return;
        struct pollfd p = { .fd = s->fd, .events = POLLOUT };
        poll(&p, 1, 10);
        tries++;
    }
}

static void sr_fini(shmi_boot_t *b)
{
    struct sr *s = b->priv;
    if (!s) return;
    struct shmi_symrun_hdr h = { .magic = SHMI_SYMRUN_MAGIC, .op = SHMI_SYMRUN_FINI };
    (void)send_msg(s->fd, &h, NULL, NULL, 0); /* symrun gone: nothing left to tell */
    close(s->fd);
    free(s);
    b->priv = NULL;
}

const struct shmi_boot_ops shmi_boot_symrun_ops = {
    .name = "symrun",
    .init = sr_init,
    .allgather = sr_allgather,
    .barrier = sr_barrier,
    .exchange_fds = sr_exchange_fds,
    .abort = sr_abort,
    .fini = sr_fini,
};
