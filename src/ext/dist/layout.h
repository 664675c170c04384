/* layout.h - the placement toolkit's layout arithmetic: which PE owns
 * global element i of an n-element array, where it sits there, how many
 * elements each PE holds, for every layout of shmemx_dist.h (BLOCK, CYCLIC,
 * BLOCK_CYCLIC, USER owner maps).
 *
 * Pure: no runtime, no locks, no allocation, so it is unit tested alone
 * (layout_test.c) and the lazy module's SIGSEGV handler may call it.  The
 * one invariant the rest of dist relies on: a PE stores its elements in
 * increasing global order, so the elements of a global range [lo, hi) owned
 * by PE p are p's local range [before(p, lo), before(p, hi)).
 *
 * BLOCK follows examples/block_distribution.c: the first n % npes PEs own
 * one extra element (n < npes: the last PEs own nothing). */
#ifndef SHMI_LAYOUT_H
#define SHMI_LAYOUT_H

#include <shmemx.h> /* SHMEMX_LAYOUT_KIND_* */

#include <stddef.h>
#include <stdint.h>

struct shmi_layout {
    int kind;              /* SHMEMX_LAYOUT_KIND_* */
    int npes;              /* >= 1 */
    size_t n;              /* elements in all */
    size_t b;              /* BLOCK_CYCLIC: the block (>= 1); BLOCK: n / npes */
    size_t rem;            /* BLOCK: n % npes */
    /* USER, filled by the caller: own[i], loc[i] (owner and local index of
     * global i); glist holds each PE's global indices in increasing order,
     * PE p's from gstart[p] to gstart[p + 1]. */
    int32_t *own;
    size_t *loc, *glist, *gstart;
};

/* A layout of n elements over npes PEs (block: BLOCK_CYCLIC's, ignored
 * otherwise); USER's arrays are left NULL for the caller to fill. */
struct shmi_layout shmi_layout_make(int kind, size_t n, int npes, size_t block);

/* Elements PE p (0 <= p < npes) holds. */
size_t shmi_layout_count(const struct shmi_layout *l, int p);
/* The largest count over the PEs. */
size_t shmi_layout_maxcount(const struct shmi_layout *l);
/* Owner of global index i (< n); *local gets its index there. */
int shmi_layout_owner(const struct shmi_layout *l, size_t i, size_t *local);
/* Global index of PE p's element at local index local (< count(p)). */
size_t shmi_layout_global(const struct shmi_layout *l, int p, size_t local);
/* Elements of PE p with global index < g (g <= n). */
size_t shmi_layout_before(const struct shmi_layout *l, int p, size_t g);
/* Length of the run of consecutive global indices that starts at PE p's
 * local index local (< count(p)), at most max (>= 1). */
size_t shmi_layout_runlen(const struct shmi_layout *l, int p, size_t local, size_t max);

/* BLOCK over one dimension, for any n and parts >= 1 (the halo grid too):
 * elements of part i, and the first global index of part i. */
size_t shmi_layout_block_count(size_t n, int parts, int i);
size_t shmi_layout_block_start(size_t n, int parts, int i);

#endif
