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
 * Memory handles (exchange_fds): boot_fdx.c (abstract unix sockets and
 * SCM_RIGHTS, as there is no launcher socket to carry them).
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
    return SHMI_OK;
}

/* ---- ops ------------------------------------------------------------------ */

static int px_fini_lib(struct px_state *s)
{
    pmix_status_t st = px.Finalize(NULL, 0);
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

static int pmix_exchange_fds(shmi_boot_t *b, const int *fds, int nfds, int *all)
{
    return shmi_boot_fdx_exchange(b, fds, nfds, all);
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
