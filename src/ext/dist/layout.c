/* layout.c - the layout arithmetic of layout.h: each function is one switch
 * over the layouts, O(1) but USER's before (a binary search) and runlen (a
 * scan of the run). */
#include "ext/dist/layout.h"

static size_t min(size_t a, size_t b) { return a < b ? a : b; }

size_t shmi_layout_block_count(size_t n, int parts, int i)
{
    return n / (size_t)parts + ((size_t)i < n % (size_t)parts);
}

size_t shmi_layout_block_start(size_t n, int parts, int i)
{
    return (size_t)i * (n / (size_t)parts) + min((size_t)i, n % (size_t)parts);
}

struct shmi_layout shmi_layout_make(int kind, size_t n, int npes, size_t block)
{
    struct shmi_layout l = { .kind = kind, .npes = npes, .n = n, .b = block };
    if (kind == SHMEMX_LAYOUT_KIND_BLOCK) {
        l.b = n / (size_t)npes;
        l.rem = n % (size_t)npes;
    }
    return l;
}

size_t shmi_layout_count(const struct shmi_layout *l, int p)
{
    size_t np = (size_t)l->npes, up = (size_t)p;
    switch (l->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: return l->b + (up < l->rem);
    case SHMEMX_LAYOUT_KIND_CYCLIC: return l->n / np + (up < l->n % np);
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: {
        size_t nb = (l->n + l->b - 1) / l->b; /* blocks */
        if (nb <= up) return 0;
        size_t k = (nb - 1 - up) / np + 1;     /* blocks of p */
        size_t last = l->n - (nb - 1) * l->b;  /* size of the final block */
        return (nb - 1) % np == up ? (k - 1) * l->b + last : k * l->b;
    }
    default: return l->gstart[p + 1] - l->gstart[p];
    }
}

size_t shmi_layout_maxcount(const struct shmi_layout *l)
{
    size_t max = 0;
    for (int p = 0; p < l->npes; p++) {
        size_t c = shmi_layout_count(l, p);
        if (c > max) max = c;
    }
    return max;
}

int shmi_layout_owner(const struct shmi_layout *l, size_t i, size_t *local)
{
    size_t np = (size_t)l->npes;
    switch (l->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: {
        size_t big = l->rem * (l->b + 1); /* held by the PEs with one extra */
        if (i < big) { *local = i % (l->b + 1); return (int)(i / (l->b + 1)); }
        *local = (i - big) % l->b;
        return (int)(l->rem + (i - big) / l->b);
    }
    case SHMEMX_LAYOUT_KIND_CYCLIC: *local = i / np; return (int)(i % np);
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: {
        size_t j = i / l->b;
        *local = (j / np) * l->b + i % l->b;
        return (int)(j % np);
    }
    default: *local = l->loc[i]; return l->own[i];
    }
}

size_t shmi_layout_global(const struct shmi_layout *l, int p, size_t local)
{
    size_t np = (size_t)l->npes;
    switch (l->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: return shmi_layout_block_start(l->n, l->npes, p) + local;
    case SHMEMX_LAYOUT_KIND_CYCLIC: return local * np + (size_t)p;
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC:
        return ((local / l->b) * np + (size_t)p) * l->b + local % l->b;
    default: return l->glist[l->gstart[p] + local];
    }
}

size_t shmi_layout_before(const struct shmi_layout *l, int p, size_t g)
{
    size_t np = (size_t)l->npes, up = (size_t)p;
    switch (l->kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: {
        size_t s = shmi_layout_block_start(l->n, l->npes, p);
        return g <= s ? 0 : min(g - s, shmi_layout_count(l, p));
    }
    case SHMEMX_LAYOUT_KIND_CYCLIC: return g > up ? (g - up - 1) / np + 1 : 0;
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: {
        size_t round = l->b * np, r = g % round, lo = up * l->b;
        return (g / round) * l->b + (r <= lo ? 0 : min(r - lo, l->b));
    }
    default: {
        const size_t *a = l->glist + l->gstart[p];
        size_t lo = 0, hi = l->gstart[p + 1] - l->gstart[p];
        while (lo < hi) { /* first index whose global index is >= g */
            size_t mid = lo + (hi - lo) / 2;
            if (a[mid] < g) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
    }
}

size_t shmi_layout_runlen(const struct shmi_layout *l, int p, size_t local, size_t max)
{
    size_t left = min(shmi_layout_count(l, p) - local, max);
    if (l->npes == 1 || l->kind == SHMEMX_LAYOUT_KIND_BLOCK) return left;
    if (l->kind == SHMEMX_LAYOUT_KIND_CYCLIC) return 1;
    if (l->kind == SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC) return min(l->b - local % l->b, left);
    const size_t *g = l->glist + l->gstart[p] + local;
    size_t k = 1;
    while (k < left && g[k] == g[0] + k) k++;
    return k;
}
