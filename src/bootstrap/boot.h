/* boot.h - how PEs find each other: the bootstrap interface.
 *
 * A bootstrap knows this PE's rank, the number of PEs, and can move small
 * amounts of data between all of them during start-up and tear-down.  It is
 * NOT used on the fast path (barriers and RMA go through the transport).
 * Implementations: "symrun" (our launcher, src/bootstrap/boot_symrun.c),
 * "pmix" (mpirun, srun --mpi=pmix: boot_pmix.c, built when PMIx is found),
 * "uid" (no launcher: a unique ID the program hands around, boot_uid.c) and
 * "single" (program started without a launcher: one PE).  boot.c picks one.
 *
 * Contract: every call is collective over all PEs except abort; calls are made
 * by one thread at a time; on a lost peer/launcher they return SHMI_EBOOT
 * (never hang forever: the launcher ends all PEs when one dies). */
#ifndef SHMI_BOOT_H
#define SHMI_BOOT_H

#include <stddef.h>

typedef struct shmi_boot_s shmi_boot_t;

struct shmi_boot_ops {
    const char *name;
    /* Fill b->rank, b->size; 0 or negative shmi_err. */
    int (*init)(shmi_boot_t *b);
    /* out[i*len .. (i+1)*len) = in of rank i, for every rank (out has size*len bytes). */
    int (*allgather)(shmi_boot_t *b, const void *in, void *out, size_t len);
    int (*barrier)(shmi_boot_t *b);
    /* Node-local fd exchange (SCM_RIGHTS): send nfds descriptors, receive
     * size*nfds descriptors, all[i*nfds + k] = rank i's k-th fd (our own
     * entries are dups; -1 for PEs on other nodes).  Caller closes the
     * received fds.  May be NULL when the bootstrap cannot pass descriptors. */
    int (*exchange_fds)(shmi_boot_t *b, const int *fds, int nfds, int *all);
    /* Tell the launcher this PE aborts with code: every PE is ended.  msg is
     * the already printed message (the launcher may repeat it).  Must be
     * async-signal-safe enough to call from a fatal error path; returns. */
    void (*abort)(shmi_boot_t *b, int code, const char *msg);
    /* Orderly end (after the last collective); frees everything. */
    void (*fini)(shmi_boot_t *b);
    /* Optional: this PE finalized (done=1), or initialized again (0).  A
     * bootstrap that ends the job when a PE's process ends (uid) does not
     * count the end of a finalized PE as a loss, whatever its exit path. */
    void (*finalized)(shmi_boot_t *b, int done);
};

struct shmi_boot_s {
    const struct shmi_boot_ops *ops;
    int rank, size;
    /* This node: local_size PEs, world ranks local_pes[0..local_size)
     * ascending, ours at local_pes[local_rank].  init may fill them (malloc'ed
     * local_pes); else shmi_boot_init sets "every PE is local".  The memory
     * transport maps only these; a network transport takes the others. */
    int local_rank, local_size;
    int *local_pes;
    char hostname[256]; /* this node's name as the launcher knows it */
    void *priv; /* implementation state */
};

/* Pick and init the bootstrap (docs/cluster.md): "uid" after
 * shmi_boot_uid_use; else SHMEM_BOOTSTRAP=symrun, pmix or single forces one;
 * unset or "auto": "symrun" when started by symrun
 * (SYMRUN_FD is set), "pmix" when started by a PMIx launcher (PMIX_RANK or
 * PMIX_NAMESPACE is set), else "single".  Jobs spanning nodes are accepted
 * (local_pes says which PEs share ours; the transport decides).  On error
 * writes a one-line reason into err. */
int shmi_boot_init(shmi_boot_t *b, char *err, size_t errlen);
/* The unique-ID bootstrap (boot_uid.c).  shmi_boot_uid_create writes a new
 * ID (text, at most SHMI_BOOT_UID_LEN bytes with its NUL) into id and starts
 * its rendezvous service in this process, which must then live until every
 * PE of that job has finalized; 0, or a shmi_err with the reason in err.
 * shmi_boot_uid_use makes the next shmi_boot_init join the job of id as
 * rank of nranks (checked there, and against the other PEs). */
#define SHMI_BOOT_UID_LEN 120
int shmi_boot_uid_create(char *id, size_t len, char *err, size_t errlen);
void shmi_boot_uid_use(const char *id, int rank, int nranks);
/* Join a job made of the ranks of the MPI communicator *comm (an MPI_Comm's
 * address; boot_mpi.c): rank 0 makes a unique ID, MPI_Bcast hands it out,
 * then as shmi_boot_uid_use with the rank in the communicator.  Collective
 * over the communicator; 0, or a code with one line in err. */
int shmi_boot_mpi_join(const void *comm, char *err, size_t errlen);
/* Whether id has the form shmi_boot_uid_create gives (not that it is live). */
int shmi_boot_uid_valid(const char *id);

/* Names of the bootstraps built in, e.g. "symrun pmix single" (for docs and
 * symheap-info). */
const char *shmi_boot_names(void);

static inline int shmi_boot_allgather(shmi_boot_t *b, const void *in, void *out, size_t len)
{ return b->ops->allgather(b, in, out, len); }
static inline int shmi_boot_barrier(shmi_boot_t *b) { return b->ops->barrier(b); }
static inline void shmi_boot_abort(shmi_boot_t *b, int code, const char *msg)
{ if (b->ops) b->ops->abort(b, code, msg); }
static inline void shmi_boot_finalized(shmi_boot_t *b, int done)
{ if (b->ops && b->ops->finalized) b->ops->finalized(b, done); }
/* Orderly end; frees local_pes. */
void shmi_boot_fini(shmi_boot_t *b);

#endif
