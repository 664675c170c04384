/* boot_fdx.c - the node-local memory-handle exchange (exchange_fds of
 * boot.h) for bootstraps that have no launcher socket to carry SCM_RIGHTS
 * (pmix, uid): built on the bootstrap's own allgather.
 *
 * Every PE listens on an abstract-namespace unix socket (a name that exists
 * only while the socket is open: nothing in any file system, gone when the
 * process dies, even by SIGKILL), publishes its name and pid with an
 * allgather, and sends its descriptors to every node-local peer with
 * SCM_RIGHTS.  Both sides check the other's SO_PEERCRED (our uid, the pid the
 * peer published), so no other process can inject or take descriptors; a
 * connection from anyone else is dropped unread and the exchange keeps
 * waiting for the real peers.  Descriptors in flight are held by the kernel,
 * so a peer can close (or die) right after sending.  Alternatives rejected:
 * pidfd_getfd(2) needs PTRACE_MODE_ATTACH (Yama ptrace_scope >= 1 forbids it
 * between sibling processes, container seccomp profiles often block it);
 * /proc/<pid>/fd/<n> needs a dumpable peer and a visible /proc; a named
 * /dev/shm object is left behind when a PE is killed between creating and
 * unlinking it.  Abstract names are per network namespace: node-local PEs
 * must share one (the bootstraps group PEs by it). */
#include "bootstrap/boot_impl.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>


#define FDX_MAGIC 0x53484658u /* "SHFX" */
#define FDX_PER_MSG 64
#define FDX_TIMEOUT_MS 60000

struct fdx_addr {
    int32_t pid;
    uint32_t uid;
    char name[48]; /* abstract name without the leading NUL */
};

struct fdx_hdr {
    uint32_t magic;
    int32_t rank;  /* sender */
    int32_t total; /* descriptors the sender sends in all */
    int32_t n;     /* descriptors with this header */
};

static long now_ms(void)
{
    return (long)(shmi_clock_s() * 1000);
}

static socklen_t fdx_sockaddr(const char *name, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    size_t n = strnlen(name, sizeof a->sun_path - 2);
    memcpy(a->sun_path + 1, name, n); /* sun_path[0] = 0: abstract namespace */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int fdx_listen(int backlog, struct fdx_addr *me)
{
    me->pid = (int32_t)getpid();
    me->uid = (uint32_t)geteuid();
    for (int tries = 0; tries < 8; tries++) {
        uint64_t nonce = 0;
        if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != sizeof nonce)
            nonce = ((uint64_t)now_ms() << 20) ^ (uint64_t)(uintptr_t)&nonce ^ (uint64_t)tries;
        snprintf(me->name, sizeof me->name, "symheap.%d.%016llx", (int)me->pid,
                 (unsigned long long)nonce);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) return -1;
        struct sockaddr_un a;
        socklen_t al = fdx_sockaddr(me->name, &a);
        if (bind(fd, (struct sockaddr *)&a, al) == 0 && listen(fd, backlog) == 0) return fd;
        int e = errno;
        close(fd);
        errno = e;
        if (e != EADDRINUSE) return -1;
    }
    return -1;
}

/* The process at the other end of fd is pid, running as uid. */
static int peer_is(int fd, const struct fdx_addr *a)
{
    struct ucred c;
    socklen_t cl = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &cl) != 0) return 0;
    return c.pid == a->pid && c.uid == a->uid;
}

static int wait_fd(int fd, short ev, long deadline)
{
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0) { errno = ETIMEDOUT; return -1; }
        struct pollfd p = { .fd = fd, .events = ev };
        int r = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (r > 0) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}

/* Send our nfds descriptors to the peer listening at a; 0 when done, 1 when
 * its backlog is full (try later), -1 with errno on failure. */
static int fdx_send(const struct fdx_addr *a, int rank, const int *fds, int nfds, long deadline)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    struct sockaddr_un sa;
    socklen_t al = fdx_sockaddr(a->name, &sa);
    if (connect(s, (struct sockaddr *)&sa, al) != 0) {
        int e = errno;
        close(s);
        errno = e;
        return e == EAGAIN ? 1 : -1;
    }
    if (!peer_is(s, a)) { /* someone else holds the name: never hand it our memory */
        close(s);
        errno = EPERM;
        return -1;
    }
    int k = 0, rc = 0;
    do {
        int n = nfds - k < FDX_PER_MSG ? nfds - k : FDX_PER_MSG;
        struct fdx_hdr h = { FDX_MAGIC, rank, nfds, n };
        union { char buf[CMSG_SPACE(FDX_PER_MSG * sizeof(int))]; struct cmsghdr align; } u;
        struct iovec iov = { &h, sizeof h };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (n > 0) {
            memset(&u, 0, sizeof u);
            m.msg_control = u.buf;
            m.msg_controllen = CMSG_SPACE((size_t)n * sizeof(int));
            struct cmsghdr *c = CMSG_FIRSTHDR(&m);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
            memcpy(CMSG_DATA(c), fds + k, (size_t)n * sizeof(int));
        }
        ssize_t w;
        while ((w = sendmsg(s, &m, MSG_NOSIGNAL)) < 0 && (errno == EINTR || errno == EAGAIN))
            if (errno == EAGAIN && wait_fd(s, POLLOUT, deadline) != 0) break;
        if (w != (ssize_t)sizeof h) { rc = -1; break; } /* unix stream: all or error */
        k += n;
    } while (k < nfds);
    int e = errno;
    close(s); /* what we sent stays queued at the peer, descriptors included */
    errno = e;
    return rc;
}

/* The node-local PE (not us) whose process is at the other end of the
 * accepted connection c: its SO_PEERCRED must be our uid and the pid a PE
 * published; -1 for anyone else.  The abstract socket's name is visible in
 * /proc/net/unix, so any local user can connect: such a connection is
 * dropped before a byte is read from it, and the exchange goes on waiting for
 * the real peers (issue 17: a silent or garbage connection of another user
 * used to stall shmem_init, then fail the job). */
static int fdx_peer_rank(int c, const shmi_boot_t *b, const struct fdx_addr *addrs,
                         struct ucred *cr)
{
    socklen_t cl = sizeof *cr;
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, cr, &cl) != 0) return -1;
    for (int i = 0; i < b->local_size; i++) {
        int pe = b->local_pes[i];
        if (pe != b->rank && addrs[pe].pid == cr->pid && addrs[pe].uid == cr->uid) return pe;
    }
    return -1;
}

/* Read one sender's descriptors (PE expect's, checked by fdx_peer_rank) from
 * an accepted connection into all[]. */
static int fdx_recv(int s, const struct fdx_addr *addrs, const int *local_of, int size,
                    int nfds, int *all, int *from, int expect, long deadline)
{
    int k = 0, rank = expect;
    do {
        struct fdx_hdr h;
        union { char buf[CMSG_SPACE(FDX_PER_MSG * sizeof(int))]; struct cmsghdr align; } u;
        struct iovec iov = { &h, sizeof h };
        struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                            .msg_controllen = sizeof u.buf };
        ssize_t r;
        while ((r = recvmsg(s, &m, MSG_CMSG_CLOEXEC)) < 0 && (errno == EINTR || errno == EAGAIN))
            if (errno == EAGAIN && wait_fd(s, POLLIN, deadline) != 0) return -1;
        int got[FDX_PER_MSG], ngot = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); r > 0 && c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (int i = 0; i < n; i++) {
                    int fd;
                    memcpy(&fd, CMSG_DATA(c) + (size_t)i * sizeof(int), sizeof fd);
                    if (ngot < FDX_PER_MSG) got[ngot++] = fd;
                    else close(fd);
                }
            }
        int ok = r == (ssize_t)sizeof h && !(m.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) &&
                 h.magic == FDX_MAGIC && h.rank >= 0 && h.rank < size && local_of[h.rank] >= 0 &&
                 (rank < 0 || h.rank == rank) && h.total == nfds && h.n == ngot &&
                 k + ngot <= nfds && peer_is(s, &addrs[h.rank]);
        if (!ok) {
            for (int i = 0; i < ngot; i++) close(got[i]);
            errno = EPROTO;
            return -1;
        }
        rank = h.rank;
        for (int i = 0; i < ngot; i++) all[(size_t)rank * (size_t)nfds + (size_t)(k + i)] = got[i];
        k += ngot;
    } while (k < nfds);
    *from = rank;
    return 0;
}

/* Receiving local_size x nfds descriptors may pass the soft RLIMIT_NOFILE:
 * raise it within the hard limit (as the symrun bootstrap does). */
static void fdx_reserve(long extra)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
    rlim_t need = (rlim_t)extra + 256;
    if (rl.rlim_cur >= need + 64) return; /* rough: we do not count the open ones */
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur + need
                      ? rl.rlim_cur + need : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
}

int shmi_boot_fdx_exchange(shmi_boot_t *b, const int *fds, int nfds, int *all)
{
    long total = (long)nfds * b->size;
    if (nfds < 0 || total > INT_MAX) return SHMI_EINVAL;
    for (long i = 0; i < total; i++) all[i] = -1;
    struct fdx_addr me, *addrs = calloc((size_t)b->size, sizeof *addrs);
    if (!addrs) return SHMI_ENOMEM;
    int rc = SHMI_OK, lfd = -1, nloc = b->local_size;
    int *local_rank_of = malloc(sizeof(int) * (size_t)b->size);
    if (!local_rank_of) { free(addrs); return SHMI_ENOMEM; }
    for (int r = 0; r < b->size; r++) local_rank_of[r] = -1;
    for (int i = 0; i < b->local_size; i++) local_rank_of[b->local_pes[i]] = i;
    char why[200] = "";
    fdx_reserve((long)nfds * nloc);
    memset(&me, 0, sizeof me);
    if (nloc > 1 && (lfd = fdx_listen(nloc, &me)) < 0)
        snprintf(why, sizeof why, "cannot listen on an abstract unix socket: %s",
                 strerror(errno));
    /* Every PE takes part in the allgather, also the one that failed above. */
    me.pid = lfd >= 0 || nloc == 1 ? me.pid : -1;
    if ((rc = shmi_boot_allgather(b, &me, addrs, sizeof me)) != SHMI_OK) goto out;
    for (int i = 0; i < nloc && !why[0]; i++)
        if (addrs[b->local_pes[i]].pid < 0)
            snprintf(why, sizeof why, "PE %d could not open its unix socket",
                     b->local_pes[i]);
    for (int k = 0; k < nfds && !why[0]; k++)
        if ((all[(size_t)b->rank * nfds + k] = fcntl(fds[k], F_DUPFD_CLOEXEC, 0)) < 0)
            snprintf(why, sizeof why, "dup: %s", strerror(errno));
    if (!why[0] && nloc > 1) {
        long deadline = now_ms() + FDX_TIMEOUT_MS;
        char *sent = calloc((size_t)nloc, 1), *got = calloc((size_t)nloc, 1);
        int nsent = 1, ngot = 1; /* ourselves */
        if (!sent || !got) snprintf(why, sizeof why, "out of memory");
        else sent[b->local_rank] = got[b->local_rank] = 1;
        while (!why[0] && (nsent < nloc || ngot < nloc)) {
            int progress = 0, aerr = EAGAIN;
            /* Send to the peers after us first, so not everyone hits PE 0. */
            for (int j = 1; j < nloc && !why[0]; j++) {
                int i = (b->local_rank + j) % nloc, pe = b->local_pes[i];
                if (sent[i]) continue;
                int r = fdx_send(&addrs[pe], b->rank, fds, nfds, deadline);
                if (r == 0) { sent[i] = 1; nsent++; progress = 1; }
                else if (r < 0)
                    snprintf(why, sizeof why, "cannot hand our memory to PE %d (pid %d, "
                             "socket @%s): %s", pe, (int)addrs[pe].pid, addrs[pe].name,
                             strerror(errno));
            }
            while (!why[0] && ngot < nloc) {
                int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), from = -1;
                if (c < 0) { aerr = errno; break; }
                struct ucred cr = { 0, 0, 0 };
                int who = fdx_peer_rank(c, b, addrs, &cr);
                if (who < 0 || got[local_rank_of[who]]) {
                    shmi_log_debug("%s bootstrap: exchange_fds: dropped a connection from "
                                   "pid %d (uid %u): %s", b->ops->name, (int)cr.pid, (unsigned)cr.uid,
                                   who < 0 ? "not a PE of this job on this node"
                                           : "that PE's memory handles already came");
                    close(c);
                    continue;
                }
                if (fdx_recv(c, addrs, local_rank_of, b->size, nfds, all, &from, who,
                             deadline) != 0 || got[local_rank_of[from]])
                    snprintf(why, sizeof why, "bad memory handles from a local process "
                             "(%s)", strerror(errno));
                else { got[local_rank_of[from]] = 1; ngot++; progress = 1; }
                close(c);
            }
            if (why[0] || progress) continue;
            if (aerr != EAGAIN && aerr != EWOULDBLOCK && aerr != EINTR && aerr != ECONNABORTED)
                snprintf(why, sizeof why, "accept: %s", strerror(aerr));
            else if (now_ms() > deadline) {
                for (int i = 0; i < nloc && !why[0]; i++)
                    if (!got[i] || !sent[i])
                        snprintf(why, sizeof why, "no exchange with PE %d (pid %d) within "
                                 "%d s", b->local_pes[i], (int)addrs[b->local_pes[i]].pid,
                                 FDX_TIMEOUT_MS / 1000);
            } else {
                struct pollfd p = { .fd = lfd, .events = POLLIN };
                poll(&p, 1, nsent < nloc ? 1 : 100); /* backlog full: retry soon */
            }
        }
        free(sent);
        free(got);
    }
out:
    if (lfd >= 0) close(lfd);
    free(addrs);
    free(local_rank_of);
    if (rc == SHMI_OK && why[0]) {
        shmi_log_error("%s bootstrap: exchange_fds: %s", b->ops->name, why);
        rc = SHMI_EBOOT;
    }
    if (rc != SHMI_OK)
        for (long i = 0; i < total; i++)
            if (all[i] >= 0) { close(all[i]); all[i] = -1; }
    return rc;
}
