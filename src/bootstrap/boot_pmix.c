/* boot_pmix.c - the bootstrap over PMIx: programs started by Open MPI's
 * mpirun / prterun or Slurm's srun --mpi=pmix.
 *
 * rank, size:      PMIx_Init's proc, PMIX_JOB_SIZE of the namespace.
 * node-local PEs:  the PEs with our PMIX_HOSTNAME (one allgather; see
 *                  find_local for why not PMIX_LOCAL_PEERS); exposed as
 *                  b->local_* (boot.h): the UCX transport takes the others.
 * allgather:       PMIx_Put of a byte object under a key unique to the call
 *                  ("shmi.ag.<n>"), Commit, Fence with PMIX_COLLECT_DATA, then
 *                  PMIx_Get of every rank's key (served from the local store).
 * barrier:         PMIx_Fence without data.
 * abort:           PMIx_Abort: the launcher ends every process of the job.
 *
 * libpmix is loaded with dlopen at the first use, not linked: libsymheap.so
 * then has no dependency on libpmix (a program built here runs under symrun
 * or alone on machines without it, libsymheap.a users need no -lpmix), and
 * only a program that really is started by a PMIx launcher loads it.  The
 * types and constants come from pmix.h at build time; the PMIx ABI of these
 * calls and structs has been stable since PMIx v2.  Values returned by
 * PMIx_Get are freed by hand (free of the payload, then of the value), not
 * with PMIx_Value_destruct, which is a function in v4 but a macro in v3.
 *
 * Memory handles (exchange_fds): there is no launcher socket to carry
 * SCM_RIGHTS, so every PE listens on an abstract-namespace unix socket (a
 * name that exists only while the socket is open: nothing in any file
 * system, gone when the process dies, even by SIGKILL), publishes its name
 * and pid with an allgather, and sends its descriptors to every node-local
 * peer with SCM_RIGHTS.  Both sides check the other's SO_PEERCRED (our uid,
 * the pid the peer published), so no other process can inject or take
 * descriptors; a connection from anyone else is dropped unread and the
 * exchange keeps waiting for the real peers.  Descriptors in flight are held by the kernel, so a peer can
 * close (or die) right after sending.  Alternatives rejected: pidfd_getfd(2)
 * needs PTRACE_MODE_ATTACH (Yama ptrace_scope >= 1 forbids it between
 * sibling processes, container seccomp profiles often block it);
 * /proc/<pid>/fd/<n> needs a dumpable peer and a visible /proc; a named
 * /dev/shm object is left behind when a PE is killed between creating and
 * unlinking it.
 *
 * Invariants: calls are collective over the whole job (PMIx_Fence on all
 * ranks of our namespace); a PE that dies makes the launcher end the job, and
 * a failed PMIx call returns SHMI_EBOOT. */
#include "bootstrap/boot_impl.h"
#include "util/clock.h"
#include "util/dl.h"
#include "util/err.h"
#include "util/log.h"

#include <pmix.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SHMI_PMIX_SONAME
#define SHMI_PMIX_SONAME "libpmix.so.2"
#endif
#ifndef SHMI_PMIX_LIBPATH
#define SHMI_PMIX_LIBPATH ""
#endif

/* ---- libpmix, loaded at run time ------------------------------------------ */

#define PMIX_FNS(X)                                                              \
    X(Init) X(Finalize) X(Abort) X(Put) X(Commit) X(Fence) X(Get)                \
    X(Error_string) X(Get_version)

static struct {
#define PMIX_FN_FIELD(n) __typeof__(PMIx_##n) *n;
    PMIX_FNS(PMIX_FN_FIELD)
#undef PMIX_FN_FIELD
} px;
static void *px_lib;

static int px_load(void)
{
    if (px_lib) return SHMI_OK;
#define PMIX_FN_NAME(n) "PMIx_" #n,
    static const char *const names[] = { PMIX_FNS(PMIX_FN_NAME) };
#undef PMIX_FN_NAME
    const char *paths[] = { SHMI_PMIX_SONAME, SHMI_PMIX_LIBPATH };
    void *p[sizeof names / sizeof *names];
    char why[300];
    int missing;
    if (!(px_lib = shmi_dl_load(paths, 2, names, p, sizeof names / sizeof *names, &missing, why,
                                sizeof why))) {
        if (missing)
            shmi_boot_seterr("pmix bootstrap: %s; it is not a PMIx library of version 2 or "
                             "later: install libpmix2", why);
        else
            shmi_boot_seterr("pmix bootstrap: %s; install the PMIx library (Debian: apt-get "
                             "install libpmix2), or set SHMEM_BOOTSTRAP=single to run every "
                             "process as a job of its own", why);
        return SHMI_ENOTSUP;
    }
    size_t i = 0;
#define PMIX_FN_SET(n) px.n = (__typeof__(PMIx_##n) *)p[i++];
    PMIX_FNS(PMIX_FN_SET)
#undef PMIX_FN_SET
    return SHMI_OK;
}

/* ---- state ---------------------------------------------------------------- */

struct px_state {
    pmix_proc_t me;
    unsigned long seq; /* allgather calls so far: each uses its own key */
    int *local_rank_of; /* world rank -> index in b->local_pes, or -1 */
};

static const char *perr(pmix_status_t st) { return px.Error_string ? px.Error_string(st) : "?"; }

/* "OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, ...)" -> "OpenPMIx 4.2.2rc2" */
static const char *px_version(void)
{
    static char v[64];
    snprintf(v, sizeof v, "%s", px.Get_version ? px.Get_version() : "?");
    char *paren = strstr(v, " (");
    if (paren) *paren = 0;
    return v;
}

static void value_free(pmix_value_t *v)
{
    if (!v) return;
    if (v->type == PMIX_STRING) free(v->data.string);
    else if (v->type == PMIX_BYTE_OBJECT) free(v->data.bo.bytes);
    free(v);
}

/* An integer value of any of the types servers use for sizes and ranks. */
static int value_long(const pmix_value_t *v, long *out)
{
    switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; return 0;
    case PMIX_UINT16: *out = v->data.uint16; return 0;
    case PMIX_UINT32: *out = (long)v->data.uint32; return 0;
    case PMIX_UINT64: *out = (long)v->data.uint64; return 0;
    case PMIX_INT: *out = v->data.integer; return 0;
    case PMIX_INT16: *out = v->data.int16; return 0;
    case PMIX_INT32: *out = v->data.int32; return 0;
    case PMIX_INT64: *out = (long)v->data.int64; return 0;
    case PMIX_UINT: *out = (long)v->data.uint; return 0;
    case PMIX_SIZE: *out = (long)v->data.size; return 0;
    case PMIX_PROC_RANK: *out = (long)v->data.rank; return 0;
    default: return -1;
    }
}

/* Get key of proc (rank; PMIX_RANK_WILDCARD for job-level data). */
static pmix_status_t get(const struct px_state *s, pmix_rank_t rank, const char *key,
                         pmix_value_t **v)
{
    pmix_proc_t p = s->me;
    p.rank = rank;
    *v = NULL;
    return px.Get(&p, key, NULL, 0, v);
}

/* ---- node-local peers ----------------------------------------------------- */

/* "0,1,5-7" style lists: PMIx servers send plain comma lists, ranges are
 * accepted too.  Fills b->local_pes (ascending, unique) and local_size. */
static int parse_peers(shmi_boot_t *b, const char *list)
{
    char *seen = calloc((size_t)b->size, 1);
    if (!seen) return SHMI_ENOMEM;
    const char *p = list;
    int rc = SHMI_OK;
    while (*p && rc == SHMI_OK) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || errno) { rc = SHMI_EINVAL; break; }
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1) { rc = SHMI_EINVAL; break; }
            p = end;
        }
        if (*p == ',') p++;
        else if (*p) { rc = SHMI_EINVAL; break; }
        if (lo < 0 || hi >= b->size || lo > hi) { rc = SHMI_EINVAL; break; }
        for (long r = lo; r <= hi; r++) seen[r] = 1;
    }
    if (rc == SHMI_OK && !seen[b->rank]) rc = SHMI_EINVAL; /* we are on our node */
    if (rc == SHMI_OK) {
        int n = 0;
        for (int r = 0; r < b->size; r++) n += seen[r];
        b->local_pes = malloc(sizeof(int) * (size_t)n);
        if (!b->local_pes) rc = SHMI_ENOMEM;
        else {
            b->local_size = 0;
            for (int r = 0; r < b->size; r++)
                if (seen[r]) {
                    if (r == b->rank) b->local_rank = b->local_size;
                    b->local_pes[b->local_size++] = r;
                }
        }
    }
    free(seen);
    return rc;
}

/* Without PMIX_LOCAL_PEERS (not every server provides it), PEs with the
 * same host name (PMIX_HOSTNAME, else gethostname) are on one node. */
static int peers_by_hostname(shmi_boot_t *b, const char *host)
{
    enum { HL = 256 };
    char mine[HL] = { 0 };
    snprintf(mine, sizeof mine, "%s", host);
    char *all = malloc((size_t)b->size * HL);
    if (!all) return SHMI_ENOMEM;
    int rc = b->ops->allgather(b, mine, all, HL);
    if (rc == SHMI_OK) {
        size_t need = 1;
        char *list = NULL;
        for (int r = 0; r < b->size; r++) need += 12;
        list = calloc(need, 1);
        if (!list) rc = SHMI_ENOMEM;
        size_t at = 0;
        for (int r = 0; list && r < b->size; r++)
            if (!strncmp(all + (size_t)r * HL, mine, HL))
                at += (size_t)snprintf(list + at, need - at, "%s%d", at ? "," : "", r);
        if (list) rc = parse_peers(b, list);
        free(list);
    }
    free(all);
    return rc;
}

static int find_local(shmi_boot_t *b, struct px_state *s)
{
    pmix_value_t *v = NULL;
    char host[256] = "";
    if (get(s, s->me.rank, PMIX_HOSTNAME, &v) == PMIX_SUCCESS && v->type == PMIX_STRING)
        snprintf(host, sizeof host, "%s", v->data.string);
    else if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    value_free(v);
    snprintf(b->hostname, sizeof b->hostname, "%s", host);

    /* Always by host name, with one allgather on every PE: the decision must
     * be collective (a PE that fell back alone would make an allgather its
     * peers do not), and Open MPI 4.1's daemons on the other nodes answer
     * PMIX_LOCAL_PEERS with the first node's list ("0" on the node of rank
     * 1, seen in tests/multinode), so it is only cross-checked. */
    const char *how = "host names";
    int rc = peers_by_hostname(b, host);
    if (rc != SHMI_OK) {
        shmi_boot_seterr("pmix bootstrap: cannot tell which PEs share this node (%s): %s",
                         host, shmi_strerror(rc));
        return rc;
    }
    if (get(s, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, &v) == PMIX_SUCCESS &&
        v->type == PMIX_STRING)
        shmi_log_debug("PMIX_LOCAL_PEERS says '%s'; PEs with our host name %s: %d", v->data.string,
                       host, b->local_size);
    value_free(v);
    /* Cross-check the server's local rank when it gives one. */
    long lr;
    if (get(s, s->me.rank, PMIX_LOCAL_RANK, &v) == PMIX_SUCCESS && value_long(v, &lr) == 0 &&
        lr != b->local_rank)
        shmi_log_debug("PMIX_LOCAL_RANK %ld differs from our place %d in %s; using ours",
                       lr, b->local_rank, how);
    value_free(v);
    s->local_rank_of = malloc(sizeof(int) * (size_t)b->size);
    if (!s->local_rank_of) return SHMI_ENOMEM;
    for (int r = 0; r < b->size; r++) s->local_rank_of[r] = -1;
    for (int i = 0; i < b->local_size; i++) s->local_rank_of[b->local_pes[i]] = i;
    return SHMI_OK;
}

/* ---- ops ------------------------------------------------------------------ */

static int px_fini_lib(struct px_state *s)
{
    pmix_status_t st = px.Finalize(NULL, 0);
    if (s) free(s->local_rank_of);
    free(s);
    return st == PMIX_SUCCESS ? SHMI_OK : SHMI_EBOOT;
}

/* Set in the environment of a PE once its init succeeded: a process that
 * inherits it with another pid is a SHMEM program started by a PE (fork and
 * exec).  It must not talk to the launcher's PMIx server as the PE's rank:
 * its fences would count as the PE's and corrupt the job. */
#define OWNER_ENV "SHMI_PMIX_PE_PID"

static int pmix_init(shmi_boot_t *b)
{
    const char *owner = getenv(OWNER_ENV), *r = getenv("PMIX_RANK");
    if (owner && atol(owner) != (long)getpid()) {
        shmi_boot_seterr("pmix bootstrap: this process (pid %ld) inherited PMIX_RANK=%s from "
                         "PE pid %s, which already called shmem_init; a SHMEM program started "
                         "by a PE cannot join that job: unset PMIX_RANK and PMIX_NAMESPACE "
                         "(or set SHMEM_BOOTSTRAP=single) to run it as a job of its own",
                         (long)getpid(), r ? r : "?", owner);
        return SHMI_EINVAL;
    }
    int rc = px_load();
    if (rc != SHMI_OK) return rc;
    struct px_state *s = calloc(1, sizeof *s);
    if (!s) return SHMI_ENOMEM;
    pmix_status_t st = px.Init(&s->me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        const char *ns = getenv("PMIX_NAMESPACE");
        shmi_boot_seterr("pmix bootstrap: PMIx_Init failed: %s (PMIx %s, PMIX_NAMESPACE=%s); "
                         "start the program with mpirun or srun --mpi=pmix, or set "
                         "SHMEM_BOOTSTRAP=single to run it alone",
                         perr(st), px_version(), ns ? ns : "(unset)");
        free(s);
        return SHMI_EBOOT;
    }
    b->priv = s;
    b->rank = (int)s->me.rank;
    pmix_value_t *v = NULL;
    long size = 0;
    if ((st = get(s, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &v)) != PMIX_SUCCESS ||
        value_long(v, &size) != 0 || size < 1 || size > INT_MAX || b->rank >= size) {
        shmi_boot_seterr("pmix bootstrap: no usable PMIX_JOB_SIZE for namespace %s (%s, "
                         "rank %d); the launcher's PMIx server is not usable for symheap: "
                         "try another launcher, or symrun on one machine",
                         s->me.nspace, perr(st), b->rank);
        value_free(v);
        px_fini_lib(s);
        b->priv = NULL;
        return SHMI_EBOOT;
    }
    value_free(v);
    b->size = (int)size;
    if ((rc = find_local(b, s)) != SHMI_OK) {
        free(b->local_pes);
        b->local_pes = NULL;
        px_fini_lib(s);
        b->priv = NULL;
        return rc;
    }
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    setenv(OWNER_ENV, pid, 1);
    shmi_log_debug("pmix bootstrap: PMIx %s, namespace %s, rank %d of %d, local %d of %d on %s",
                   px_version(), s->me.nspace, b->rank, b->size, b->local_rank,
                   b->local_size, b->hostname);
    return SHMI_OK;
}

static int fence(shmi_boot_t *b, int collect, const char *what)
{
    struct px_state *s = b->priv;
    pmix_info_t info;
    memset(&info, 0, sizeof info);
    snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    pmix_status_t st = px.Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    if (st != PMIX_SUCCESS) {
        shmi_log_error("pmix bootstrap: %s: PMIx_Fence failed: %s (namespace %s); a PE is "
                       "gone or the launcher ended the job", what, perr(st), s->me.nspace);
        return SHMI_EBOOT;
    }
    return SHMI_OK;
}

static int pmix_allgather(shmi_boot_t *b, const void *in, void *out, size_t len)
{
    struct px_state *s = b->priv;
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "shmi.ag.%lu", s->seq++);
    if (len == 0) return fence(b, 0, "allgather"); /* still one round */
    pmix_value_t val;
    memset(&val, 0, sizeof val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)(uintptr_t)in; /* PMIx_Put copies it */
    val.data.bo.size = len;
    pmix_status_t st = px.Put(PMIX_GLOBAL, key, &val);
    if (st == PMIX_SUCCESS) st = px.Commit();
    if (st != PMIX_SUCCESS) {
        shmi_log_error("pmix bootstrap: allgather: PMIx_Put/Commit of %zu bytes failed: %s",
                       len, perr(st));
        return SHMI_EBOOT;
    }
    int rc = fence(b, 1, "allgather");
    for (int r = 0; rc == SHMI_OK && r < b->size; r++) {
        if (r == b->rank) continue;
        pmix_value_t *v = NULL;
        if ((st = get(s, (pmix_rank_t)r, key, &v)) != PMIX_SUCCESS) {
            shmi_log_error("pmix bootstrap: allgather: PMIx_Get of PE %d's %s failed: %s",
                           r, key, perr(st));
            rc = SHMI_EBOOT;
        } else if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != len) {
            shmi_log_error("pmix bootstrap: PE %d gave %zu bytes to allgather %s, this PE "
                           "%zu: every PE must make the same collective calls in the same "
                           "order", r, v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0,
                           key, len);
            rc = SHMI_EINVAL;
        } else {
            memcpy((char *)out + (size_t)r * len, v->data.bo.bytes, len);
        }
        value_free(v);
    }
    if (rc == SHMI_OK) memmove((char *)out + (size_t)b->rank * len, in, len); /* in may alias */
    return rc;
}

static int pmix_barrier(shmi_boot_t *b) { return fence(b, 0, "barrier"); }

/* ---- exchange_fds: SCM_RIGHTS over abstract unix sockets ------------------ */

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

static int pmix_exchange_fds(shmi_boot_t *b, const int *fds, int nfds, int *all)
{
    struct px_state *s = b->priv;
    long total = (long)nfds * b->size;
    if (nfds < 0 || total > INT_MAX) return SHMI_EINVAL;
    for (long i = 0; i < total; i++) all[i] = -1;
    struct fdx_addr me, *addrs = calloc((size_t)b->size, sizeof *addrs);
    if (!addrs) return SHMI_ENOMEM;
    int rc = SHMI_OK, lfd = -1, nloc = b->local_size;
    char why[200] = "";
    fdx_reserve((long)nfds * nloc);
    memset(&me, 0, sizeof me);
    if (nloc > 1 && (lfd = fdx_listen(nloc, &me)) < 0)
        snprintf(why, sizeof why, "cannot listen on an abstract unix socket: %s",
                 strerror(errno));
    /* Every PE takes part in the allgather, also the one that failed above. */
    me.pid = lfd >= 0 || nloc == 1 ? me.pid : -1;
    if ((rc = pmix_allgather(b, &me, addrs, sizeof me)) != SHMI_OK) goto out;
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
                if (who < 0 || got[s->local_rank_of[who]]) {
                    shmi_log_debug("pmix bootstrap: exchange_fds: dropped a connection from "
                                   "pid %d (uid %u): %s", (int)cr.pid, (unsigned)cr.uid,
                                   who < 0 ? "not a PE of this job on this node"
                                           : "that PE's memory handles already came");
                    close(c);
                    continue;
                }
                if (fdx_recv(c, addrs, s->local_rank_of, b->size, nfds, all, &from, who,
                             deadline) != 0 || got[s->local_rank_of[from]])
                    snprintf(why, sizeof why, "bad memory handles from a local process "
                             "(%s)", strerror(errno));
                else { got[s->local_rank_of[from]] = 1; ngot++; progress = 1; }
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
    if (rc == SHMI_OK && why[0]) {
        shmi_log_error("pmix bootstrap: exchange_fds: %s", why);
        rc = SHMI_EBOOT;
    }
    if (rc != SHMI_OK)
        for (long i = 0; i < total; i++)
            if (all[i] >= 0) { close(all[i]); all[i] = -1; }
    return rc;
}

static void pmix_abort(shmi_boot_t *b, int code, const char *msg)
{
    (void)b;
    /* Ends every process of our namespace; may not return before we are
     * killed (the caller _exits otherwise).  Not async-signal-safe, as
     * nothing in PMIx is: shmi_fatal calls it from ordinary context. */
    if (px.Abort) px.Abort(code, msg ? msg : "symheap abort", NULL, 0);
}

static void pmix_fini(shmi_boot_t *b)
{
    px_fini_lib(b->priv); /* libpmix stays loaded: its threads are gone, but
                             atexit handlers may still point into it */
    b->priv = NULL;
}

const struct shmi_boot_ops shmi_boot_pmix_ops = {
    .name = "pmix",
    .init = pmix_init,
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .exchange_fds = pmix_exchange_fds,
    .abort = pmix_abort,
    .fini = pmix_fini,
};
