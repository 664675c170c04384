/* init.c - library setup, query and tear-down.
 *
 * shmem_init is a list of named steps, each undone in reverse by finalize:
 *   env -> bootstrap -> heap (same address everywhere) -> globals ->
 *   transport (map peers) -> allocator -> control block -> first barrier.
 * Any failing step is fatal with a message that names the step's reason and
 * the fix; the launcher then ends every PE. */
#include "debug/debug.h"
#include "debug/report.h"
#include "core/state.h"
#include "core/mem_device.h"
#include "core/team.h"
#include "api/ctx.h" /* shmi_rma_fault_install */
#include "util/err.h"

#include <shmem.h>
#include <shmemx.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void abort_hook(int code, const char *msg)
{
    shmi_boot_abort(&shmi_g.boot, code, msg);
}

static _Noreturn void init_fail(const char *step, const char *why)
{
    shmi_fatal("shmem_init: %s: %s", step, why);
}

/* This process's rank as its launcher set it (symrun, mpirun/srun), or -1:
 * environment errors come before the bootstrap knows it. */
static int launcher_rank(void)
{
    const char *vars[] = { getenv("SYMRUN_FD") ? "SYMRUN_RANK" : NULL, "PMIX_RANK",
                           "OMPI_COMM_WORLD_RANK" };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = vars[i] ? getenv(vars[i]) : NULL;
        char *end;
        long r = v && *v ? strtol(v, &end, 10) : -1;
        if (v && *v && !*end && r >= 0 && r < 1 << 30) return (int)r;
    }
    return -1;
}

/* A bad setting, before the PEs know each other.  The launcher gives every
 * PE the same environment, so PE 0 says it and the launcher ends the others
 * (issue 17: not one line per PE); another PE waits a second first, and says
 * it only when it is still running then, i.e. when PE 0's setting was good. */
static _Noreturn void env_fail(const char *err)
{
    int rank = launcher_rank();
    shmi_log_pe = rank < 0 ? 0 : rank; /* no launcher: a single PE */
    if (rank > 0) {
        struct timespec t = { 1, 0 };
        while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
    }
    init_fail("bad environment", err);
}

static void step_env(void)
{
    char err[512];
    if (shmi_env_load(&shmi_g.env, err, sizeof err) != SHMI_OK) env_fail(err);
    shmi_log_verbose = shmi_g.env.DEBUG;
    shmi_checks = !strcmp(shmi_g.env.CHECKS, "off")    ? SHMI_CHECKS_OFF
                  : !strcmp(shmi_g.env.CHECKS, "full") ? SHMI_CHECKS_FULL
                                                       : SHMI_CHECKS_CHEAP;
    shmi_debug_install();
    shmi_wait_set_spin(shmi_g.env.WAIT_SPIN);
    shmi_wait_set_spin_time(shmi_g.env.WAIT_SPIN_US * 1e-6);
}

/* Waits stop spinning (unless SHMEM_WAIT_SPIN / _US say otherwise): a
 * spinning PE would only delay the PE it waits for. */
static void oversubscribed(void)
{
    if (!getenv("SHMEM_WAIT_SPIN")) shmi_wait_set_spin(0);
    if (!getenv("SHMEM_WAIT_SPIN_US")) shmi_wait_set_spin_time(0);
}

/* The one CPU we may run on, or -1. */
static int bound_cpu(void)
{
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) != 1) return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mask)) return c;
    return -1;
}

/* After init's barrier, every control block holds its PE's bound CPU: two
 * PEs of this node bound to the same one (a launcher's binding gone wrong,
 * or a user's taskset) share it, and then spinning costs a scheduler tick
 * per wait. */
static void check_shared_cpu(void)
{
    int mine = shmi_g.ctl->cpu;
    if (mine < 0) return;
    for (int i = 0; i < shmi_g.boot.local_size; i++) {
        int pe = shmi_g.boot.local_pes[i];
        if (pe != shmi_g.me && shmi_ctl_of(pe)->cpu == mine) {
            shmi_log_debug("PE %d is bound to CPU %d as we are: waits yield at once", pe, mine);
            oversubscribed();
            return;
        }
    }
}

static void step_boot(void)
{
    char err[512];
    if (shmi_boot_init(&shmi_g.boot, err, sizeof err) != SHMI_OK)
        init_fail("cannot reach the other PEs", err);
    shmi_g.me = shmi_g.boot.rank;
    shmi_g.npes = shmi_g.boot.size;
    shmi_log_pe = shmi_g.me;
    shmi_log_set_abort_hook(abort_hook);
    /* Measured on 2 cores (pe_barrier): with 8 PEs, spinning 200 polls costs
     * 26 us per barrier, yielding at once 9 us; with 2 PEs spinning wins. */
    /* This node's PEs against this node's CPUs (issue 16): the PEs of other
     * nodes do not compete for ours, so 2 nodes x 2 PEs on 2-CPU nodes spin. */
    /* The CPUs we may run on: a cpuset or `taskset -c 0 symrun -n 2` leaves
     * fewer than are online.  A PE bound to one CPU (symrun or mpirun binding
     * each PE) counts the node's: whether two PEs share that one CPU is seen
     * once every control block is up (check_shared_cpu). */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 1 &&
        CPU_COUNT(&mask) < cpus)
        cpus = CPU_COUNT(&mask);
    int here = shmi_g.boot.local_size > 0 ? shmi_g.boot.local_size : shmi_g.npes;
    int over = cpus > 0 && here > cpus;
    if (over) oversubscribed();
    shmi_log_debug("%d PE(s) on this node (%s) of %d, %ld CPU(s) online: %s", here,
                   shmi_g.boot.hostname[0] ? shmi_g.boot.hostname : "?", shmi_g.npes, cpus,
                   !over ? "waits spin first" : getenv("SHMEM_WAIT_SPIN")
                   ? "oversubscribed, SHMEM_WAIT_SPIN kept" : "oversubscribed, waits yield at once");
    /* Waits rarely sleep when every PE has a CPU: move the doorbell's fence
     * from every put and barrier flag to the rare sleep (wait.c). */
    if (cpus > 0 && !over) shmi_wait_asymmetric();
}

static void step_heap(void)
{
    char err[512];
    size_t size = shmi_g.env.SYMMETRIC_SIZE + SHMI_CTL_SIZE;
    int rc = shmi_heap_reserve(&shmi_g.heap, &shmi_g.boot, size, shmi_g.env.HEAP_BASE, err,
                               sizeof err);
    if (rc != SHMI_OK) init_fail("cannot reserve the symmetric heap", err);
}

static void step_globals(struct shmi_seg *segs, int *nseg)
{
    char err[512];
    segs[(*nseg)++] = shmi_g.heap;
    if (!shmi_g.env.GLOBALS) return;
    if (shmi_globals_share(&shmi_g.globals, err, sizeof err) != SHMI_OK)
        init_fail("cannot make globals symmetric", err);
    segs[(*nseg)++] = shmi_g.globals;
}

static void step_transport(struct shmi_seg *segs, int nseg)
{
    char err[512];
    /* our doorbell (the control block's first field, at the heap's end; see
     * step_alloc): the network transport's progress thread rings it */
    struct shmi_bell *bell = (struct shmi_bell *)(shmi_g.heap.base + shmi_g.heap.size -
                                                  SHMI_CTL_SIZE);
    shmi_peer_init();
    shmi_g.tp.net_timeout = (double)shmi_g.env.NET_TIMEOUT;
    if (shmi_tp_init(&shmi_g.tp, &shmi_g.boot, segs, nseg, bell, err, sizeof err) != SHMI_OK)
        init_fail("cannot map the other PEs' memory", err);
    /* doorbells name waited-on bytes by segment and offset (wait.h) */
    uintptr_t base[SHMI_TP_MAX_SEGS];
    size_t size[SHMI_TP_MAX_SEGS];
    for (int s = 0; s < nseg && s < SHMI_TP_MAX_SEGS; s++) {
        base[s] = (uintptr_t)segs[s].base;
        size[s] = segs[s].size;
    }
    shmi_bell_segments(nseg < SHMI_TP_MAX_SEGS ? nseg : SHMI_TP_MAX_SEGS, base, size);
    /* Every PE has mapped every peer's memfds: drop ours, the mappings keep
     * the memory alive and nothing remains once the last process exits. */
    close(shmi_g.heap.fd);
    shmi_g.heap.fd = -1;
    if (shmi_g.globals.fd >= 0 && shmi_g.globals.base) {
        close(shmi_g.globals.fd);
        shmi_g.globals.fd = -1;
    }
}

static void step_alloc(void)
{
    /* The control block sits at the heap's end, so that allocator offsets
     * keep the base's alignment (1 GiB): shmem_align(2M) is 2M-aligned. */
    shmi_g.host.base = shmi_g.heap.base;
    shmi_g.host.size = shmi_g.heap.size - SHMI_CTL_SIZE;
    shmi_g.ctl = (struct shmi_ctl *)(shmi_g.heap.base + shmi_g.host.size);
    shmi_g.ctl->cpu = bound_cpu(); /* read by the local PEs after init's barrier */
    shmi_g.host.kind = &shmi_host_kind;
    if (shmi_alloc_create(&shmi_g.host.alloc, shmi_g.host.size) != SHMI_OK)
        init_fail("cannot create the allocator", "out of private memory");
    shmi_g.host.zero_hwm = 0;
}

/* Repeated initialization (spec 1.6): init and finalize calls nest.  depth
 * counts the initializations not yet matched by a finalize; a finalize that
 * leaves depth > 0 is a barrier (quiet + barrier_all) and frees nothing.
 * The last one ends the session: collective checks and reports, then the
 * allocator, teams, contexts and the GPU heap go, and the library is
 * uninitialized (shmem_query_initialized says 0, calls are refused).  The
 * bootstrap connection and the mappings of every PE's memory stay, dormant,
 * so that a later shmem_init starts a new session without the launcher:
 * a new allocator on the same heap, the predefined teams with their barrier
 * state carried on (so the PEs that re-initialize first cannot confuse the
 * others' old barrier words), no split team.  The launcher is told the PE
 * finalized when the process exits (dormant_exit).  Settings (SHMEM_*) are
 * those read by the first shmem_init. */
static int depth;
static int pcontrol_level = 1;
/* The process that called shmem_init: a child it forks inherits the library's
 * state (and the launcher socket), but is not the PE; its exit is its own. */
static pid_t init_pid;

/* A program that returns from main (exit status 0) without shmem_finalize is
 * finalized here, as other implementations do.  One that exits with another
 * status is failing: a collective finalize could wait forever for PEs that
 * are busy elsewhere, so we leave and let the launcher end the job.  A
 * finalized (dormant) library tells the launcher it finalized and ends.
 * Only in the process that called shmem_init: a child forked after it runs
 * the inherited handler at its exit, and must not finalize as the PE. */
static void implicit_finalize(int status, void *arg)
{
    (void)arg;
    if (getpid() != init_pid) return; /* a fork child's exit: not the PE's (issue 17) */
    shmi_thread_checked = 0;          /* exit may come from any thread */
    if (shmi_g.phase == SHMI_RUNNING && status == 0) {
        depth = 1; /* unmatched inits: this is the last finalize */
        shmem_finalize();
    }
    if (shmi_g.phase == SHMI_FINALIZED) {
        shmi_log_set_abort_hook(NULL);
        shmi_tp_fini(&shmi_g.tp); /* network transports: flush, disconnect */
        shmi_boot_fini(&shmi_g.boot);
    }
}

/* Steps shared by the first initialization and a re-initialization. */
static void start_session(int requested)
{
    shmi_gpu_init(); /* GPU heap (issue 7): now if the program has CUDA code */
    shmi_watchdog_init();
    shmi_report_install_signal();
    shmi_g.thread_level = requested;
    init_pid = getpid();
    /* SINGLE and FUNNELED: calls from another thread are reported (issue 17) */
    shmi_init_thread = pthread_self();
    shmi_thread_checked = requested <= SHMEM_THREAD_FUNNELED && shmi_checks != SHMI_CHECKS_OFF;
    shmi_rma_fault_install(); /* bad private pointers in put/get: one line, not a crash */
    pcontrol_level = 1;
    depth = 1;
    shmi_g.leaving = 0;
    shmi_g.phase = SHMI_RUNNING;
}

/* A new session on the dormant heap and mappings of a finalized library. */
static void restart(int requested)
{
    shmi_g.host.kind = &shmi_host_kind;
    if (shmi_alloc_create(&shmi_g.host.alloc, shmi_g.host.size) != SHMI_OK)
        init_fail("cannot create the allocator", "out of private memory");
    /* zero_hwm stays: the heap's pages below it hold the last session's data. */
    struct shmem_team_s world = shmi_team_world_s, shared = shmi_team_shared_s;
    shmi_team_init();
    shmi_team_world_s = world; /* barrier epochs and collective numbers go on */
    shmi_team_shared_s = shared;
    shmi_team_world_s.hier = shmi_team_shared_s.hier = NULL; /* freed by shmi_team_init */
    shmi_log_set_abort_hook(abort_hook);
    shmi_boot_finalized(&shmi_g.boot, 0);
    start_session(requested);
    shmi_barrier();
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        shmi_fatal("shmem_init_thread: requested=%d is not a thread level: use "
                   "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE", requested);
    if (shmi_g.phase == SHMI_RUNNING) {
        depth++; /* nested: matched by a finalize that only synchronizes */
        if (provided) *provided = shmi_g.thread_level;
        return 0;
    }
    if (shmi_g.phase == SHMI_FINALIZED) {
        restart(requested);
        if (provided) *provided = requested;
        return 0;
    }
    struct shmi_seg segs[SHMI_TP_MAX_SEGS];
    int nseg = 0;
    memset(&shmi_g, 0, sizeof shmi_g);
    shmi_g.heap.fd = shmi_g.globals.fd = -1;
    step_env();
    step_boot();
    step_heap();
    step_globals(segs, &nseg);
    step_transport(segs, nseg);
    step_alloc();
    shmi_team_init(); /* before any barrier: shmi_barrier is the world team's */
    start_session(requested);
    on_exit(implicit_finalize, NULL);
    if (shmi_g.me == 0 && (shmi_g.env.VERSION || shmi_g.env.INFO)) {
        char tps[64];
        shmi_log_info("symheap %s (OpenSHMEM %d.%d), %d PEs, heap %zu bytes at %p, "
                      "transports %s", SYMHEAP_VERSION, SHMEM_MAJOR_VERSION,
                      SHMEM_MINOR_VERSION, shmi_g.npes, shmi_g.host.size,
                      (void *)shmi_g.host.base, shmi_tp_names(&shmi_g.tp, tps, sizeof tps));
    }
    if (shmi_g.me == 0 && shmi_g.env.INFO)
        for (int i = 0; i < shmi_env_count; i++) {
            char name[64];
            snprintf(name, sizeof name, "SHMEM_%s", shmi_env_table[i].name);
            const char *v = getenv(name);
            shmi_log_info("  %-22s %s%s", name, v ? v : shmi_env_table[i].def,
                          v ? "" : " (default)");
        }
    shmi_barrier();
    check_shared_cpu();
    if (shmi_g.env.SELFTEST) shmem_free(shmem_malloc(64)); /* runs the block self-test */
    if (provided) *provided = requested;
    return 0;
}

void shmem_init(void) { shmem_init_thread(SHMEM_THREAD_SINGLE, NULL); }

int shmemx_get_uniqueid(shmemx_uniqueid_t *id)
{
    char err[512];
    if (!id) shmi_fatal("shmemx_get_uniqueid: id is NULL: pass a shmemx_uniqueid_t to fill");
    memset(id, 0, sizeof *id);
    if (shmi_boot_uid_create(id->internal, sizeof id->internal, err, sizeof err) != SHMI_OK)
        shmi_fatal("shmemx_get_uniqueid: %s", err);
    return 0;
}

void shmi_init_uniqueid(const char *fn, const char *id, int rank, int nranks)
{
    if (!shmi_boot_uid_valid(id))
        shmi_fatal("%s: the unique ID was not made by shmemx_get_uniqueid or "
                   "nvshmemx_get_uniqueid (or was damaged on the way): hand every process "
                   "the bytes one process got from it", fn);
    if (nranks < 1 || rank < 0 || rank >= nranks)
        shmi_fatal("%s: rank=%d, nranks=%d: need 0 <= rank < nranks", fn, rank, nranks);
    if (shmi_g.phase != SHMI_UNINIT || getenv("SYMRUN_FD")) {
        /* symrun's PEs (or those of a library started before) are the job */
        shmem_init();
        if (shmem_n_pes() != nranks || shmem_my_pe() != rank)
            shmi_fatal("%s: rank %d of %d, but this process is PE %d of %d (started by symrun, "
                       "or initialized before): give each process its PE number as rank and "
                       "the PE count as nranks, or start the processes without symrun", fn,
                       rank, nranks, shmem_my_pe(), shmem_n_pes());
        return;
    }
    shmi_boot_uid_use(id, rank, nranks);
    shmem_init();
}

void shmi_init_mpi_comm(const char *fn, const void *comm)
{
    char err[512];
    if (shmi_g.phase != SHMI_UNINIT) { /* nested or again: the job is the one we have */
        shmem_init();
        return;
    }
    if (shmi_boot_mpi_join(comm, err, sizeof err) != SHMI_OK) shmi_fatal("%s: %s", fn, err);
    shmem_init();
}

int shmemx_init_mpi_comm(const void *mpi_comm)
{
    shmi_init_mpi_comm("shmemx_init_mpi_comm", mpi_comm);
    return 0;
}

int shmemx_init_uniqueid(const shmemx_uniqueid_t *id, int rank, int nranks)
{
    if (!id)
        shmi_fatal("shmemx_init_uniqueid: id is NULL: pass the ID that shmemx_get_uniqueid "
                   "made");
    shmi_init_uniqueid("shmemx_init_uniqueid", id->internal, rank, nranks);
    return 0;
}

void shmem_finalize(void)
{
    SHMI_SITE();
    if (shmi_g.phase != SHMI_RUNNING) {
        if (shmi_g.phase == SHMI_UNINIT)
            shmi_fatal("shmem_finalize called before shmem_init: call shmem_init() first");
        return; /* finalize twice: nothing left to do */
    }
    if (depth > 1) {
        depth--;
        shmem_barrier_all();
        return;
    }
    int bad = shmi_heap_check();
    if (bad)
        shmi_fatal("shmem_finalize: %d block%s of the symmetric heap %s damaged (see above): "
                   "fix the out-of-bounds writes", bad, bad > 1 ? "s" : "", bad > 1 ? "were" : "was");
    shmi_barrier_checked("shmem_finalize", SHMI_OP_FINALIZE, 0, 0, 0);
    shmi_g.leaving = 1; /* a peer past the next barrier may exit and disconnect */
    /* Members may read team rank 0's signature after the barrier, across
     * nodes over the network: one more, so no PE disconnects (at exit) while
     * another still reads from it (issue 9). */
    shmi_barrier();
    shmi_report_fini(); /* SHMEM_HEAP_REPORT, then the leak report */
    shmi_selftest_summary();
    depth = 0;
    shmi_thread_checked = 0;
    shmi_g.phase = SHMI_FINALIZED;
    shmi_boot_finalized(&shmi_g.boot, 1);
    shmi_gpu_fini();
    shmi_mem_fini();
    shmi_alloc_destroy(shmi_g.host.alloc);
    shmi_g.host.alloc = NULL;
    /* Split teams end with the session.  Every write into their barrier words
     * landed before the finalize barrier ended (a member leaves a barrier only
     * after its partners' writes), so clear them now: a team split in a later
     * session starts from zero.  Slots 0 and 1 (world, shared) go on. */
    memset(&shmi_g.ctl->team[2], 0, sizeof shmi_g.ctl->team[0] * (SHMI_TEAM_MAX - 2));
    /* Heap, globals, the peers' mappings and the bootstrap stay (see above). */
}

void shmem_global_exit(int status)
{
    shmi_check_running("shmem_global_exit");
    fflush(NULL);
    char msg[128];
    snprintf(msg, sizeof msg, "PE %d called shmem_global_exit(%d)", shmi_g.me, status);
    shmi_boot_abort(&shmi_g.boot, status, msg);
    _exit(status);
}

/* Any time (spec): the level of the current or, when finalized, the last
 * session; SHMEM_THREAD_SINGLE before the first shmem_init. */
void shmem_query_thread(int *provided)
{
    if (provided) *provided = shmi_g.thread_level;
}

void shmem_query_initialized(int *initialized)
{
    if (initialized) *initialized = shmi_g.phase == SHMI_RUNNING;
}

void shmem_query_finalized(int *finalized)
{
    if (finalized) *finalized = shmi_g.phase == SHMI_FINALIZED;
}

void shmem_pcontrol(int level, ...)
{
    if (level != pcontrol_level)
        shmi_log_debug("shmem_pcontrol: profiling level %d -> %d (%s); symheap itself does not "
                       "profile: link a profiling tool (pshmem.h) to act on it", pcontrol_level,
                       level, level <= 0 ? "off" : level == 1 ? "on" : level == 2 ? "on, flush"
                                                                         : "tool-defined");
    pcontrol_level = level;
}

int shmemx_pcontrol_level(void) { return pcontrol_level; }

int shmem_my_pe(void)
{
    shmi_check_running("shmem_my_pe");
    return shmi_g.me;
}

int shmem_n_pes(void)
{
    shmi_check_running("shmem_n_pes");
    return shmi_g.npes;
}

int shmem_pe_accessible(int pe)
{
    shmi_check_running("shmem_pe_accessible");
    return (unsigned)pe < (unsigned)shmi_g.npes;
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major) *major = SHMEM_MAJOR_VERSION;
    if (minor) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    /* Spec: the name is "consistent with SHMEM_VENDOR_STRING"; return exactly
     * that string (tests-sos shmem_info compares them with strcmp). */
    if (name) snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void shmemx_globals_range(void **base, size_t *size)
{
    shmi_check_running("shmemx_globals_range");
    if (base) *base = shmi_g.globals.base;
    if (size) *size = shmi_g.globals.base ? shmi_g.globals.size : 0;
}
