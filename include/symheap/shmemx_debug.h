/* shmemx_debug.h - symheap's debugging extensions: heap reports.
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

#ifdef __cplusplus
}
#endif
#endif
