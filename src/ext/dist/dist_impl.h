/* dist_impl.h - internals shared by the placement files (dist*.c): the
 * distributed-array descriptor, its index arithmetic, fill helpers and the
 * lazy module's entry points.  Never installed.
 *
 * Index arithmetic is inline and pure (no locks, no allocation) because the
 * lazy SIGSEGV handler uses it to map a faulting local index to its global
 * index. */
#ifndef SHMI_DIST_IMPL_H
#define SHMI_DIST_IMPL_H

#include <shmem.h>
#include <shmemx.h>

#include <stddef.h>
#include <stdint.h>

struct shmi_lazy;

struct shmemx_dist_s {
    size_t n, elem;
    int kind, npes, me;
    size_t b;              /* BLOCK_CYCLIC block; BLOCK: n / npes */
    size_t rem;            /* BLOCK: n % npes */
    size_t maxlocal;       /* largest part (elements): the allocation */
    char *local;           /* symmetric; NULL when maxlocal == 0 */
    struct shmi_lazy *lazy;/* lazy storage, or NULL */
    /* USER: own[i], loc[i]; glist holds each PE's global indices in order,
     * PE p's from gstart[p] to gstart[p + 1]. */
    int32_t *own;
    size_t *loc, *glist, *gstart;
};

static inline size_t shmi_min(size_t a, size_t b) { return a < b ? a : b; }

/* Elements of PE p's part. */
static inline size_t shmi_dist_count(const struct shmemx_dist_s *d, int p)
{
    size_t np = (size_t)d->npes, up = (size_t)p;
    switch (d->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: return d->b + (up < d->rem);
    case SHMEMX_LAYOUT_KIND_CYCLIC: return d->n / np + (up < d->n % np);
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: {
        size_t nb = (d->n + d->b - 1) / d->b; /* blocks */
        if (nb <= up) return 0;
        size_t k = (nb - 1 - up) / np + 1;     /* blocks of p */
        size_t last = d->n - (nb - 1) * d->b;  /* size of the final block */
        return (nb - 1) % np == up ? (k - 1) * d->b + last : k * d->b;
    }
    default: return d->gstart[p + 1] - d->gstart[p];
    }
}

/* BLOCK: first global index of PE p. */
static inline size_t shmi_dist_bstart(const struct shmemx_dist_s *d, int p)
{
    size_t up = (size_t)p;
    return up * d->b + shmi_min(up, d->rem);
}

static inline int shmi_dist_owner(const struct shmemx_dist_s *d, size_t i, size_t *l)
{
    size_t np = (size_t)d->npes;
    switch (d->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: {
        size_t big = d->rem * (d->b + 1); /* held by the PEs with one extra */
        if (i < big) { *l = i % (d->b + 1); return (int)(i / (d->b + 1)); }
        *l = (i - big) % d->b;
        return (int)(d->rem + (i - big) / d->b);
    }
    case SHMEMX_LAYOUT_KIND_CYCLIC: *l = i / np; return (int)(i % np);
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: {
        size_t j = i / d->b;
        *l = (j / np) * d->b + i % d->b;
        return (int)(j % np);
    }
    default: *l = d->loc[i]; return d->own[i];
    }
}

static inline size_t shmi_dist_global(const struct shmemx_dist_s *d, int p, size_t l)
{
    size_t np = (size_t)d->npes;
    switch (d->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: return shmi_dist_bstart(d, p) + l;
    case SHMEMX_LAYOUT_KIND_CYCLIC: return l * np + (size_t)p;
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: return ((l / d->b) * np + (size_t)p) * d->b + l % d->b;
    default: return d->glist[d->gstart[p] + l];
    }
}

/* Length of the run of consecutive global indices that starts at PE p's
 * local index l (< count(p)), at most max. */
static inline size_t shmi_dist_runlen(const struct shmemx_dist_s *d, int p, size_t l, size_t max)
{
    size_t left = shmi_min(shmi_dist_count(d, p) - l, max);
    if (d->npes == 1 || d->kind == SHMEMX_LAYOUT_KIND_BLOCK) return left;
    if (d->kind == SHMEMX_LAYOUT_KIND_CYCLIC) return 1;
    if (d->kind == SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC) return shmi_min(d->b - l % d->b, left);
    const size_t *g = d->glist + d->gstart[p] + l;
    size_t k = 1;
    while (k < left && g[k] == g[0] + k) k++;
    return k;
}

/* Elements of PE p with global index < g (g <= n). */
size_t shmi_dist_before(const struct shmemx_dist_s *d, int p, size_t g);

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
/* shmemx_lazy_get on lz: nbytes at byte offset off of PE pe's copy. */
void shmi_lazy_read(struct shmi_lazy *lz, void *dest, size_t off, size_t nbytes, int pe);

#endif
