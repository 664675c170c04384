/* boot_uid.c - the unique-ID bootstrap: PEs that no launcher started find
 * each other through an ID that one process made (shmemx_get_uniqueid,
 * nvshmemx_get_uniqueid) and the program handed to the others itself (MPI,
 * torch.distributed, a file, fork), as NVSHMEM's NVSHMEMX_INIT_WITH_UNIQUEID.
 *
 * The ID is text: "symheap-uid1 <address> <port> <secret>".  Making it opens
 * a TCP socket on that address and starts the rendezvous service, a thread
 * of the making process (the "root"), which serves the job until every PE
 * has finalized, so the making process must live that long (NVSHMEM's and
 * NCCL's roots have the same rule).  The making process need not be a PE.
 *
 * Every PE connects to the root (retrying until SHMEM_BOOTSTRAP_TIMEOUT),
 * says hello with the ID's secret (a connection without it is dropped unread,
 * so no other user can join or stall the job), its rank and the job's size;
 * then the root is a star:
 *   allgather  each PE sends its part, the root answers with the whole when
 *              the last part came; barrier = allgather of nothing;
 *   abort      the PE's message goes to the root, which tells every other PE
 *              to exit with the same code (one of them prints why);
 *   a PE lost  (its connection closed before it finalized: killed, crashed,
 *              exited without shmem_finalize; a finalized PE says so, and
 *              its end is then no loss, even by _exit) or a rank that never came
 *              within the timeout: the root ends every other PE, the lowest
 *              rank printing one line that names the PE, its pid and host;
 *   root lost  every PE's reader thread sees the end of its connection and
 *              exits with a line naming the root's address and pid.
 * A reader thread per PE owns the connection's reading side, so an abort
 * reaches a PE whatever it is doing, and nothing outlives the job.
 * node-local PEs: those with our node key (host name, boot id, network and
 * PID namespace: what memory-handle passing through abstract unix sockets
 * needs, boot_fdx.c); the others are the network transport's.
 *
 * Every descriptor is close-on-exec, and a fork()ed child closes the root's
 * and the PE's sockets (pthread_atfork): a child holding a copy would hide a
 * dead process's end of connection from the others. */
#include "bootstrap/boot_impl.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/err.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define UID_TAG "symheap-uid1"
#define UID_MAGIC 0x53485549u /* "SHUI" */
#define UID_MSG_MAX 1024
#define UID_KEY_LEN 320

enum { F_HELLO = 1, F_GATHER, F_GATHERED, F_ABORT, F_FINI, F_BYE, F_STATE };

struct frame {
    uint32_t magic, type;
    int32_t a, b;  /* HELLO: rank, nranks; ABORT: code, print (root to PE);
                      STATE: finalized (1) or running again (0) */
    uint64_t len;  /* payload bytes that follow */
};

struct hello {
    unsigned char secret[16];
    int32_t pid;
    char host[256];
};

/* ---- sockets ------------------------------------------------------------- */

static long now_ms(void) { return (long)(shmi_clock_s() * 1000); }

/* All of buf, or -1 (EOF is -1 with errno 0). */
static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r == 0) { errno = 0; return -1; }
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1; /* EAGAIN: SO_RCVTIMEO ran out (blocking sockets only) */
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_frame(int fd, uint32_t type, int a, int b, const void *data, size_t len)
{
    struct frame f = { UID_MAGIC, type, a, b, len };
    struct iovec v[2] = { { &f, sizeof f }, { (void *)(uintptr_t)data, len } };
    size_t left = sizeof f + len;
    int iv = 0;
    while (left) {
        ssize_t w = writev(fd, v + iv, 2 - iv);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        left -= (size_t)w;
        while (iv < 2 && (size_t)w >= v[iv].iov_len) w -= (ssize_t)v[iv++].iov_len;
        if (iv < 2) {
            v[iv].iov_base = (char *)v[iv].iov_base + w;
            v[iv].iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* A frame's header, checked; -1 on EOF, error or garbage. */
static int read_frame(int fd, struct frame *f)
{
    if (read_all(fd, f, sizeof *f) != 0) return -1;
    if (f->magic != UID_MAGIC || f->type < F_HELLO || f->type > F_STATE ||
        f->len > ((uint64_t)1 << 40)) {
        errno = EPROTO;
        return -1;
    }
    return 0;
}

static void nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* SHMEM_BOOTSTRAP_TIMEOUT in ms, or -1 with the reason in err. */
static long timeout_ms(char *err, size_t errlen)
{
    const char *var = "SHMEM_BOOTSTRAP_TIMEOUT";
    const char *v = shmi_env_get("BOOTSTRAP_TIMEOUT", &var);
    size_t s = 120;
    if (v && (shmi_parse_count(v, &s) != 0 || s < 1 || s > 86400)) {
        snprintf(err, errlen, "%s='%s': expected whole seconds from 1 to 86400", var, v);
        return -1;
    }
    return (long)s * 1000;
}

/* The address to put into a new ID: SHMEM_BOOTSTRAP_UID_SOCK_IFNAME's
 * (NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME) first address, else the first
 * interface that is up and not loopback (IPv4 before IPv6), else loopback:
 * a job on one host always works. */
static int pick_addr(struct sockaddr_storage *ss, socklen_t *sl, char *err, size_t errlen)
{
    const char *var = "SHMEM_BOOTSTRAP_UID_SOCK_IFNAME";
    const char *want = shmi_env_get("BOOTSTRAP_UID_SOCK_IFNAME", &var);
    struct ifaddrs *ifs = NULL, *best = NULL;
    if (getifaddrs(&ifs) != 0) ifs = NULL;
    for (int pass = 0; pass < 3 && !best; pass++)
        for (struct ifaddrs *i = ifs; i && !best; i = i->ifa_next) {
            if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
            int fam = i->ifa_addr->sa_family;
            if (fam != AF_INET && fam != AF_INET6) continue;
            if (want && *want) {
                if (!strcmp(i->ifa_name, want) && (pass == 0 ? fam == AF_INET : 1)) best = i;
                continue;
            }
            if (fam == AF_INET6) {
                const struct in6_addr *a = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
                if (IN6_IS_ADDR_LINKLOCAL(a)) continue; /* needs a scope id */
            }
            int lo = (i->ifa_flags & IFF_LOOPBACK) != 0;
            if ((pass == 0 && !lo && fam == AF_INET) || (pass == 1 && !lo) ||
                (pass == 2 && lo && fam == AF_INET))
                best = i;
        }
    if (want && *want && !best) {
        snprintf(err, errlen, "%s=%s: no interface of that name with an address that is up "
                 "(see 'ip addr'); name another or unset it", var, want);
        freeifaddrs(ifs);
        return -1;
    }
    memset(ss, 0, sizeof *ss);
    if (best) {
        *sl = best->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                                   : sizeof(struct sockaddr_in6);
        memcpy(ss, best->ifa_addr, *sl);
    } else {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        *sl = sizeof *in;
    }
    freeifaddrs(ifs);
    return 0;
}

/* ---- the ID --------------------------------------------------------------- */

struct uid {
    char host[64]; /* numeric address */
    int port;
    unsigned char secret[16];
};

static int uid_parse(const char *text, struct uid *u)
{
    char tag[16], hex[40];
    memset(u, 0, sizeof *u);
    if (sscanf(text, "%15s %63s %d %39s", tag, u->host, &u->port, hex) != 4 ||
        strcmp(tag, UID_TAG) != 0 || u->port <= 0 || u->port > 65535 || strlen(hex) != 32)
        return -1;
    for (int i = 0; i < 16; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        u->secret[i] = (unsigned char)v;
    }
    return 0;
}

/* A PE's side: its connection to the root, read by its reader thread. */
struct pe {
    int fd;
    struct uid id;
    pthread_t reader;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *reply;
    size_t reply_len;
    int have_reply, finishing;
};

static struct pe *the_pe; /* this process's PE, when it is one */

int shmi_boot_uid_valid(const char *id)
{
    struct uid u;
    char text[SHMI_BOOT_UID_LEN];
    if (!id) return 0;
    snprintf(text, sizeof text, "%s", id);
    return uid_parse(text, &u) == 0;
}

/* ---- the root: the rendezvous service ------------------------------------ */

struct conn {
    int fd;        /* -1 before hello and after the end */
    int finished;  /* finalized (STATE 1), sent FINI or an abort: its end is no loss */
    int pid;
    char host[64];
    char *part;    /* its allgather part, until the gather completes */
};

struct root {
    struct root *next;
    int lfd;
    struct uid id;
    long timeout;
    pthread_t thread;
    int started;
    int nranks, connected, ended, aborted, ngather;
    int forwarded; /* every PE was told to end */
    char why[UID_MSG_MAX]; /* why the job was ended (aborted), for PEs that join late */
    long aborted_at;       /* now_ms() of the abort: late PEs are turned away a while */
    int seen, fewest;      /* hellos so far; the smallest nranks one of them said */
    uint64_t glen;
    struct conn *c;
};

static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct root *roots;

/* Tell every PE still connected to exit with code; the lowest rank prints
 * why (when why is set: else the aborting PE printed it). */
static void root_abort(struct root *r, int code, const char *why)
{
    int printer = 1;
    r->aborted = 1;
    r->aborted_at = now_ms();
    if (why) snprintf(r->why, sizeof r->why, "%s", why);
    /* This process's own PE last: it exits on reading the frame, and takes
     * this thread with it. */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < r->nranks; i++) {
            if (r->c[i].fd < 0 || (r->c[i].pid == (int)getpid()) != pass) continue;
            int print = why && printer;
            if (write_frame(r->c[i].fd, F_ABORT, code, print, why ? why : "",
                            why ? strlen(why) + 1 : 1) == 0 && print)
                printer = 0;
        }
    __atomic_store_n(&r->forwarded, 1, __ATOMIC_RELEASE);
}

static void root_close(struct root *r, int rank)
{
    struct conn *c = &r->c[rank];
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    free(c->part);
    c->part = NULL;
    r->ended++;
}

/* An accepted connection: its hello, within 2 s; a connection without our
 * secret is dropped unread beyond the hello. */
static void root_hello(struct root *r, int fd)
{
    struct timeval tv = { 2, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct frame f;
    struct hello h;
    char why[UID_MSG_MAX];
    if (read_frame(fd, &f) != 0 || f.type != F_HELLO || f.len != sizeof h ||
        read_all(fd, &h, sizeof h) != 0 || memcmp(h.secret, r->id.secret, 16) != 0) {
        shmi_log_debug("unique-ID rendezvous: dropped a connection that did not say the ID's "
                       "secret");
        close(fd);
        return;
    }
    h.host[sizeof h.host - 1] = 0;
    tv.tv_sec = 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    r->seen++;
    if (f.b > 0 && (r->fewest == 0 || f.b < r->fewest)) r->fewest = f.b;
    if (r->aborted) { /* a late PE of a job already ended: it must end too, not wait */
        snprintf(why, sizeof why, "rank %d (pid %d on %s) came after the job had ended: %.*s",
                 f.a, h.pid, h.host, (int)sizeof why / 2,
                 r->why[0] ? r->why : "another PE's error (said above)");
        write_frame(fd, F_ABORT, 1, 1, why, strlen(why) + 1);
        close(fd);
        return;
    }
    if (r->nranks < 0) { /* the first PE sets the job's size */
        if (f.b < 1 || f.b > (1 << 24)) {
            snprintf(why, sizeof why, "rank %d (pid %d on %s) says nranks=%d", f.a, h.pid,
                     h.host, f.b);
            write_frame(fd, F_ABORT, 1, 1, why, strlen(why) + 1);
            close(fd);
            return;
        }
        r->c = calloc((size_t)f.b, sizeof *r->c);
        if (!r->c) { close(fd); return; }
        r->nranks = f.b;
        for (int i = 0; i < f.b; i++) r->c[i].fd = -1;
    }
    why[0] = 0;
    if (f.b != r->nranks)
        snprintf(why, sizeof why, "rank %d (pid %d on %s) says nranks=%d, but the PEs before "
                 "it said %d: give every PE the same nranks", f.a, h.pid, h.host, f.b,
                 r->nranks);
    else if (f.a < 0 || f.a >= r->nranks)
        snprintf(why, sizeof why, "pid %d on %s says rank %d: need 0 <= rank < nranks=%d",
                 h.pid, h.host, f.a, r->nranks);
    else if (r->c[f.a].fd >= 0 || r->c[f.a].pid)
        snprintf(why, sizeof why, "rank %d came twice (pid %d on %s, then pid %d on %s): give "
                 "every process its own rank", f.a, r->c[f.a].pid, r->c[f.a].host, h.pid,
                 h.host);
    if (why[0]) { /* a broken job: end it whole */
        write_frame(fd, F_ABORT, 1, 1, why, strlen(why) + 1);
        close(fd);
        root_abort(r, 1, NULL);
        snprintf(r->why, sizeof r->why, "%s", why);
        return;
    }
    struct conn *c = &r->c[f.a];
    c->fd = fd;
    c->pid = h.pid;
    snprintf(c->host, sizeof c->host, "%.63s", h.host);
    r->connected++;
}

/* One frame from rank i; 0, or -1 when its connection ended. */
static int root_serve(struct root *r, int i)
{
    struct conn *c = &r->c[i];
    struct frame f;
    char why[UID_MSG_MAX];
    if (read_frame(c->fd, &f) != 0) {
        if (!c->finished && !r->aborted) {
            snprintf(why, sizeof why, "PE %d (pid %d on %s) ended without shmem_finalize "
                     "(killed, crashed or exited early): the job ends", i, c->pid, c->host);
            root_close(r, i);
            root_abort(r, 1, why);
            return -1;
        }
        root_close(r, i);
        return -1;
    }
    switch (f.type) {
    case F_GATHER: {
        char *p = malloc(f.len ? f.len : 1);
        if (!p || read_all(c->fd, p, f.len) != 0 || c->part) {
            free(p);
            root_close(r, i);
            root_abort(r, 1, "unique-ID rendezvous: a PE's allgather failed (out of memory or "
                             "a broken connection)");
            return -1;
        }
        if (r->ngather && f.len != r->glen) {
            snprintf(why, sizeof why, "bootstrap allgather: PE %d gave %llu bytes, another PE "
                     "%llu: PEs of different symheap builds?", i, (unsigned long long)f.len,
                     (unsigned long long)r->glen);
            free(p);
            root_abort(r, 1, why);
            return 0;
        }
        c->part = p;
        r->glen = f.len;
        if (++r->ngather < r->nranks) return 0;
        size_t len = (size_t)r->glen, total = len * (size_t)r->nranks;
        char *all = malloc(total ? total : 1);
        if (!all) {
            root_abort(r, 1, "unique-ID rendezvous: out of memory in an allgather");
            return 0;
        }
        for (int k = 0; k < r->nranks; k++) {
            if (len) memcpy(all + (size_t)k * len, r->c[k].part, len);
            free(r->c[k].part);
            r->c[k].part = NULL;
        }
        r->ngather = 0;
        for (int k = 0; k < r->nranks; k++)
            if (r->c[k].fd >= 0) write_frame(r->c[k].fd, F_GATHERED, 0, 0, all, total);
        free(all);
        return 0;
    }
    case F_ABORT: {
        size_t n = f.len < sizeof why ? f.len : sizeof why - 1;
        if (read_all(c->fd, why, n) != 0) n = 0;
        why[n] = 0;
        c->finished = 1; /* its end is no loss: it said why */
        root_abort(r, f.a ? f.a : 1, NULL);
        return 0;
    }
    case F_STATE:
        c->finished = f.a != 0;
        return 0;
    case F_FINI:
        c->finished = 1;
        write_frame(c->fd, F_BYE, 0, 0, NULL, 0);
        root_close(r, i);
        return -1;
    default:
        root_close(r, i);
        root_abort(r, 1, "unique-ID rendezvous: a PE sent a frame out of order");
        return -1;
    }
}

static void *root_main(void *arg)
{
    struct root *r = arg;
    long deadline = now_ms() + r->timeout;
    struct pollfd *p = NULL;
    int *who = NULL, cap = 0;
    for (;;) {
        if (r->nranks > 0 && r->ended >= r->nranks) break;
        if (r->nranks > 0 && r->connected < r->nranks && now_ms() > deadline && !r->aborted) {
            char why[UID_MSG_MAX];
            int at = snprintf(why, sizeof why, "the unique-ID rendezvous at %s port %d waited "
                              "%ld s: rank", r->id.host, r->id.port, r->timeout / 1000);
            int missing = 0;
            for (int i = 0; i < r->nranks && at < (int)sizeof why - 80; i++)
                if (r->c[i].fd < 0 && !r->c[i].pid)
                    at += snprintf(why + at, sizeof why - (size_t)at, "%s %d",
                                   missing++ ? "," : "", i);
            snprintf(why + at, sizeof why - (size_t)at, " of nranks=%d never came: start every "
                     "rank with the same ID, or raise SHMEM_BOOTSTRAP_TIMEOUT", r->nranks);
            root_abort(r, 1, why);
            break;
        }
        int want = 1 + (r->nranks > 0 ? r->nranks : 0);
        if (want > cap) {
            free(p);
            free(who);
            p = malloc(sizeof *p * (size_t)want);
            who = malloc(sizeof *who * (size_t)want);
            if (!p || !who) break;
            cap = want;
        }
        /* after an abort, PEs that come late are told so (else they would
         * wait for a job that is gone), until as many PEs came as the
         * smallest nranks any said, or for the bootstrap timeout */
        if (r->aborted && (r->seen >= r->fewest || now_ms() > r->aborted_at + r->timeout))
            break;
        int n = 0;
        if (r->connected < (r->nranks > 0 ? r->nranks : 1) || r->aborted) {
            p[n] = (struct pollfd){ r->lfd, POLLIN, 0 };
            who[n++] = -1;
        }
        for (int i = 0; i < (r->nranks > 0 ? r->nranks : 0); i++)
            if (r->c[i].fd >= 0) {
                p[n] = (struct pollfd){ r->c[i].fd, POLLIN, 0 };
                who[n++] = i;
            }
        if (n == 0) break;
        if (poll(p, (nfds_t)n, 1000) < 0 && errno != EINTR) break;
        for (int k = 0; k < n; k++) {
            if (!p[k].revents) continue;
            if (who[k] < 0) {
                int fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);
                if (fd >= 0) {
                    nodelay(fd);
                    root_hello(r, fd);
                }
            } else if (r->c[who[k]].fd >= 0) {
                root_serve(r, who[k]);
            }
        }
    }
    free(p);
    free(who);
    for (int i = 0; i < (r->nranks > 0 ? r->nranks : 0); i++)
        if (r->c[i].fd >= 0) root_close(r, i);
    pthread_mutex_lock(&roots_lock);
    if (r->lfd >= 0) close(r->lfd);
    r->lfd = -1;
    pthread_mutex_unlock(&roots_lock);
    return NULL;
}

/* ---- after fork: the child is neither the root nor the PE ---------------- */

static void atfork_child(void)
{
    for (struct root *r = roots; r; r = r->next) {
        if (r->lfd >= 0) close(r->lfd);
        r->lfd = -1;
        for (int i = 0; r->c && i < r->nranks; i++)
            if (r->c[i].fd >= 0) { close(r->c[i].fd); r->c[i].fd = -1; }
        r->started = 0; /* no thread here to join */
    }
    if (the_pe && the_pe->fd >= 0) close(the_pe->fd); /* the child is no PE */
    the_pe = NULL;
}
static void atfork_parent(void) { pthread_mutex_unlock(&roots_lock); }
static void atfork_prepare(void) { pthread_mutex_lock(&roots_lock); }
static void atfork_child_unlock(void)
{
    pthread_mutex_unlock(&roots_lock);
    atfork_child();
}
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void atfork_register(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child_unlock);
}

int shmi_boot_uid_create(char *id, size_t len, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    long tmo = timeout_ms(err, errlen);
    if (tmo < 0 || pick_addr(&ss, &sl, err, errlen) != 0) return SHMI_EINVAL;
    struct root *r = calloc(1, sizeof *r);
    if (!r) return SHMI_ENOMEM;
    r->nranks = -1;
    r->timeout = tmo;
    r->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (r->lfd < 0 || bind(r->lfd, (struct sockaddr *)&ss, sl) != 0 ||
        listen(r->lfd, 1024) != 0 || getsockname(r->lfd, (struct sockaddr *)&ss, &sl) != 0 ||
        getnameinfo((struct sockaddr *)&ss, sl, r->id.host, sizeof r->id.host, NULL, 0,
                    NI_NUMERICHOST) != 0) {
        snprintf(err, errlen, "cannot open the rendezvous socket: %s; choose an interface "
                 "with SHMEM_BOOTSTRAP_UID_SOCK_IFNAME", strerror(errno));
        if (r->lfd >= 0) close(r->lfd);
        free(r);
        return SHMI_ESYS;
    }
    r->id.port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                               : ((struct sockaddr_in6 *)&ss)->sin6_port);
    if (getrandom(r->id.secret, sizeof r->id.secret, 0) != (ssize_t)sizeof r->id.secret) {
        snprintf(err, errlen, "getrandom: %s", strerror(errno));
        close(r->lfd);
        free(r);
        return SHMI_ESYS;
    }
    char hex[33];
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", r->id.secret[i]);
    if ((size_t)snprintf(id, len, "%s %s %d %s", UID_TAG, r->id.host, r->id.port, hex) >= len) {
        snprintf(err, errlen, "the ID does not fit into %zu bytes", len);
        close(r->lfd);
        free(r);
        return SHMI_EINVAL;
    }
    pthread_once(&atfork_once, atfork_register);
    pthread_mutex_lock(&roots_lock);
    int rc = pthread_create(&r->thread, NULL, root_main, r);
    if (rc == 0) {
        r->started = 1;
        r->next = roots;
        roots = r;
    }
    pthread_mutex_unlock(&roots_lock);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the rendezvous thread: %s", strerror(rc));
        close(r->lfd);
        free(r);
        return SHMI_ESYS;
    }
    return SHMI_OK;
}

/* ---- a PE ------------------------------------------------------------------ */

static struct {
    char id[SHMI_BOOT_UID_LEN];
    int rank, nranks, set;
} pending;

void shmi_boot_uid_use(const char *id, int rank, int nranks)
{
    snprintf(pending.id, sizeof pending.id, "%s", id ? id : "");
    pending.rank = rank;
    pending.nranks = nranks;
    pending.set = 1;
}

int shmi_boot_uid_pending(void) { return pending.set; }

static _Noreturn void pe_exit(struct pe *s, int code, const char *why)
{
    (void)s;
    if (why && *why) shmi_log_error("%s", why);
    _exit(code ? code : 1);
}

static void *pe_reader(void *arg)
{
    struct pe *s = arg;
    for (;;) {
        struct frame f;
        if (read_frame(s->fd, &f) != 0) {
            if (__atomic_load_n(&s->finishing, __ATOMIC_ACQUIRE)) break;
            char why[UID_MSG_MAX];
            snprintf(why, sizeof why, "lost the unique-ID rendezvous at %s port %d (%s): the "
                     "process that made the ID ended, or the network failed; the job ends",
                     s->id.host, s->id.port, errno ? strerror(errno) : "connection closed");
            pe_exit(s, 1, why);
        }
        if (f.type == F_BYE) break;
        if (f.type == F_ABORT) {
            char why[UID_MSG_MAX];
            size_t n = f.len < sizeof why ? f.len : sizeof why - 1;
            if (read_all(s->fd, why, n) != 0) n = 0;
            why[n] = 0;
            pe_exit(s, f.a, f.b ? why : NULL);
        }
        if (f.type != F_GATHERED) pe_exit(s, 1, "unique-ID rendezvous: unexpected frame");
        char *p = malloc(f.len ? f.len : 1);
        if (!p || read_all(s->fd, p, f.len) != 0)
            pe_exit(s, 1, "unique-ID rendezvous: lost the connection in an allgather");
        pthread_mutex_lock(&s->mu);
        s->reply = p;
        s->reply_len = f.len;
        s->have_reply = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

static int uid_allgather(shmi_boot_t *b, const void *in, void *out, size_t len)
{
    struct pe *s = b->priv;
    if (write_frame(s->fd, F_GATHER, 0, 0, in, len) != 0) return SHMI_EBOOT;
    pthread_mutex_lock(&s->mu);
    while (!s->have_reply) pthread_cond_wait(&s->cv, &s->mu);
    s->have_reply = 0;
    char *p = s->reply;
    size_t n = s->reply_len;
    s->reply = NULL;
    pthread_mutex_unlock(&s->mu);
    int rc = n == len * (size_t)b->size ? SHMI_OK : SHMI_EBOOT;
    if (rc == SHMI_OK && n) memcpy(out, p, n);
    free(p);
    return rc;
}

static int uid_barrier(shmi_boot_t *b) { return uid_allgather(b, NULL, NULL, 0); }

/* Host name, boot id and the network and PID namespaces: PEs with the same
 * key can pass memory handles to each other (boot_fdx.c). */
static void node_key(char *key, size_t len, char *host, size_t hlen)
{
    char boot[64] = "", net[64] = "", pid[64] = "";
    if (gethostname(host, hlen) != 0) snprintf(host, hlen, "?");
    host[hlen - 1] = 0;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f)) boot[0] = 0;
        fclose(f);
    }
    ssize_t n = readlink("/proc/self/ns/net", net, sizeof net - 1);
    net[n > 0 ? n : 0] = 0;
    n = readlink("/proc/self/ns/pid", pid, sizeof pid - 1);
    pid[n > 0 ? n : 0] = 0;
    memset(key, 0, len);
    snprintf(key, len, "%s|%s|%s|%s", host, boot, net, pid);
}

static int uid_connect(struct pe *s, long deadline, char *why, size_t wl)
{
    char port[16];
    snprintf(port, sizeof port, "%d", s->id.port);
    struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                              .ai_socktype = SOCK_STREAM }, *ai = NULL;
    int e = getaddrinfo(s->id.host, port, &hints, &ai);
    if (e != 0) {
        snprintf(why, wl, "the ID's address %s: %s", s->id.host, gai_strerror(e));
        return -1;
    }
    int fd = -1, err = 0;
    while (fd < 0 && now_ms() < deadline) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { err = errno; break; }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        err = errno;
        close(fd);
        fd = -1;
        if (err != ECONNREFUSED && err != ETIMEDOUT && err != ENETUNREACH &&
            err != EHOSTUNREACH && err != EINTR)
            break;
        struct timespec t = { 0, 100 * 1000 * 1000 };
        nanosleep(&t, NULL);
    }
    freeaddrinfo(ai);
    if (fd < 0)
        snprintf(why, wl, "cannot reach the unique-ID rendezvous at %s port %d: %s (the "
                 "process that made the ID must run until every PE has finalized; "
                 "SHMEM_BOOTSTRAP_TIMEOUT sets how long to try)", s->id.host, s->id.port,
                 strerror(err ? err : ETIMEDOUT));
    return fd;
}

static int uid_init(shmi_boot_t *b)
{
    char why[UID_MSG_MAX];
    if (!pending.set) {
        shmi_boot_seterr("the uid bootstrap is chosen by shmemx_init_uniqueid or "
                         "nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID), not by "
                         "SHMEM_BOOTSTRAP");
        return SHMI_EINVAL;
    }
    pending.set = 0;
    struct pe *s = calloc(1, sizeof *s);
    if (!s) return SHMI_ENOMEM;
    s->fd = -1;
    if (uid_parse(pending.id, &s->id) != 0) {
        shmi_boot_seterr("the unique ID was not made by shmemx_get_uniqueid or "
                         "nvshmemx_get_uniqueid (or was damaged on the way): '%.60s'",
                         pending.id);
        free(s);
        return SHMI_EINVAL;
    }
    if (pending.nranks < 1 || pending.rank < 0 || pending.rank >= pending.nranks) {
        shmi_boot_seterr("rank=%d, nranks=%d: need 0 <= rank < nranks", pending.rank,
                         pending.nranks);
        free(s);
        return SHMI_EINVAL;
    }
    long tmo = timeout_ms(why, sizeof why);
    if (tmo < 0) {
        shmi_boot_seterr("%s", why);
        free(s);
        return SHMI_EINVAL;
    }
    if ((s->fd = uid_connect(s, now_ms() + tmo, why, sizeof why)) < 0) {
        shmi_boot_seterr("%s", why);
        free(s);
        return SHMI_EBOOT;
    }
    nodelay(s->fd);
    char key[UID_KEY_LEN];
    struct hello h;
    memset(&h, 0, sizeof h);
    memcpy(h.secret, s->id.secret, sizeof h.secret);
    h.pid = (int32_t)getpid();
    node_key(key, sizeof key, h.host, sizeof h.host);
    snprintf(b->hostname, sizeof b->hostname, "%s", h.host);
    b->rank = pending.rank;
    b->size = pending.nranks;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_once(&atfork_once, atfork_register);
    int rc = pthread_create(&s->reader, NULL, pe_reader, s);
    if (rc != 0 || write_frame(s->fd, F_HELLO, b->rank, b->size, &h, sizeof h) != 0) {
        shmi_boot_seterr("cannot start talking to the unique-ID rendezvous: %s",
                         strerror(rc ? rc : errno));
        close(s->fd);
        free(s);
        return SHMI_EBOOT;
    }
    b->priv = s;
    the_pe = s;
    /* node-local PEs: those with our key */
    char *keys = malloc((size_t)UID_KEY_LEN * (size_t)b->size);
    b->local_pes = malloc(sizeof(int) * (size_t)b->size);
    if (!keys || !b->local_pes) { free(keys); return SHMI_ENOMEM; }
    if ((rc = uid_allgather(b, key, keys, UID_KEY_LEN)) != SHMI_OK) { free(keys); return rc; }
    b->local_size = 0;
    for (int r = 0; r < b->size; r++)
        if (!memcmp(keys + (size_t)r * UID_KEY_LEN, key, UID_KEY_LEN)) {
            if (r == b->rank) b->local_rank = b->local_size;
            b->local_pes[b->local_size++] = r;
        }
    free(keys);
    return SHMI_OK;
}

static void uid_abort(shmi_boot_t *b, int code, const char *msg)
{
    struct pe *s = b->priv;
    if (!s || s->fd < 0) return;
    /* one write: the root reads it whole (an allgather of ours cannot be half
     * written here: aborts come from the thread that writes those) */
    write_frame(s->fd, F_ABORT, code, 0, msg ? msg : "", msg ? strlen(msg) + 1 : 1);
    /* When this process is the root, let it tell the others before our exit
     * ends its thread (2 s at most). */
    for (int i = 0; i < 200; i++) {
        int waiting = 0;
        pthread_mutex_lock(&roots_lock);
        for (struct root *r = roots; r; r = r->next)
            if (r->started && !memcmp(r->id.secret, s->id.secret, 16) &&
                !__atomic_load_n(&r->forwarded, __ATOMIC_ACQUIRE))
                waiting = 1;
        pthread_mutex_unlock(&roots_lock);
        if (!waiting) break;
        struct timespec t = { 0, 10 * 1000 * 1000 };
        nanosleep(&t, NULL);
    }
}

static void uid_finalized(shmi_boot_t *b, int done)
{
    struct pe *s = b->priv;
    if (s) write_frame(s->fd, F_STATE, done, 0, NULL, 0);
}

static void uid_fini(shmi_boot_t *b)
{
    struct pe *s = b->priv;
    if (!s) return;
    __atomic_store_n(&s->finishing, 1, __ATOMIC_RELEASE);
    if (write_frame(s->fd, F_FINI, 0, 0, NULL, 0) == 0) pthread_join(s->reader, NULL);
    else pthread_detach(s->reader);
    close(s->fd);
    /* The root of our own ID serves the others until they have finalized. */
    pthread_mutex_lock(&roots_lock);
    struct root **rp = &roots, *mine = NULL;
    for (; *rp; rp = &(*rp)->next)
        if (!memcmp((*rp)->id.secret, s->id.secret, 16)) {
            mine = *rp;
            *rp = mine->next;
            break;
        }
    pthread_mutex_unlock(&roots_lock);
    if (mine && mine->started) {
        pthread_join(mine->thread, NULL);
        free(mine->c);
        free(mine);
    }
    if (the_pe == s) the_pe = NULL;
    free(s->reply);
    free(s);
    b->priv = NULL;
}

const struct shmi_boot_ops shmi_boot_uid_ops = {
    .name = "uid",
    .init = uid_init,
    .allgather = uid_allgather,
    .barrier = uid_barrier,
    .exchange_fds = shmi_boot_fdx_exchange,
    .abort = uid_abort,
    .fini = uid_fini,
    .finalized = uid_finalized,
};
