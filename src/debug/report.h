/* report.h - heap reports (text + HTML picture) and the leak report (issue #3).
 *
 * A heap report is a snapshot of the calling PE's symmetric heap written to
 * two files, <prefix>.<pe>.txt and <prefix>.<pe>.html: occupancy numbers (the
 * same as shmemx_heap_info), fragmentation, every live block with its size,
 * guards and allocation site, the free ranges by size class; the HTML page
 * draws the heap as a bar with blocks coloured by allocation site.
 *
 * Triggers: shmemx_heap_report (any time), SHMEM_HEAP_REPORT=<prefix> (at
 * shmem_finalize), SIGUSR1 (at the PE's next symheap call that polls).
 *
 * Thread safety: a report walks the allocator, so it must run where no other
 * thread can allocate or free: the thread that makes the collective calls,
 * at a collective's entry (collectives are one thread per PE, in order).
 *
 * Blocks in the SHMEM_CHECKS=full quarantine (freed, poisoned, not yet
 * reusable) are shown as free ranges, as shmemx_heap_info counts them, and
 * are never leaks: quarantine.c tells which with shmi_mem_quarantined(off)
 * (1 when the live allocator block at off is quarantined).  Blocks from an interned
 * site whose operation name starts with "shmi_" are the library's own, not
 * the program's: they are drawn but never reported as leaks. */
#ifndef SHMI_REPORT_H
#define SHMI_REPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

/* Write <prefix>.<pe>.txt and <prefix>.<pe>.html for the calling PE.
 * 0, or -1 after one warning line naming the file and the system's reason
 * (a half-written file is removed).  Needs a running heap (shmi_g.host.alloc). */
int shmi_report_write(const char *prefix);
/* The same, NULL or "" meaning the default prefix (SHMEM_HEAP_REPORT's). */
int shmi_report_write_default(const char *prefix);

/* At shmem_finalize, with SHMEM_CHECKS != off: when live blocks remain, print
 * a summary line and one line per allocation site (at most ~20 lines).  The
 * heap state is the same on every PE (every allocation call is collective and
 * checked), so only PE 0 prints, saying "on every PE".  Never aborts. */
void shmi_report_leaks(void);

/* SIGUSR1 asks for a report.  Installs the handler (SA_RESTART) only when the
 * program has none of its own (disposition SIG_DFL); the handler only sets a
 * flag.  Call once at shmem_init, after the heap exists. */
void shmi_report_install_signal(void);

/* Everything symheap does with reports at shmem_finalize, in order: the
 * SHMEM_HEAP_REPORT report, the leak report (SHMEM_CHECKS != off), and
 * SIGUSR1 back to what it was.  Call while the allocator still exists, i.e.
 * before shmi_alloc_destroy (after the finalize barrier is fine). */
void shmi_report_fini(void);

/* Writes the report asked for by SIGUSR1, if any: <p>.sig<k>.<pe>.txt/.html,
 * p = SHMEM_HEAP_REPORT or "symheap-heap", k = 1, 2, ... per PE, and says so
 * in one line on stderr.  The fast path is one relaxed load: call it at every
 * collective's entry (allocation calls, barrier_all, sync_all, broadcast ...),
 * and in waits only when no other thread may allocate at the same time. */
void shmi_report_poll_slow(void); /* installed as core's poll hook (core/hooks.h) */
#define shmi_report_poll shmi_poll

/* ---- Module internals (report.c <-> report_html.c) ---------------------- */

struct shmi_rep_site {
    unsigned id;             /* interned site id (0 = unknown) */
    const char *op;          /* "shmem_malloc", ... */
    const char *where;       /* "demo.c:12 (main)" (cached shmi_site_describe) */
    size_t blocks, bytes;    /* live blocks and their user bytes */
    size_t span;             /* heap bytes they cover (guards, padding) */
    char *first;             /* user address of its lowest live block */
    int order;               /* scratch for sorting */
    char colour[8];          /* "#4e79a7", the same for this site everywhere */
};

enum { SHMI_REP_FREE = -1, SHMI_REP_QUAR = -2 };

struct shmi_rep_seg {        /* a live block or a free range, address order */
    size_t off, span;        /* allocator offset and bytes covered */
    size_t size;             /* user bytes (0 for free ranges) */
    char *user;              /* user pointer (NULL for free ranges) */
    unsigned front, back;    /* guard bytes */
    int site;                /* index into sites[], or SHMI_REP_FREE / _QUAR */
};

#define SHMI_REP_HIST 64     /* free range size classes [2^k, 2^(k+1)) */

struct shmi_rep {
    int me, npes;
    char *base;
    size_t size, used, free, largest_free, peak, live, nfree;
    size_t user_bytes;       /* sum of user sizes of live blocks */
    size_t quar_blocks, quar_bytes;
    size_t allocs, frees;
    size_t top;              /* end offset of the last live block (0 if none) */
    size_t holes, hole_bytes; /* free ranges (and quarantine) below top */
    double frag;             /* 1 - largest_free / free */
    struct shmi_rep_seg *seg;
    size_t nseg;
    struct shmi_rep_site *site; /* sorted by bytes, largest first */
    size_t nsite;
    size_t hist_n[SHMI_REP_HIST], hist_b[SHMI_REP_HIST];
    char when[64];           /* local time of the snapshot */
    const char *checks;      /* SHMEM_CHECKS */
};

/* Write the HTML page for r to f (report_html.c); 0 or -1 (errno set). */
int shmi_rep_html(const struct shmi_rep *r, FILE *f);
/* Write s with & < > " ' escaped. */
void shmi_rep_escape(FILE *f, const char *s);

#endif
