/* shmemx.h - symheap's extensions to OpenSHMEM (shmemx_ prefix).
 * Everything here works on any PE count and is safe to call from one thread
 * at a time unless stated otherwise. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Heap occupancy of the calling PE (identical on every PE when every PE made
 * the same allocation calls).  Not collective; cheap. */
typedef struct shmemx_heap_info {
    void *base;           /* first address of the symmetric heap (same on every PE) */
    size_t size;          /* usable bytes (SHMEM_SYMMETRIC_SIZE less internal state) */
    size_t used;          /* bytes in live blocks, incl. alignment padding */
    size_t free;          /* size - used */
    size_t largest_free;  /* biggest block shmem_malloc could return now */
    size_t peak_used;     /* high-water mark of used */
    size_t live_blocks;   /* number of live allocations */
} shmemx_heap_info_t;

/* Fill *info; returns 0, or -1 before shmem_init. */
int shmemx_heap_info(shmemx_heap_info_t *info);

/* Check the guard zones around every live block of this PE's heap (and, with
 * SHMEM_CHECKS=full, that freed blocks were not written after free).  Reports
 * each damaged block on stderr (size, allocation site, how far the write
 * went) and returns their number; 0 when the heap is intact.  Not collective. */
int shmemx_heap_check(void);

/* Address range of the program's symmetric globals (data and bss of the
 * executable), or NULL/0 when SHMEM_GLOBALS=0. */
void shmemx_globals_range(void **base, size_t *size);

/* The level last passed to shmem_pcontrol (1 after every shmem_init, as the
 * spec recommends); any time. */
int shmemx_pcontrol_level(void);

/* Start-up without a launcher (docs/cluster.md, "No launcher"): one process
 * makes an ID with shmemx_get_uniqueid, the program hands it to every process
 * that is to be a PE (MPI_Bcast, torch.distributed, a file, fork), and each
 * calls shmemx_init_uniqueid with its rank, 0 <= rank < nranks, in place of
 * shmem_init.  The process that made the ID serves the rendezvous from a
 * thread until every PE has finalized, so it must run that long (it need not
 * be a PE).  Ranks on one host share memory, others reach each other through
 * UCX.  Under symrun the launcher's PEs are used and rank/nranks must match
 * them.  Both return 0; a failure stops the program with one line (the
 * missing ranks, a rank given twice, the address that could not be reached).
 * SHMEM_BOOTSTRAP_UID_SOCK_IFNAME picks the interface whose address goes into
 * the ID; SHMEM_BOOTSTRAP_TIMEOUT how long the PEs wait for each other. */
typedef struct shmemx_uniqueid {
    char internal[124];
} shmemx_uniqueid_t;
int shmemx_get_uniqueid(shmemx_uniqueid_t *id);
int shmemx_init_uniqueid(const shmemx_uniqueid_t *id, int rank, int nranks);
/* The ranks of an MPI communicator are the PEs, in its rank order: mpi_comm
 * is the address of an MPI_Comm (MPI_COMM_WORLD or any sub-communicator;
 * Open MPI or the MPICH family), MPI is initialized, and every rank of the
 * communicator calls this in place of shmem_init.  Rank 0 makes a unique ID
 * and MPI_Bcast hands it to the others (libsymheap does not link MPI: it uses
 * the program's).  Returns 0; a failure stops the program with one line. */
int shmemx_init_mpi_comm(const void *mpi_comm);

#include <symheap/shmemx_dist.h> /* initialization strategies, layouts, halo, cache, arena */
#include <symheap/shmemx_gpu.h>  /* GPU heap: device hints, stream-ordered RMA */
#include <symheap/shmemx_debug.h> /* heap reports (shmemx_heap_report) */
#include <symheap/shmemx_fp16.h>  /* half and bfloat16 (NVSHMEM's 16-bit floating types) */

/* Pre-1.6 extension names of routines OpenSHMEM 1.6 made standard (other
 * implementations' shmemx.h has them): the standard routine, old name. */
#define shmemx_ibput shmem_ibput
#define shmemx_ibget shmem_ibget
#define shmemx_signal_add shmem_signal_add
#define shmemx_signal_set shmem_signal_set
#define shmemx_ctx_signal_add shmem_ctx_signal_add
#define shmemx_ctx_signal_set shmem_ctx_signal_set
/* shmemx_TYPENAME_sum_inscan/_exscan: the 1.6 scans, from the reduction table.
 * Left out while symheap itself is compiled (SHMI_BUILDING_LIBRARY, set by
 * src/util/pshmem_build.h): their calls would come before the profiling
 * interface renames the routines, which clang refuses. */
#ifndef SHMI_BUILDING_LIBRARY
#define SHMI_OLDX_SCAN(N, T, B, O, G)                                                    \
    static inline int shmemx_##N##_sum_inscan(shmem_team_t team, T *dest, const T *source, \
                                              size_t nelems)                             \
    { return shmem_##N##_sum_inscan(team, dest, source, nelems); }                       \
    static inline int shmemx_##N##_sum_exscan(shmem_team_t team, T *dest, const T *source, \
                                              size_t nelems)                             \
    { return shmem_##N##_sum_exscan(team, dest, source, nelems); }
SHMEM_REDUCE_TABLE(SHMI_OLDX_SCAN)
#endif

#ifdef __cplusplus
}
#endif
#endif
