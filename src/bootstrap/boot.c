/* boot.c - picks the bootstrap: a table of implementations (STYLE §2).
 *
 * "uid" when the program joins a job by a unique ID (boot_uid.c: the API's
 * shmemx_init_uniqueid, nvshmemx_init_attr).  SHMEM_BOOTSTRAP=symrun|pmix|
 * single forces one.  Unset or "auto": "symrun"
 * when the process was started by our launcher (SYMRUN_FD is set), "pmix"
 * when a PMIx launcher started it (mpirun, srun --mpi=pmix: PMIX_RANK or
 * PMIX_NAMESPACE is set), else "single": one PE, rank 0, so a SHMEM program
 * also runs without a launcher.  symrun wins over PMIx so that symrun run
 * inside an mpirun/srun job still gets its own PEs.  A process started by a
 * launcher without PMIx (srun --mpi=pmi2 or --mpi=none: PMI_SIZE or
 * SLURM_STEP_NUM_TASKS > 1) is refused with the fix rather than run as one PE
 * of N separate jobs.  On failure b->ops stays NULL, so shmi_boot_abort/fini
 * are no-ops. */
#include "bootstrap/boot_impl.h"
#include "util/env.h"
#include "util/err.h"
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const struct shmi_boot_ops *ops;
} boots[] = {
    { "symrun", &shmi_boot_symrun_ops },
#if SHMI_HAVE_PMIX
    { "pmix", &shmi_boot_pmix_ops },
#endif
    { "uid", &shmi_boot_uid_ops },
    { "single", &shmi_boot_single_ops },
};
#define NBOOTS (sizeof boots / sizeof boots[0])

/* Where shmi_boot_seterr writes; set only while shmi_boot_init runs. */
static char *err_buf;
static size_t err_len;

void shmi_boot_seterr(const char *fmt, ...)
{
    if (!err_buf || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf, err_len, fmt, ap);
    va_end(ap);
}

const char *shmi_boot_names(void)
{
    static char names[64];
    if (!names[0])
        for (size_t i = 0, at = 0; i < NBOOTS; i++)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? " " : "",
                                   boots[i].name);
    return names;
}

static const struct shmi_boot_ops *find(const char *name)
{
    for (size_t i = 0; i < NBOOTS; i++)
        if (strcmp(boots[i].name, name) == 0) return boots[i].ops;
    return NULL;
}

/* The bootstrap's name, or NULL with the reason in err. */
static const char *pick(char *err, size_t errlen)
{
    if (shmi_boot_uid_pending()) return "uid"; /* the program asked for it */
    const char *var = "SHMEM_BOOTSTRAP"; /* or NVSHMEM_BOOTSTRAP, its alias (env.h) */
    const char *want = shmi_env_get("BOOTSTRAP", &var);
    if (want && *want && strcmp(want, "auto") != 0) {
        if (!strcmp(want, "symrun") && !getenv("SYMRUN_FD")) {
            snprintf(err, errlen, "%s=symrun, but SYMRUN_FD is not set: start "
                     "the program with symrun, or unset %s", var, var);
            return NULL;
        }
        if (find(want)) return want;
        if (!strcmp(want, "pmix"))
            snprintf(err, errlen, "%s=pmix, but this symheap was built without "
                     "PMIx (pmix.h not found at configure time); install libpmix-dev and "
                     "rebuild, or unset %s", var, var);
        else
            snprintf(err, errlen, "%s='%s' is not valid: expected auto, symrun, "
                     "pmix or single (built in: %s)%s", var, getenv(var), shmi_boot_names(),
                     strcmp(var, "SHMEM_BOOTSTRAP") ? "; of NVSHMEM's values PMI, MPI and "
                     "SHMEM are accepted (as auto)" : "");
        return NULL;
    }
    if (getenv("SYMRUN_FD")) return "symrun";
    const char *pmix = getenv("PMIX_RANK") ? "PMIX_RANK"
                       : getenv("PMIX_NAMESPACE") ? "PMIX_NAMESPACE" : NULL;
    if (pmix && find("pmix")) return "pmix";
    if (pmix) {
        /* Running every process as PE 0 of 1 would look like success. */
        snprintf(err, errlen, "started by a PMIx launcher (%s=%s is set), but this symheap "
                 "was built without PMIx; install libpmix-dev and rebuild, use symrun, or "
                 "set SHMEM_BOOTSTRAP=single to run each process as a job of its own",
                 pmix, getenv(pmix));
        return NULL;
    }
    /* srun --mpi=pmi2 (or MPICH's mpiexec: PMI-1/2) and srun --mpi=none start
     * N processes that would each run as PE 0 of 1.  A batch script has no
     * SLURM_STEP_NUM_TASKS, so `./app` in it stays a job of one PE. */
    const char *pmi = getenv("PMI_SIZE"), *step = getenv("SLURM_STEP_NUM_TASKS");
    if (pmi && atol(pmi) > 1) {
        snprintf(err, errlen, "started by a PMI-1/PMI-2 launcher (PMI_RANK=%s, PMI_SIZE=%s: "
                 "srun --mpi=pmi2, or MPICH's mpiexec), which symheap does not speak; start "
                 "it with srun --mpi=pmix (srun --mpi=list shows whether Slurm has it), "
                 "mpirun or symrun, or set SHMEM_BOOTSTRAP=single to run each process as a "
                 "job of its own", getenv("PMI_RANK") ? getenv("PMI_RANK") : "?", pmi);
        return NULL;
    }
    if (step && atol(step) > 1 && getenv("SLURM_PROCID")) {
        snprintf(err, errlen, "started by srun as task %s of %s without PMIx (srun "
                 "--mpi=none, or MpiDefault=none in slurm.conf); start it with srun "
                 "--mpi=pmix, or set SHMEM_BOOTSTRAP=single to run each task as a job of its "
                 "own", getenv("SLURM_PROCID"), step);
        return NULL;
    }
    return "single";
}

/* Defaults for bootstraps that see one node: every PE is local. */
static int fill_local(shmi_boot_t *b)
{
    if (b->local_pes) return SHMI_OK;
    b->local_pes = malloc(sizeof(int) * (size_t)b->size);
    if (!b->local_pes) return SHMI_ENOMEM;
    for (int r = 0; r < b->size; r++) b->local_pes[r] = r;
    b->local_rank = b->rank;
    b->local_size = b->size;
    return SHMI_OK;
}

int shmi_boot_init(shmi_boot_t *b, char *err, size_t errlen)
{
    char why[512] = "";
    memset(b, 0, sizeof *b);
    if (err && errlen) err[0] = 0;
    const char *name = pick(why, sizeof why);
    const struct shmi_boot_ops *ops = name ? find(name) : NULL;
    if (!ops) {
        if (err) snprintf(err, errlen, "%s", why[0] ? why : "no bootstrap");
        return SHMI_EINVAL;
    }
    err_buf = err;
    err_len = err ? errlen : 0;
    b->ops = ops;
    int rc = ops->init(b);
    if (rc == 0) shmi_log_pe = b->rank; /* our messages from here on name the PE */
    /* PEs on other nodes are the transport's business (shm.c: UCX, or a
     * refusal when it is not built in). */
    if (rc == 0 && (rc = fill_local(b)) != 0) ops->fini(b);
    if (rc != 0) {
        if (err && errlen && !err[0])
            snprintf(err, errlen, "bootstrap '%s' failed: %s", name, shmi_strerror(rc));
        free(b->local_pes);
        b->local_pes = NULL;
        b->ops = NULL;
    }
    err_buf = NULL;
    err_len = 0;
    return rc;
}

void shmi_boot_fini(shmi_boot_t *b)
{
    if (b->ops) b->ops->fini(b);
    b->ops = NULL;
    free(b->local_pes);
    b->local_pes = NULL;
}
