/* watchdog.c - say what every PE is blocked in when a wait lasts too long.
 *
 * A wait that spins past its budget starts sleeping (transport/wait.c) and
 * calls our hook: we publish what this thread waits for (shmi_wait_cur, set
 * by the API routine before waiting) in our control block, which every peer
 * can read.  When one wait has lasted SHMEM_WATCHDOG seconds, the PE prints
 * one line per PE from those control blocks -- enough to see a deadlock at a
 * glance -- and, with SHMEM_WATCHDOG_ABORT=1, ends the job with status 124.
 * Nothing of this runs on the fast path: waits that never sleep never call
 * the hook. */
#include "util/tls.h"
#include "core/state.h"
#include "debug/watchdog_text.h"
#include "util/clock.h"

#include <shmem.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static SHMI_TLS int reported;

static const char *cmp_name(int cmp)
{
    static const char *names[] = { "==", "!=", ">", ">=", "<", "<=" };
    return cmp >= 0 && cmp <= 5 ? names[cmp] : "?";
}

/* Several threads of one PE may sleep at once (SHMEM_THREAD_MULTIPLE):
 * active counts them, and the description is a seqlock: one thread at a
 * time writes it (gen odd meanwhile), any thread or peer reads it and
 * retries when gen moved.  The fields are relaxed atomics ordered by gen, so
 * no access is a data race. */
static SHMI_TLS int counted;

static void publish(void)
{
    struct shmi_blocked *b = &shmi_g.ctl->blocked;
    const struct shmi_wait_desc *d = shmi_wait_cur;
    char what[sizeof b->what];
    snprintf(what, sizeof what, "%s", d && d->what ? d->what : "a symheap wait");
    double since = shmi_clock_s();
    uint32_t g = __atomic_load_n(&b->gen, __ATOMIC_RELAXED) & ~1u;
    while (!__atomic_compare_exchange_n(&b->gen, &g, g + 1, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED))
        g &= ~1u; /* another thread is writing: wait for an even gen */
    for (size_t i = 0; i < sizeof what; i++) __atomic_store_n(&b->what[i], what[i], __ATOMIC_RELAXED);
    __atomic_store_n(&b->addr, d ? (uint64_t)(uintptr_t)d->addr : 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->cmp, d ? d->cmp : -1, __ATOMIC_RELAXED);
    __atomic_store_n(&b->want, d ? d->want : 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->seq, d ? d->seq : 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->pe1, d ? d->pe1 : 0, __ATOMIC_RELAXED);
    __atomic_store(&b->since, &since, __ATOMIC_RELAXED);
    __atomic_store_n(&b->gen, g + 2, __ATOMIC_RELEASE);
    __atomic_fetch_add(&b->active, 1, __ATOMIC_RELEASE);
    counted = 1;
}

/* A consistent copy of pe's description, or 0 if a writer kept it busy
 * (bounded: this also runs in a signal handler that may have interrupted
 * the writer). */
static int snapshot(int pe, struct shmi_blocked *o)
{
    const struct shmi_blocked *b = &shmi_ctl_of(pe)->blocked;
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t g = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
        if (g & 1) continue;
        for (size_t i = 0; i < sizeof o->what; i++) o->what[i] = __atomic_load_n(&b->what[i], __ATOMIC_RELAXED);
        o->addr = __atomic_load_n(&b->addr, __ATOMIC_RELAXED);
        o->cmp = __atomic_load_n(&b->cmp, __ATOMIC_RELAXED);
        o->want = __atomic_load_n(&b->want, __ATOMIC_RELAXED);
        o->seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED);
        o->pe1 = __atomic_load_n(&b->pe1, __ATOMIC_RELAXED);
        __atomic_load(&b->since, &o->since, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&b->gen, __ATOMIC_RELAXED) == g) return 1;
    }
    return 0;
}

/* Whether pe's process is stopped: "" if not (or unknown), else what to say.
 * open/read/close only: this also runs in the SIGUSR2 handler. */
static const char *stopped(int pe)
{
    char path[48], text[512];
    int pid = __atomic_load_n(&shmi_ctl_of(pe)->blocked.pid, __ATOMIC_RELAXED);
    if (pid <= 0) return "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    ssize_t n = read(fd, text, sizeof text);
    close(fd);
    char st = n > 0 ? shmi_wd_proc_state(text, (size_t)n) : 0;
    return st == 'T' ? "stopped (SIGSTOP)" : st == 't' ? "stopped by a debugger (tracing)" : "";
}

/* A PE of another node: its description through the transport (a get of
 * its control block's record, retried while its writer is busy), or 0.
 * Not from the signal handler (the transport is no async-signal code). */
static int snapshot_remote(int pe, struct shmi_blocked *o)
{
    for (int tries = 0; tries < 100; tries++) {
        shmi_peer_read("watchdog", o, &shmi_g.ctl->blocked, sizeof *o, pe);
        if (!(o->gen & 1)) return 1;
    }
    return 0;
}

/* A PE of another node is asked through the transport: the report only.
 * The signal handler's dump passes mapped PEs alone (on_dump). */
static void describe_pe(int pe)
{
    struct shmi_blocked b;
    const char *stop = "";
    uint32_t active;
    int got, far = !shmi_tp_mapped(&shmi_g.tp, pe);
    if (far) { /* no mapping (issue 9) */
        got = snapshot_remote(pe, &b);
        active = got ? b.active : 1;
    } else {
        stop = stopped(pe);
        active = __atomic_load_n(&shmi_ctl_of(pe)->blocked.active, __ATOMIC_ACQUIRE);
        got = active && snapshot(pe, &b);
    }
    if (!active) {
        if (*stop)
            shmi_log_error("watchdog:   PE %d: %s, not in a symheap wait", pe, stop);
        else
            shmi_log_error("watchdog:   PE %d: not waiting in symheap (computing, or blocked "
                           "outside symheap)", pe);
        return;
    }
    if (!got) {
        shmi_log_error("watchdog:   PE %d: waiting (its description is being updated)", pe);
        return;
    }
    char extra[128] = "";
    b.what[sizeof b.what - 1] = 0;
    if (b.addr && b.cmp >= 0)
        snprintf(extra, sizeof extra, " on %p %s %lld", (void *)(uintptr_t)b.addr,
                 cmp_name(b.cmp), (long long)b.want);
    else if (b.seq)
        snprintf(extra, sizeof extra, " (#%llu)", (unsigned long long)b.seq);
    else if (b.pe1 > 0)
        snprintf(extra, sizeof extra, ", a network operation with PE %d", b.pe1 - 1);
    else if (b.pe1 < 0)
        snprintf(extra, sizeof extra, ", a network operation (completion of every transfer)");
    /* the clock read after the copy: a long report (many PEs) cannot make
     * a newer description look as if it started in the future */
    double age = shmi_wd_age(shmi_clock_s(), b.since);
    char took[64] = " (since unknown)";
    if (far) /* another machine's monotonic clock */
        snprintf(took, sizeof took, " (on another node)");
    else if (age >= 0)
        snprintf(took, sizeof took, " for %.0f s", age);
    shmi_log_error("watchdog:   PE %d: %s%sin %s%s%s", pe, stop, *stop ? ", " : "", b.what,
                   extra, took);
}

static void report(double waited)
{
    const struct shmi_wait_desc *d = shmi_wait_cur;
    shmi_log_error("watchdog: this PE has waited %.0f s in %s (SHMEM_WATCHDOG=%zu); what "
                   "every PE is doing:", waited, d && d->what ? d->what : "a symheap wait",
                   shmi_g.env.WATCHDOG);
    for (int pe = 0; pe < shmi_g.npes; pe++) describe_pe(pe);
    if (shmi_g.env.WATCHDOG_ABORT)
        shmi_fatal_code(124, "watchdog: ending the job (SHMEM_WATCHDOG_ABORT=1): a deadlock "
                        "or a PE that never reaches its matching call");
    shmi_log_error("watchdog: still waiting; set SHMEM_WATCHDOG_ABORT=1 to end the job instead");
}

static void hook(int event, double waited)
{
    if (shmi_g.phase != SHMI_RUNNING) return;
    if (event == SHMI_WAIT_SLEEP) {
        publish();
        reported = 0;
    } else if (event == SHMI_WAIT_DONE) {
        if (counted) __atomic_fetch_sub(&shmi_g.ctl->blocked.active, 1, __ATOMIC_RELEASE);
        counted = 0;
    } else if (!reported && shmi_g.env.WATCHDOG && waited >= (double)shmi_g.env.WATCHDOG) {
        reported = 1;
        /* one report for the job, across nodes too: the first PE to claim
         * PE 0's word prints for all (asking other nodes' PEs through the
         * transport) */
        if (shmi_peer_atomic("watchdog", &shmi_g.ctl->blocked.claimed, sizeof(uint32_t),
                             SHMI_AMO_CSWAP, 1, 0, 0) == 0)
            report(waited);
    }
}

void shmi_watchdog_signal_init(void);
void shmi_watchdog_init(void)
{
    __atomic_store_n(&shmi_g.ctl->blocked.pid, (int32_t)getpid(), __ATOMIC_RELAXED);
    shmi_wait_hook = hook;
    shmi_watchdog_signal_init();
}

/* ---- Dump on request (SIGUSR2) -----------------------------------------------
 * symrun turns SIGQUIT into SIGUSR2 to PE 0; mpirun passes SIGUSR2 on to
 * every PE (as `scancel --signal=USR2` does under Slurm).  The first PE of
 * each node answers for its node's PEs, so one signal gives one dump of the
 * whole job, node by node, whichever launcher spread it.  The handler prints
 * straight away (the PE asked may itself be stuck in a wait), reading only
 * the control blocks it maps and formatting into a stack buffer; stdio,
 * locks and the network are not touched (shmi_log_* is one snprintf +
 * write). */
static void on_dump(int sig)
{
    (void)sig;
    int e = errno;
    const shmi_boot_t *b = &shmi_g.boot;
    int first = shmi_g.me;
    for (int i = 0; i < b->local_size; i++)
        if (b->local_pes[i] < first) first = b->local_pes[i];
    if (first == shmi_g.me) {
        if (shmi_g.tp.nremote == 0) {
            shmi_log_error("dump (SIGQUIT to symrun): what every PE is doing:");
            for (int pe = 0; pe < shmi_g.npes; pe++) describe_pe(pe);
        } else {
            shmi_log_error("dump (SIGUSR2): what the %d PE(s) on host %s are doing (the first "
                           "PE of each host prints its own):", b->local_size,
                           b->hostname[0] ? b->hostname : "?");
            for (int pe = 0; pe < shmi_g.npes; pe++)
                if (shmi_tp_mapped(&shmi_g.tp, pe)) describe_pe(pe);
        }
    }
    errno = e;
}

void shmi_watchdog_signal_init(void)
{
    struct sigaction old, sa = { .sa_handler = on_dump, .sa_flags = SA_RESTART };
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR2, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
        sigaction(SIGUSR2, &sa, NULL); /* never replace the program's own handler */
}
