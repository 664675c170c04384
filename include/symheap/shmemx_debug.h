/* shmemx_debug.h - symheap's debugging extensions: heap reports, doorbell counters.
 * Included by shmemx.h; see docs/debugging.md. */
#ifndef SYMHEAP_SHMEMX_DEBUG_H
#define SYMHEAP_SHMEMX_DEBUG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Write a report of the calling PE's symmetric heap to <prefix>.<pe>.txt and
 * <prefix>.<pe>.html (pe = this PE's number): heap size, used, free, largest
 * free block, peak, fragmentation, every live block with its size and
 * allocation site, free ranges by size; the HTML page (self-contained, opens
 * in any browser) draws the heap as a bar with blocks coloured by allocation
 * site.  prefix may contain directories, which must exist; NULL or "" means
 * the value of SHMEM_HEAP_REPORT, or "symheap-heap" when that is unset.
 *
 * Not collective: every PE that calls it writes its own pair of files; call
 * it from the thread that makes the collective calls.  Returns 0, or -1 (with
 * one line on stderr naming the file and the reason) when a file cannot be
 * written or when called outside shmem_init ... shmem_finalize. */
int shmemx_heap_report(const char *prefix);

/* Doorbell counters of PE pe (a PE of this node): how many futex wakes
 * writers made on its doorbell, by what they wrote (data: puts, AMOs,
 * signals, lock hand-overs; sync: barrier and collective flags; other: rings
 * that wake every sleeper, e.g. the network progress thread), and how many
 * of its threads sleep now in a wait that a write or flag can wake, and of
 * those how many in a barrier or collective (a thread in a data wait that a
 * write has woken counts again only when it sleeps again: after a wake that
 * does not end its wait it polls first).
 * data_checks: data writes into pe that found a data or catch-all sleeper
 * there and looked at what it waits on (the writer's slow path; a PE asleep
 * only in barriers and collectives never sends writers there; exact while
 * one PE writes, a lower bound with several).
 * A put or AMO wakes a PE only when it sleeps in a wait on the written bytes
 * (docs/performance.md, "The doorbell rule").  Returns 0, or -1 when pe is
 * out of range, on another node, or outside shmem_init ... shmem_finalize. */
typedef struct shmemx_wait_stats {
    unsigned long long data_wakes, sync_wakes, other_wakes;
    unsigned sleeping, sleeping_sync;
    unsigned long long data_checks;
} shmemx_wait_stats_t;
int shmemx_wait_stats(int pe, shmemx_wait_stats_t *stats);

#ifdef __cplusplus
}
#endif
#endif
