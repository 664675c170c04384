/* ucx.c - the UCX transport for PEs on other nodes (see ucx.h for the
 * contract).  Built when ucp.h is found (CMake option SYMHEAP_UCX); libucp
 * is dlopen'ed at init, i.e. only by jobs that span nodes.  The transport
 * table's "ucx" row (shmi_tp_ucx, at the end) wraps the operations.
 *
 * Init, in order: load libucp; read UCX's configuration (UCX_TLS,
 * UCX_NET_DEVICES... from the environment; the worker lock a mutex, see
 * open_worker); context with RMA, 32/64-bit AMO
 * and WAKEUP; one worker (thread mode MULTI: the progress thread and the
 * program's threads share it); register every segment; allgather every PE's
 * blob (worker address, segment bases, packed rkeys, host name); endpoints to
 * the remote PEs (peer error handling: a dead peer fails our operations
 * instead of hanging them) with their rkeys; start the progress thread.
 *
 * Remote address of symmetric address a in segment s on PE pe:
 * a - base[s] + rbase[s][pe] (the heap: the same address everywhere). */
#include "transport/ucx.h"
#include "transport/tp.h"
#include "transport/wait.h"
#include "util/dl.h"
#include "util/err.h"
#include "util/clock.h"
#include "util/log.h"

#include <stdio.h>


#include <ucp/api/ucp.h>

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SHMI_UCX_SONAME
#define SHMI_UCX_SONAME "libucp.so.0"
#endif


/* ---- libucp, loaded at run time ------------------------------------------- */

#define UCX_FNS(X)                                                                 \
    X(ucp_config_read) X(ucp_config_modify) X(ucp_config_release)                  \
    X(ucp_init_version) X(ucp_cleanup)                                             \
    X(ucp_worker_create) X(ucp_worker_destroy) X(ucp_worker_get_address)           \
    X(ucp_worker_release_address) X(ucp_worker_progress) X(ucp_worker_arm)         \
    X(ucp_worker_get_efd) X(ucp_worker_fence) X(ucp_worker_flush_nbx)              \
    X(ucp_ep_create) X(ucp_ep_close_nbx) X(ucp_ep_rkey_unpack) X(ucp_rkey_destroy) \
    X(ucp_mem_map) X(ucp_mem_unmap) X(ucp_rkey_pack) X(ucp_rkey_buffer_release)    \
    X(ucp_put_nbx) X(ucp_get_nbx) X(ucp_atomic_op_nbx) X(ucp_request_check_status) \
    X(ucp_request_free) X(ucs_status_string)

static struct {
#define UCX_FN_FIELD(n) __typeof__(n) *n;
    UCX_FNS(UCX_FN_FIELD)
#undef UCX_FN_FIELD
} f;
static void *lib;

static int load(char *err, size_t errlen)
{
    if (lib) return SHMI_OK;
#define UCX_FN_NAME(n) #n,
    static const char *const names[] = { UCX_FNS(UCX_FN_NAME) };
#undef UCX_FN_NAME
    const char *paths[] = { SHMI_UCX_SONAME };
    void *p[sizeof names / sizeof *names];
    char why[300];
    int missing;
    if (!(lib = shmi_dl_load(paths, 1, names, p, sizeof names / sizeof *names, &missing, why,
                             sizeof why))) {
        snprintf(err, errlen, "%s: %s", why, missing ? "symheap needs UCX 1.10 or later"
                                                     : "install UCX (Debian: apt-get install libucx0)");
        return SHMI_ENOTSUP;
    }
    size_t i = 0;
#define UCX_FN_SET(n) f.n = (__typeof__(n) *)p[i++];
    UCX_FNS(UCX_FN_SET)
#undef UCX_FN_SET
    return SHMI_OK;
}

/* ---- state ------------------------------------------------------------------ */

#define HOST_LEN 64

static struct {
    int me, npes, nseg, up;
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_ep_h *ep;                        /* [npes]; NULL for local PEs */
    ucs_status_t *failed;                /* [npes]; set by the error handler */
    ucs_status_t failed_any;             /* the first failure of a worker-wide op (quiet) */
    uintptr_t base[SHMI_TP_MAX_SEGS];    /* our segments */
    size_t size[SHMI_TP_MAX_SEGS];
    ucp_mem_h mem[SHMI_TP_MAX_SEGS];
    uintptr_t *rbase[SHMI_TP_MAX_SEGS];  /* [npes] */
    ucp_rkey_h *rkey[SHMI_TP_MAX_SEGS];  /* [npes] */
    char (*host)[HOST_LEN];              /* [npes], for messages */
    int *node;                           /* [npes]: lowest PE of its node */
    struct shmi_bell *bell;
    pthread_t thread;
    int thread_on, efd;
    int stop;                            /* atomic: the progress thread ends */
    uint32_t pollers;                    /* atomic: threads progressing in a wait */
    int parked;                          /* atomic: the progress thread waits for 0 */
    int dirty;                           /* atomic: issued, not flushed (quiet) */
    double timeout;                      /* SHMEM_NET_TIMEOUT (0: no liveness probe) */
    int *leaders;                        /* one PE of every other node: probed */
    int nleaders, probe_at;              /* probe_at: the leader probed next */
    uint8_t *answered;                   /* [nleaders]: a probe came back once */
    void *probe;                         /* the probe's request, or NULL */
    double probe_sent, probe_due;
    uint64_t probe_word;                 /* the probe's landing place */
    int silent;                          /* 1 + the PE that did not answer in time */
    int lost;                            /* atomic: 1 + the first PE whose connection failed */
    int lost_told;                       /* atomic: reported (net_check) */
    int op_timed_out;                    /* atomic: req_wait gave up on an operation */
    double lost_at;                      /* when (shmi_clock_s), written before lost */
} u;

/* A failed connection is reported LOST_GRACE_S after the failure: a PE that
 * died is then reported by its launcher or bootstrap (the clearer message),
 * and the link going down still ends the job within seconds.  The progress
 * thread reports one second later still, so that a thread waiting in the
 * library, which can say for what, reports first. */
#define LOST_GRACE_S 3.0
#define PROBE_START_S 5.0 /* the first probe, after init */

/* While a waiting thread progresses the worker itself (shmi_wait_net), the
 * progress thread parks on pollers instead of on the worker's event fd, so
 * that a message wakes only the thread that waits for it.  It is woken when
 * the waiter goes to sleep; otherwise it looks again after PARK_NS (the
 * longest a passive operation can wait for it right after a wait ended).
 * Waking it at every wait's end cost a wake-up per message: ping-pong
 * across the test's namespaces 13 -> 9.1 us (docs/performance.md). */
#define PARK_NS 200000

static void poll_begin(void) { __atomic_fetch_add(&u.pollers, 1, __ATOMIC_SEQ_CST); }

static void poll_end(int sleeping)
{
    if (__atomic_sub_fetch(&u.pollers, 1, __ATOMIC_SEQ_CST) == 0 && sleeping &&
        __atomic_load_n(&u.parked, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &u.pollers, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* How long a blocking operation may stay incomplete: after the probe would
 * have reported a silent node (its clearer message wins then). */
#define OP_TIMEOUT_S (u.timeout + LOST_GRACE_S + 2.0)

static inline ucs_status_t req_wait(void *req)
{
    if (req == NULL) return UCS_OK;
    if (UCS_PTR_IS_ERR(req)) return UCS_PTR_STATUS(req);
    ucs_status_t st;
    /* An idle progress yields: the reply often needs a thread of the peer on
     * this CPU (peer PE on an oversubscribed node).  Measured across two
     * namespaces on 2 CPUs: fetch-add 1.6 ms without the yield, 8 us with
     * it.  The progress thread stands aside meanwhile (poll_begin).
     * Bounded by SHMEM_NET_TIMEOUT: an operation that UCX neither completes
     * nor fails in that time (seen on a loaded machine: one endpoint between
     * the test's namespaces stalls while the others work, and the liveness
     * probe, which asks one PE per node, does not see it) ends as an
     * endpoint timeout, so its caller names the PE instead of hanging.  The
     * request stays unfreed: its reply buffer may still be written. */
    double t0 = 0, told = 0;
    void (*hook)(int, double) = shmi_wait_hook;
    poll_begin();
    for (unsigned i = 1; (st = f.ucp_request_check_status(req)) == UCS_INPROGRESS; i++) {
        if (!f.ucp_worker_progress(u.worker)) sched_yield();
        if (i % 4096 == 0) {
            double now = shmi_clock_s();
            if (t0 == 0) t0 = now;
            /* a second on: a sleep for the waits' observer (the watchdog says
             * what this PE waits for), and each second after */
            if (hook && now - t0 >= 1.0 && now - told >= 1.0) {
                hook(told ? SHMI_WAIT_STILL : SHMI_WAIT_SLEEP, now - t0);
                told = now;
            }
            if (u.timeout > 0 && now - t0 > OP_TIMEOUT_S) {
                __atomic_store_n(&u.op_timed_out, 1, __ATOMIC_RELAXED);
                poll_end(0);
                if (told) hook(SHMI_WAIT_DONE, now - t0);
                return UCS_ERR_ENDPOINT_TIMEOUT;
            }
        }
    }
    poll_end(0);
    if (told) hook(SHMI_WAIT_DONE, shmi_clock_s() - t0);
    f.ucp_request_free(req);
    return st;
}

/* Started but not waited for: completes in the background (quiet flushes). */
static inline ucs_status_t req_leave(void *req)
{
    if (req == NULL) return UCS_OK;
    if (UCS_PTR_IS_ERR(req)) return UCS_PTR_STATUS(req);
    f.ucp_request_free(req);
    return UCS_OK;
}

/* A negative shmi_err from a UCS status; the status stays in failed[pe], or
 * for an operation on no one PE (pe < 0: the worker's flush) in failed_any,
 * so that shmi_ucx_why names it. */
static int st_err(ucs_status_t st, int pe)
{
    if (st == UCS_OK) return SHMI_OK;
    if (pe >= 0 && u.failed && u.failed[pe] == UCS_OK) u.failed[pe] = st;
    if (pe < 0 && u.failed_any == UCS_OK) u.failed_any = st;
    return SHMI_ENET;
}

const char *shmi_ucx_why(int pe, int rc, char *buf, size_t len)
{
    ucs_status_t st = pe >= 0 && pe < u.npes && u.failed ? u.failed[pe] : pe < 0 ? u.failed_any
                                                                                  : UCS_OK;
    const char *what = st != UCS_OK && f.ucs_status_string ? f.ucs_status_string(st)
                                                           : shmi_strerror(rc);
    const char *host = pe >= 0 && pe < u.npes && u.host && u.host[pe][0] ? u.host[pe] : "?";
    char stall[96];
    /* ours (req_wait gave up), not UCX's (a connection reset reads the same) */
    if (st == UCS_ERR_ENDPOINT_TIMEOUT && u.timeout > 0 &&
        __atomic_load_n(&u.op_timed_out, __ATOMIC_RELAXED)) {
        snprintf(stall, sizeof stall, "%s (no answer for %.0f s: SHMEM_NET_TIMEOUT + %.0f)",
                 what, OP_TIMEOUT_S, OP_TIMEOUT_S - u.timeout);
        what = stall;
    }
    if (pe < 0) snprintf(buf, len, "the other nodes: %s", what);
    else if (st == UCS_OK && rc == 0) snprintf(buf, len, "PE %d on host %s", pe, host);
    else snprintf(buf, len, "PE %d on host %s: %s", pe, host, what);
    return buf;
}

static void lost_set(int pe, double at);
static inline int xlate(const void *a, int pe, uint64_t *raddr, ucp_rkey_h *rkey);

static void on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    int pe = (int)(intptr_t)arg;
    /* Not fatal here: peers that finalized close their connections while we
     * may still be leaving the last barrier.  An operation that needs pe
     * fails and its caller says why. */
    if (u.failed[pe] == UCS_OK) u.failed[pe] = st;
    shmi_log_debug("ucx: connection to PE %d (%s) failed: %s", pe, u.host[pe],
                   f.ucs_status_string(st));
    lost_set(pe, shmi_clock_s());
}

/* Record that pe is lost (first failure only), then wake sleepers: their
 * waits report it (net_check).  at: when it counts as failed. */
static void lost_set(int pe, double at)
{
    int none = 0;
    if (__atomic_load_n(&u.lost, __ATOMIC_RELAXED)) return;
    u.lost_at = at;
    if (__atomic_compare_exchange_n(&u.lost, &none, pe + 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED) &&
        u.bell)
        shmi_ring(u.bell);
}

/* Liveness across nodes (progress thread).  A link that goes down breaks no
 * TCP connection at once: data waits in the socket for minutes, and UCX's
 * keepalive rides the same socket.  So once a second we get 8 bytes from one
 * PE of another node, in turn, and a node that has not answered within
 * SHMEM_NET_TIMEOUT is lost (the link is down, or its PEs are stopped). */
static void probe_tick(void)
{
    if (u.timeout <= 0 || !u.nleaders) return;
    double now = shmi_clock_s();
    int pe = u.leaders[u.probe_at];
    if (u.probe) {
        ucs_status_t st = f.ucp_request_check_status(u.probe);
        if (st == UCS_INPROGRESS) {
            /* only a node that answered before: a connection still coming
             * up can take longer (see shmi_ucx_init), and UCX reports one
             * that fails */
            if (u.answered[u.probe_at] && now - u.probe_sent > u.timeout && !u.silent) {
                u.silent = pe + 1;
                lost_set(pe, now - LOST_GRACE_S); /* reported now: the timeout was the wait */
            }
            return;
        }
        f.ucp_request_free(u.probe);
        u.probe = NULL;
        if (st != UCS_OK) on_ep_error((void *)(intptr_t)pe, u.ep[pe], st);
        else u.answered[u.probe_at] = 1;
        u.probe_at = (u.probe_at + 1) % u.nleaders;
        return;
    }
    if (now < u.probe_due) return;
    u.probe_due = now + 1.0;
    uint64_t raddr;
    ucp_rkey_h rkey;
    if (!xlate(u.bell, pe, &raddr, &rkey)) return;
    ucp_request_param_t p = { 0 };
    void *req = f.ucp_get_nbx(u.ep[pe], &u.probe_word, sizeof u.probe_word, raddr, rkey, &p);
    u.probe_sent = now;
    if (UCS_PTR_IS_ERR(req)) on_ep_error((void *)(intptr_t)pe, u.ep[pe], UCS_PTR_STATUS(req));
    else u.probe = req;
}

/* Report a failed connection once (tp.h: shmi_tp_lost_hook), after grace
 * seconds; the hook ends the job unless it is leaving. */
static void lost_report(double grace, int waiting)
{
    int pe = __atomic_load_n(&u.lost, __ATOMIC_ACQUIRE) - 1;
    if (pe < 0 || __atomic_load_n(&u.lost_told, __ATOMIC_RELAXED) ||
        shmi_clock_s() - u.lost_at < grace)
        return;
    int no = 0;
    if (!__atomic_compare_exchange_n(&u.lost_told, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    char why[320];
    if (u.silent == pe + 1)
        snprintf(why, sizeof why, "PE %d on host %s: no answer for %.0f s (SHMEM_NET_TIMEOUT)", pe,
                 u.host[pe], u.timeout);
    else
        shmi_ucx_why(pe, SHMI_ENET, why, sizeof why);
    void (*hook)(int, const char *, int) = shmi_tp_lost_hook;
    if (hook) hook(pe, why, waiting);
}

static void net_check(void)
{
    if (__builtin_expect(__atomic_load_n(&u.lost, __ATOMIC_RELAXED) != 0, 0))
        lost_report(LOST_GRACE_S, 1);
}

/* Segment of our symmetric address a and its remote address on pe. */
static inline int xlate(const void *a, int pe, uint64_t *raddr, ucp_rkey_h *rkey)
{
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < u.nseg; s++)
        if (x - u.base[s] < u.size[s]) {
            *raddr = x - u.base[s] + u.rbase[s][pe];
            *rkey = u.rkey[s][pe];
            return 1;
        }
    return 0;
}

/* ---- progress thread --------------------------------------------------------- */

static void poll_progress(void) { f.ucp_worker_progress(u.worker); }

static const struct shmi_net_poll net_poll = { poll_begin, poll_progress, poll_end, net_check };

static void *progress_main(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&u.stop, __ATOMIC_ACQUIRE)) {
        probe_tick();
        if (__atomic_load_n(&u.lost, __ATOMIC_RELAXED)) lost_report(LOST_GRACE_S + 1, 0);
        uint32_t n = __atomic_load_n(&u.pollers, __ATOMIC_SEQ_CST);
        if (n) {
            struct timespec ts = { 0, PARK_NS };
            __atomic_store_n(&u.parked, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&u.pollers, __ATOMIC_SEQ_CST) == n)
                syscall(SYS_futex, &u.pollers, FUTEX_WAIT_PRIVATE, n, &ts, NULL, 0);
            __atomic_store_n(&u.parked, 0, __ATOMIC_SEQ_CST);
            continue;
        }
        if (f.ucp_worker_progress(u.worker)) {
            /* something arrived (maybe a write into our memory): wake waiters */
            while (f.ucp_worker_progress(u.worker)) {}
            if (u.bell) shmi_ring(u.bell);
            continue;
        }
        ucs_status_t st = f.ucp_worker_arm(u.worker);
        if (st == UCS_ERR_BUSY) continue;
        struct pollfd p = { u.efd, POLLIN, 0 };
        /* bounded, so that stop is seen without a wake-up message */
        poll(&p, 1, st == UCS_OK ? 100 : 1);
    }
    return NULL;
}

static int thread_start(char *err, size_t errlen)
{
    ucs_status_t st = f.ucp_worker_get_efd(u.worker, &u.efd);
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucx: no event fd for the worker: %s", f.ucs_status_string(st));
        return SHMI_ENOTSUP;
    }
    sigset_t all, old;
    sigfillset(&all);
    /* Signals stay with the program's threads, but not the synchronous ones:
     * blocked, a fault here would kill the process without its handler (the
     * lazy arrays' SIGSEGV handler fills a block UCX reads or writes). */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&u.thread, NULL, progress_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "ucx: cannot start the progress thread: %s", strerror(rc));
        return SHMI_ESYS;
    }
    u.thread_on = 1;
    return SHMI_OK;
}

static void thread_stop(void)
{
    if (!u.thread_on) return;
    __atomic_store_n(&u.stop, 1, __ATOMIC_RELEASE);
    pthread_join(u.thread, NULL);
    u.thread_on = 0;
}

/* A program that exits without finalizing (or with a status != 0) must not
 * leave the thread inside UCX while the process's destructors run. */
static void at_exit(void) { thread_stop(); }

/* ---- init -------------------------------------------------------------------- */

static int open_worker(char *err, size_t errlen)
{
    ucp_config_t *cfg;
    ucs_status_t st = f.ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucx: cannot read UCX's configuration (UCX_* variables): %s",
                 f.ucs_status_string(st));
        return SHMI_EINVAL;
    }
    /* The worker is shared (thread mode MULTI) by the progress thread and
     * the program's threads, under UCX's spinlock by default: on a busy node
     * a thread preempted while it holds it makes the other spin out a time
     * slice, and a remote write waited for was seen ~1 ms late (ping-pong
     * one way 2000 us, 16 us with the mutex; docs/cluster.md).  An explicit
     * UCX_USE_MT_MUTEX wins. */
    if (!getenv("UCX_USE_MT_MUTEX")) (void)f.ucp_config_modify(cfg, "USE_MT_MUTEX", "y");
    ucp_params_t p = { 0 };
    p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    p.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
    p.mt_workers_shared = 1;
    st = f.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &p, cfg, &u.ctx);
    f.ucp_config_release(cfg);
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucx: ucp_init failed: %s; check UCX_TLS and UCX_NET_DEVICES "
                 "(ucx_info -d lists the devices)", f.ucs_status_string(st));
        return SHMI_ENOTSUP;
    }
    ucp_worker_params_t wp = { 0 };
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_MULTI;
    st = f.ucp_worker_create(u.ctx, &wp, &u.worker);
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucx: cannot create a worker: %s", f.ucs_status_string(st));
        return SHMI_ENOTSUP;
    }
    return SHMI_OK;
}

static int map_segs(const struct shmi_seg *segs, int nseg, char *err, size_t errlen)
{
    for (int s = 0; s < nseg; s++) {
        ucp_mem_map_params_t mp = { 0 };
        mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        mp.address = segs[s].base;
        mp.length = segs[s].size;
        ucs_status_t st = f.ucp_mem_map(u.ctx, &mp, &u.mem[s]);
        if (st != UCS_OK) {
            snprintf(err, errlen, "ucx: cannot register the %s (%zu bytes at %p): %s; lower "
                     "SHMEM_SYMMETRIC_SIZE", segs[s].name, segs[s].size, (void *)segs[s].base,
                     f.ucs_status_string(st));
            return SHMI_ENOTSUP;
        }
        u.base[s] = (uintptr_t)segs[s].base;
        u.size[s] = segs[s].size;
        u.nseg = s + 1;
    }
    return SHMI_OK;
}

/* What every PE publishes; followed by the worker address and the rkeys. */
struct blob_head {
    uint32_t addr_len, rkey_len[SHMI_TP_MAX_SEGS];
    uint64_t base[SHMI_TP_MAX_SEGS];
    int32_t node;                        /* lowest world PE of its node */
    char host[HOST_LEN];
};

static int make_blob(const char *host, int node, unsigned char **out, size_t *len)
{
    ucp_address_t *addr;
    size_t alen, klen[SHMI_TP_MAX_SEGS] = { 0 };
    void *key[SHMI_TP_MAX_SEGS] = { 0 };
    if (f.ucp_worker_get_address(u.worker, &addr, &alen) != UCS_OK) return SHMI_ENOTSUP;
    int rc = SHMI_OK;
    for (int s = 0; s < u.nseg && rc == SHMI_OK; s++)
        if (f.ucp_rkey_pack(u.ctx, u.mem[s], &key[s], &klen[s]) != UCS_OK) rc = SHMI_ENOTSUP;
    struct blob_head h = { 0 };
    *len = sizeof h + alen;
    for (int s = 0; s < u.nseg; s++) *len += klen[s];
    unsigned char *b = rc == SHMI_OK ? calloc(1, *len) : NULL;
    if (b) {
        h.addr_len = (uint32_t)alen;
        h.node = node;
        snprintf(h.host, sizeof h.host, "%.*s", (int)sizeof h.host - 1, host);
        size_t at = sizeof h;
        memcpy(b + at, addr, alen);
        at += alen;
        for (int s = 0; s < u.nseg; s++) {
            h.rkey_len[s] = (uint32_t)klen[s];
            h.base[s] = u.base[s];
            memcpy(b + at, key[s], klen[s]);
            at += klen[s];
        }
        memcpy(b, &h, sizeof h);
    } else if (rc == SHMI_OK) {
        rc = SHMI_ENOMEM;
    }
    for (int s = 0; s < u.nseg; s++)
        if (key[s]) f.ucp_rkey_buffer_release(key[s]);
    f.ucp_worker_release_address(u.worker, addr);
    *out = b;
    return rc;
}

static int connect_pe(int pe, const unsigned char *blob, char *err, size_t errlen)
{
    struct blob_head h;
    memcpy(&h, blob, sizeof h);
    snprintf(u.host[pe], HOST_LEN, "%s", h.host);
    ucp_ep_params_t ep = { 0 };
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = (const ucp_address_t *)(blob + sizeof h);
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = on_ep_error;
    ep.err_handler.arg = (void *)(intptr_t)pe;
    ucs_status_t st = f.ucp_ep_create(u.worker, &ep, &u.ep[pe]);
    const unsigned char *k = blob + sizeof h + h.addr_len;
    for (int s = 0; st == UCS_OK && s < u.nseg; s++) {
        u.rbase[s][pe] = (uintptr_t)h.base[s];
        st = f.ucp_ep_rkey_unpack(u.ep[pe], k, &u.rkey[s][pe]);
        k += h.rkey_len[s];
    }
    if (st != UCS_OK) {
        snprintf(err, errlen, "ucx: cannot connect to PE %d on host %s: %s; check UCX_TLS and "
                 "UCX_NET_DEVICES on both nodes", pe, h.host, f.ucs_status_string(st));
        return SHMI_ENOTSUP;
    }
    return SHMI_OK;
}

static int exchange(shmi_boot_t *b, const uint8_t *remote, char *err, size_t errlen)
{
    unsigned char *mine = NULL, *all = NULL;
    size_t len, *lens = calloc((size_t)u.npes, sizeof *lens);
    int node = b->local_size > 0 && b->local_pes ? b->local_pes[0] : b->rank;
    int rc = lens ? make_blob(b->hostname, node, &mine, &len) : SHMI_ENOMEM;
    if (rc == SHMI_OK) rc = shmi_boot_allgather(b, &len, lens, sizeof len);
    size_t max = 0;
    for (int pe = 0; rc == SHMI_OK && pe < u.npes; pe++)
        if (lens[pe] > max) max = lens[pe];
    unsigned char *pad = rc == SHMI_OK ? calloc(1, max) : NULL;
    if (rc == SHMI_OK && (!pad || !(all = malloc(max * (size_t)u.npes)))) rc = SHMI_ENOMEM;
    if (rc == SHMI_OK) {
        memcpy(pad, mine, len);
        rc = shmi_boot_allgather(b, pad, all, max);
    }
    if (rc != SHMI_OK)
        snprintf(err, errlen, "ucx: exchanging worker addresses failed (%s)", shmi_strerror(rc));
    for (int pe = 0; rc == SHMI_OK && pe < u.npes; pe++) {
        struct blob_head h;
        memcpy(&h, all + max * (size_t)pe, sizeof h);
        snprintf(u.host[pe], HOST_LEN, "%s", h.host);
        u.node[pe] = h.node;
        if (remote[pe]) rc = connect_pe(pe, all + max * (size_t)pe, err, errlen);
    }
    free(pad);
    free(all);
    free(mine);
    free(lens);
    return rc;
}

static int alloc_tables(void)
{
    size_t n = (size_t)u.npes;
    u.ep = calloc(n, sizeof *u.ep);
    u.failed = calloc(n, sizeof *u.failed);
    u.host = calloc(n, sizeof *u.host);
    u.node = calloc(n, sizeof *u.node);
    int ok = u.ep && u.failed && u.host && u.node;
    for (int s = 0; s < SHMI_TP_MAX_SEGS; s++) {
        u.rbase[s] = calloc(n, sizeof *u.rbase[s]);
        u.rkey[s] = calloc(n, sizeof *u.rkey[s]);
        ok = ok && u.rbase[s] && u.rkey[s];
    }
    return ok ? SHMI_OK : SHMI_ENOMEM;
}

/* One PE of every other node (the lowest): the liveness probe's targets. */
static int find_leaders(const uint8_t *remote)
{
    u.leaders = calloc((size_t)u.npes, sizeof *u.leaders);
    u.answered = calloc((size_t)u.npes, 1);
    if (!u.leaders || !u.answered) return SHMI_ENOMEM;
    for (int pe = 0; pe < u.npes; pe++)
        if (remote[pe] && u.node[pe] == pe) u.leaders[u.nleaders++] = pe;
    if (u.timeout > 0)
        shmi_log_debug("ucx: asking %d other node(s) once a second, lost after %.0f s of silence",
                       u.nleaders, u.timeout);
    return SHMI_OK;
}

int shmi_ucx_init(shmi_boot_t *b, const struct shmi_seg *segs, int nseg, const uint8_t *remote,
                  struct shmi_bell *bell, double timeout, char *err, size_t errlen)
{
    if (u.up) return SHMI_OK;
    memset(&u, 0, sizeof u);
    u.me = b->rank;
    u.npes = b->size;
    u.bell = bell;
    u.timeout = timeout;
    /* Not while the job starts, when every PE connects to its peers: with 8
     * PEs on 2 CPUs in the test's namespaces, a job now and then stalls for
     * 5-47 s while its connections come up (it then passes, without the
     * probe), and a probe waiting behind that looked like a silent node.
     * Hence also: silence counts only for a node that answered before. */
    u.probe_due = shmi_clock_s() + PROBE_START_S;
    int rc = load(err, errlen);
    if (rc == SHMI_OK && (rc = alloc_tables()) != SHMI_OK)
        snprintf(err, errlen, "ucx: out of memory for %d PEs' tables", u.npes);
    if (rc == SHMI_OK) rc = open_worker(err, errlen);
    if (rc == SHMI_OK) rc = map_segs(segs, nseg, err, errlen);
    if (rc == SHMI_OK) rc = exchange(b, remote, err, errlen);
    if (rc == SHMI_OK && (rc = find_leaders(remote)) != SHMI_OK)
        snprintf(err, errlen, "ucx: out of memory for %d PEs' tables", u.npes);
    if (rc == SHMI_OK) rc = thread_start(err, errlen);
    if (rc != SHMI_OK) {
        shmi_ucx_fini();
        return rc;
    }
    u.up = 1;
    shmi_wait_net = &net_poll;
    static int registered;
    if (!registered++) atexit(at_exit);
    shmi_log_debug("ucx: %d of %d PEs reached over UCX (this host: %s)", u.npes - b->local_size,
                   u.npes, b->hostname);
    return SHMI_OK;
}

void shmi_ucx_fini(void)
{
    if (!lib) return;
    shmi_wait_net = NULL;
    thread_stop();
    if (u.probe) f.ucp_request_free(u.probe); /* released when it completes, or with the ep */
    if (u.worker && u.up) {
        ucp_request_param_t p = { 0 };
        req_wait(f.ucp_worker_flush_nbx(u.worker, &p));
    }
    for (int pe = 0; u.ep && pe < u.npes; pe++) {
        for (int s = 0; s < u.nseg; s++)
            if (u.rkey[s] && u.rkey[s][pe]) f.ucp_rkey_destroy(u.rkey[s][pe]);
        if (u.ep[pe]) {
            /* peers may be gone already: do not wait for them */
            ucp_request_param_t p = { 0 };
            p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
            p.flags = UCP_EP_CLOSE_FLAG_FORCE;
            req_wait(f.ucp_ep_close_nbx(u.ep[pe], &p));
        }
    }
    for (int s = 0; s < u.nseg; s++)
        if (u.mem[s]) f.ucp_mem_unmap(u.ctx, u.mem[s]);
    if (u.worker) f.ucp_worker_destroy(u.worker);
    if (u.ctx) f.ucp_cleanup(u.ctx);
    free(u.ep);
    free(u.failed);
    free(u.host);
    free(u.node);
    free(u.leaders);
    free(u.answered);
    for (int s = 0; s < SHMI_TP_MAX_SEGS; s++) {
        free(u.rbase[s]);
        free(u.rkey[s]);
    }
    memset(&u, 0, sizeof u);
    /* libucp stays loaded: unloading it while its atexit handlers are
     * registered would crash at exit */
}

/* ---- operations -------------------------------------------------------------- */

static inline int usable(int pe)
{
    return u.up && u.ep[pe] && u.failed[pe] == UCS_OK;
}

/* An operation that completes at its target only with a flush (quiet). */
static inline void track(void)
{
    if (!__atomic_load_n(&u.dirty, __ATOMIC_RELAXED)) __atomic_store_n(&u.dirty, 1, __ATOMIC_RELAXED);
}

int shmi_ucx_put(void *dest, const void *src, size_t n, int pe, int nbi)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    if (!usable(pe) || !xlate(dest, pe, &raddr, &rkey)) return st_err(UCS_ERR_UNREACHABLE, pe);
    ucp_request_param_t p = { 0 };
    if (nbi != SHMI_TP_UNTRACKED) track();
    void *req = f.ucp_put_nbx(u.ep[pe], src, n, raddr, rkey, &p);
    return st_err(nbi == SHMI_TP_NBI ? req_leave(req) : req_wait(req), pe);
}

int shmi_ucx_get(void *dest, const void *src, size_t n, int pe, int nbi)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    if (!usable(pe) || !xlate(src, pe, &raddr, &rkey)) return st_err(UCS_ERR_UNREACHABLE, pe);
    ucp_request_param_t p = { 0 };
    if (nbi) track();
    void *req = f.ucp_get_nbx(u.ep[pe], dest, n, raddr, rkey, &p);
    return st_err(nbi ? req_leave(req) : req_wait(req), pe);
}

int shmi_ucx_amo(void *dest, size_t size, enum shmi_amo_op op, uint64_t v, uint64_t c,
                 uint64_t *old, int pe)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    if (!usable(pe) || !xlate(dest, pe, &raddr, &rkey)) return st_err(UCS_ERR_UNREACHABLE, pe);
    static const ucp_atomic_op_t code[] = {
        [SHMI_AMO_FETCH] = UCP_ATOMIC_OP_ADD, [SHMI_AMO_SET] = UCP_ATOMIC_OP_SWAP,
        [SHMI_AMO_SWAP] = UCP_ATOMIC_OP_SWAP, [SHMI_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP,
        [SHMI_AMO_ADD] = UCP_ATOMIC_OP_ADD, [SHMI_AMO_AND] = UCP_ATOMIC_OP_AND,
        [SHMI_AMO_OR] = UCP_ATOMIC_OP_OR, [SHMI_AMO_XOR] = UCP_ATOMIC_OP_XOR,
    };
    /* operand and result in the low bytes (little-endian, as amo.c) */
    uint64_t operand = op == SHMI_AMO_FETCH ? 0 : op == SHMI_AMO_CSWAP ? c : v;
    uint64_t result = op == SHMI_AMO_CSWAP ? v : 0;
    int fetch = old || op == SHMI_AMO_SET || op == SHMI_AMO_SWAP || op == SHMI_AMO_CSWAP ||
                op == SHMI_AMO_FETCH;
    ucp_request_param_t p = { 0 };
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig(size);
    if (fetch) {
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.reply_buffer = &result;
    } else {
        track(); /* done here = posted; done there after a flush */
    }
    void *req = f.ucp_atomic_op_nbx(u.ep[pe], code[op], &operand, 1, raddr, rkey, &p);
    int rc = st_err(req_wait(req), pe);
    if (old) *old = size == 4 ? (uint32_t)result : result;
    return rc;
}

int shmi_ucx_node(int pe) { return u.up && u.node && pe >= 0 && pe < u.npes ? u.node[pe] : pe; }

int shmi_ucx_fence(void)
{
    if (!u.up) return SHMI_OK;
    return st_err(f.ucp_worker_fence(u.worker), -1);
}

int shmi_ucx_quiet(void)
{
    if (!u.up || !__atomic_exchange_n(&u.dirty, 0, __ATOMIC_ACQ_REL)) return SHMI_OK;
    ucp_request_param_t p = { 0 };
    return st_err(req_wait(f.ucp_worker_flush_nbx(u.worker, &p)), -1);
}

void shmi_ucx_progress(void)
{
    if (u.up) f.ucp_worker_progress(u.worker);
}

/* ---- the transport table's row (tp.h) --------------------------------------- */

static int ops_init(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg,
                    char *err, size_t errlen)
{
    return shmi_ucx_init(b, segs, nseg, tp->remote, tp->bell, tp->net_timeout, err, errlen);
}

static void ops_fini(struct shmi_tp *tp)
{
    (void)tp;
    shmi_ucx_fini();
}

static int ops_put(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)tp;
    return shmi_ucx_put(dest, src, n, pe, mode);
}

static int ops_get(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode)
{
    (void)tp;
    return shmi_ucx_get(dest, src, n, pe, mode);
}

static int ops_amo(struct shmi_tp *tp, void *dest, size_t size, enum shmi_amo_op op, uint64_t v,
                   uint64_t c, uint64_t *old, int pe)
{
    (void)tp;
    return shmi_ucx_amo(dest, size, op, v, c, old, pe);
}

/* An 8-byte aligned put: a single store at the target (UCX's TCP transport
 * copies it with one 8-byte move, and RDMA writes of aligned 8 bytes are
 * not torn), untracked: the target waits for it anyway, and quiet/fini
 * flush it.  UCX orders puts to one endpoint only after a fence. */
static int ops_flag(struct shmi_tp *tp, uint64_t *flag, uint64_t w, int pe)
{
    (void)tp;
    return shmi_ucx_put(flag, &w, sizeof w, pe, SHMI_TP_UNTRACKED);
}

static int ops_fence(struct shmi_tp *tp)
{
    (void)tp;
    return shmi_ucx_fence();
}

static int ops_quiet(struct shmi_tp *tp)
{
    (void)tp;
    return shmi_ucx_quiet();
}

static void ops_progress(struct shmi_tp *tp)
{
    (void)tp;
    shmi_ucx_progress();
}

static const char *ops_why(struct shmi_tp *tp, int pe, int rc, char *buf, size_t len)
{
    (void)tp;
    char what[200];
    snprintf(buf, len, "the network operation with %s failed: the PE (or its node) is gone, or "
             "UCX cannot reach it (check UCX_TLS, UCX_NET_DEVICES)",
             shmi_ucx_why(pe, rc, what, sizeof what));
    return buf;
}

const struct shmi_tp_ops shmi_tp_ucx = {
    .name = "ucx", .init = ops_init, .fini = ops_fini, .put = ops_put, .get = ops_get,
    .amo = ops_amo, .flag = ops_flag, .fence = ops_fence, .quiet = ops_quiet,
    .progress = ops_progress, .why = ops_why,
};
