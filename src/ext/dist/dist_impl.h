/* dist_impl.h - internals shared by the placement files (dist*.c): the
 * distributed-array descriptor, fill helpers and the lazy module's entry
 * points.  Never installed.  The descriptor's index arithmetic is layout.h's,
 * pure, so the lazy SIGSEGV handler may use it to map a faulting local index
 * to its global index. */
#ifndef SHMI_DIST_IMPL_H
#define SHMI_DIST_IMPL_H

#include "ext/dist/layout.h"

#include <shmem.h>
#include <shmemx.h>

#include <stddef.h>
#include <stdint.h>

struct shmi_lazy;

struct shmemx_dist_s {
    struct shmi_layout lay; /* n, kind, npes, ... (layout.h) */
    size_t elem;
    int me;
    size_t maxlocal;        /* largest part (elements): the allocation */
    char *local;            /* symmetric; NULL when maxlocal == 0 */
    struct shmi_lazy *lazy; /* lazy storage, or NULL */
};

static inline size_t shmi_min(size_t a, size_t b) { return a < b ? a : b; }

/* ---- Fill helpers (dist_init.c) ---------------------------------------------
 * Write count elements of global indices first.. (consecutive) for PE pe.
 * Async-signal-safe apart from the user's callback. */
void shmi_fill_run(const shmemx_fill_t *f, void *out, size_t first, size_t count, size_t elem,
                   int pe);
/* Check a fill description ("value" must be non-NULL for VALUE...). */
void shmi_fill_check(const char *fn, const shmemx_fill_t *f);

/* ---- Lazy storage (dist_lazy.c) ------------------------------------------------
 * Collective: a lazy symmetric array of nelems elements per PE; element l of
 * PE p's copy is fill(d ? global(d, p, l) : l, p); elements at or beyond
 * d ? count(d, p) : nelems stay zero.  Returns the symmetric base and sets
 * *out, or NULL (nelems == 0, or heap full). */
void *shmi_lazy_create(const char *fn, size_t nelems, size_t elem, size_t block_bytes,
                       const shmemx_fill_t *fill, const struct shmemx_dist_s *d,
                       struct shmi_lazy **out);
void shmi_lazy_destroy(const char *fn, struct shmi_lazy *lz);
/* Before the transport reaches nbytes at byte offset off of PE pe's copy:
 * when pe is on another node, have it fill and open those blocks (waits). */
void shmi_lazy_open(struct shmi_lazy *lz, size_t off, size_t nbytes, int pe);
/* shmem_getmem of any symmetric range, the parts inside lazy arrays read as
 * shmemx_lazy_get reads them (never faults a block in on another node). */
void shmi_lazy_getmem(void *dest, const void *sym, size_t nbytes, int pe);
/* shmemx_lazy_get on lz: nbytes at byte offset off of PE pe's copy. */
void shmi_lazy_read(struct shmi_lazy *lz, void *dest, size_t off, size_t nbytes, int pe);

#endif
