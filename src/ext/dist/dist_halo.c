/* dist_halo.c - halo (ghost cell) exchange for 1-D and 2-D block layouts
 * (brief §4.4.2: "split big arrays into one block per PE so that only the
 * borders are exchanged").
 *
 * Geometry: the global nrows x ncols array is split over a prows x pcols
 * grid as BLOCK splits (first n % p blocks one longer).  Every PE allocates
 * the same buffer (allocation is collective): the largest block plus
 * `width` ghost rows/columns on each side, with one row pitch everywhere, so
 * the symmetric address of "row r, column c of the block" is the same
 * formula on every PE.  When a dimension has fewer elements than PEs the
 * last PEs of that dimension own nothing and take no part.
 *
 * Exchange (pull, neighbours only, no global barrier), epoch e:
 *   1. tell each neighbour "my block is final for e": set its arrive[dir] = e;
 *   2. wait until every neighbour said so (my arrive[dir] >= e);
 *   3. copy each neighbour's border into my ghosts (load/store through
 *      shmem_ptr on one node; a neighbour on another node: one non-blocking
 *      get per ghost row, all directions issued at once, then one
 *      shmem_quiet, so an exchange costs about one network round trip plus
 *      the rows' transfer instead of a round trip per row);
 *   4. tell each neighbour "done reading you": set its done[dir] = e;
 *   5. wait for every neighbour's done, so on return I may overwrite my block.
 * Flags are per direction, so two directions may name the same PE (periodic
 * with 1 or 2 PEs along a dimension), and epochs only grow (no reset). */
#include "ext/dist/dist_impl.h"
#include "core/state.h"
#include "util/num.h"

#include <stdlib.h>
#include <string.h>

#define NDIR 9 /* (dr + 1) * 3 + (dc + 1); 4 is the block itself */
#define OPP(d) (8 - (d))

struct shmemx_halo_s {
    size_t gr, gc, elem, wr, wc;
    int pr, pc;          /* process grid */
    int flags;
    size_t pitch;        /* elements per buffer row */
    char *buf;           /* symmetric: (maxrows + 2 wr) x pitch elements */
    char *origin;        /* element (0, 0) of the block */
    uint64_t *sync;      /* symmetric: arrive[NDIR], done[NDIR] */
    uint64_t epoch;
    shmemx_halo_box_t me;
    int nb[NDIR];        /* neighbour PE per direction, or -1 */
    char *nbmem[NDIR];   /* neighbour's buffer as mapped here (NULL: use gets) */
    int remote;          /* some neighbour is on another node */
};


static void box_of(const struct shmemx_halo_s *h, int pe, shmemx_halo_box_t *b)
{
    int r = pe / h->pc, c = pe % h->pc;
    size_t nr = shmi_layout_block_count(h->gr, h->pr, r);
    size_t nc = shmi_layout_block_count(h->gc, h->pc, c);
    int active = nr > 0 && nc > 0;
    size_t r0 = active ? shmi_layout_block_start(h->gr, h->pr, r) : 0;
    size_t c0 = active ? shmi_layout_block_start(h->gc, h->pc, c) : 0;
    *b = (shmemx_halo_box_t){ r0, c0, active ? nr : 0, active ? nc : 0, h->pitch, h->wr, h->wc,
                              active ? r : -1, active ? c : -1, h->pr, h->pc };
}

/* Grid with the smallest block perimeter (the halo traffic) that leaves no
 * PE idle when possible; ties go to more process rows (contiguous ghosts). */
static void choose_grid(size_t gr, size_t gc, int npes, int *pr, int *pc)
{
    double best = 0;
    for (int r = 1; r <= npes; r++) {
        if (npes % r) continue;
        int c = npes / r;
        double cost = (double)((gr + (size_t)r - 1) / (size_t)r + (gc + (size_t)c - 1) / (size_t)c);
        if ((size_t)r > (gr ? gr : 1) || (size_t)c > (gc ? gc : 1)) cost += 1e18; /* idle PEs */
        if (r == 1 || cost <= best) {
            best = cost;
            *pr = r;
            *pc = c;
        }
    }
}

/* Smallest block along a dimension with active PEs: a ghost of width w must
 * come from one neighbour. */
static void check_width(const char *fn, const char *dim, size_t n, int p, size_t w, int periodic)
{
    int active = (int)shmi_min(n, (size_t)p);
    if (w == 0 || active == 0 || (active == 1 && !periodic)) return;
    size_t smallest = shmi_layout_block_count(n, p, active - 1);
    if (w > smallest)
        shmi_fatal("%s: width %zu exceeds the smallest block along %s (%zu of %zu split over "
                   "%d PEs): ghosts must come from the next PE only; use fewer PEs along %s or a "
                   "width <= %zu", fn, w, dim, smallest, n, active, dim, smallest);
}

static void find_neighbours(struct shmemx_halo_s *h)
{
    int ar = (int)shmi_min(h->gr, (size_t)h->pr), ac = (int)shmi_min(h->gc, (size_t)h->pc);
    for (int d = 0; d < NDIR; d++) {
        int dr = d / 3 - 1, dc = d % 3 - 1;
        h->nb[d] = -1;
        h->nbmem[d] = NULL;
        if (d == 4 || h->me.prow < 0 || (dr && !h->wr) || (dc && !h->wc)) continue;
        if (dr && dc && !(h->flags & SHMEMX_HALO_CORNERS)) continue;
        int r = h->me.prow + dr, c = h->me.pcol + dc;
        if (r < 0 || r >= ar) {
            if (!(h->flags & SHMEMX_HALO_PERIODIC_ROWS)) continue;
            r = (r + ar) % ar;
        }
        if (c < 0 || c >= ac) {
            if (!(h->flags & SHMEMX_HALO_PERIODIC_COLS)) continue;
            c = (c + ac) % ac;
        }
        h->nb[d] = r * h->pc + c;
        h->nbmem[d] = shmem_ptr(h->buf, h->nb[d]);
        h->remote |= !h->nbmem[d];
    }
}

static struct shmemx_halo_s *create(const char *fn, size_t nrows, size_t ncols, size_t elem,
                                    size_t wr, size_t wc, int flags, int pr, int pc)
{
    check_width(fn, "rows", nrows, pr, wr, flags & SHMEMX_HALO_PERIODIC_ROWS);
    check_width(fn, "columns", ncols, pc, wc, flags & SHMEMX_HALO_PERIODIC_COLS);
    /* Part 0 of a BLOCK split is the largest. */
    size_t maxr = shmi_layout_block_count(nrows, pr, 0);
    size_t maxc = shmi_layout_block_count(ncols, pc, 0);
    size_t pitch = maxc + 2 * wc, rows = maxr + 2 * wr, cells;
    if (maxr && maxc &&
        (shmi_mul_overflows(rows, pitch, &cells) || shmi_mul_overflows(cells, elem, NULL)))
        shmi_fatal("%s: %zu x %zu elements of %zu bytes overflows size_t", fn, nrows, ncols, elem);
    struct shmemx_halo_s *h = calloc(1, sizeof *h);
    if (!h) shmi_fatal("%s: out of private memory", fn);
    *h = (struct shmemx_halo_s){ .gr = nrows, .gc = ncols, .elem = elem, .wr = wr, .wc = wc,
                                 .pr = pr, .pc = pc, .flags = flags, .pitch = pitch };
    /* calloc: ghosts (the fixed boundary values) start at zero. */
    h->buf = maxr && maxc ? shmem_calloc(rows * pitch, elem) : NULL;
    h->sync = shmem_calloc(2 * NDIR, sizeof(uint64_t));
    if ((maxr && maxc && !h->buf) || !h->sync) { /* heap full, on every PE */
        if (h->buf) shmem_free(h->buf);
        if (h->sync) shmem_free(h->sync);
        free(h);
        return NULL;
    }
    h->origin = h->buf ? h->buf + (wr * pitch + wc) * elem : NULL;
    box_of(h, shmi_g.me, &h->me);
    find_neighbours(h);
    return h;
}

static void check_args(const char *fn, size_t elem, int flags)
{
    shmi_check_running(fn);
    if (elem == 0)
        shmi_fatal("%s: elem_size is 0: pass the size of one element, e.g. sizeof(double)", fn);
    if (flags & ~(SHMEMX_HALO_PERIODIC | SHMEMX_HALO_CORNERS))
        shmi_fatal("%s: flags=0x%x has unknown bits: use SHMEMX_HALO_PERIODIC_ROWS, _COLS, "
                   "_PERIODIC and _CORNERS", fn, (unsigned)flags);
}

shmemx_halo_t shmemx_halo_create_2d(size_t nrows, size_t ncols, size_t elem_size, size_t width,
                                    int flags, const int *grid)
{
    static const char fn[] = "shmemx_halo_create_2d";
    check_args(fn, elem_size, flags);
    int npes = shmi_g.npes, pr = 1, pc = npes;
    if (grid) {
        pr = grid[0];
        pc = grid[1];
        if (pr < 1 || pc < 1 || (long)pr * pc != npes)
            shmi_fatal("%s: grid {%d, %d} does not cover the %d PEs: prows * pcols must equal "
                       "shmem_n_pes(), or pass NULL to choose", fn, pr, pc, npes);
    } else {
        choose_grid(nrows, ncols, npes, &pr, &pc);
    }
    return create(fn, nrows, ncols, elem_size, width, width, flags, pr, pc);
}

shmemx_halo_t shmemx_halo_create_1d(size_t n, size_t elem_size, size_t width, int flags)
{
    static const char fn[] = "shmemx_halo_create_1d";
    check_args(fn, elem_size, flags);
    if (flags & SHMEMX_HALO_CORNERS)
        shmi_fatal("%s: SHMEMX_HALO_CORNERS has no meaning in 1-D: drop it", fn);
    /* One row over all PEs; periodic means the ends wrap (columns). */
    int p = flags & SHMEMX_HALO_PERIODIC ? SHMEMX_HALO_PERIODIC_COLS : 0;
    return create(fn, n ? 1 : 0, n, elem_size, 0, width, p, 1, shmi_g.npes);
}

static shmemx_halo_t checked(const char *fn, shmemx_halo_t h)
{
    shmi_check_running(fn);
    if (!h) shmi_fatal("%s: h is NULL: pass the handle shmemx_halo_create_1d/2d returned", fn);
    return h;
}

void shmemx_halo_destroy(shmemx_halo_t h)
{
    shmi_check_running("shmemx_halo_destroy");
    if (!h) return;
    if (h->buf) shmem_free(h->buf);
    shmem_free(h->sync);
    free(h);
}

void *shmemx_halo_data(shmemx_halo_t h, shmemx_halo_box_t *box)
{
    checked("shmemx_halo_data", h);
    if (box) *box = h->me;
    return h->origin;
}

void shmemx_halo_box(shmemx_halo_t h, int pe, shmemx_halo_box_t *box)
{
    shmi_check_pe("shmemx_halo_box", pe);
    box_of(checked("shmemx_halo_box", h), pe, box);
}

/* Ghost region of direction d: rows [r0, r0 + nr) x cols [c0, c0 + nc) of my
 * block; the source is the neighbour's rows/cols starting at sr/sc. */
static void copy_dir(struct shmemx_halo_s *h, int d)
{
    int dr = d / 3 - 1, dc = d % 3 - 1, q = h->nb[d];
    shmemx_halo_box_t qb;
    box_of(h, q, &qb);
    size_t lr = h->me.nrows, lc = h->me.ncols;
    ptrdiff_t r0 = dr < 0 ? -(ptrdiff_t)h->wr : dr > 0 ? (ptrdiff_t)lr : 0;
    ptrdiff_t c0 = dc < 0 ? -(ptrdiff_t)h->wc : dc > 0 ? (ptrdiff_t)lc : 0;
    size_t nr = dr ? h->wr : lr, nc = dc ? h->wc : lc;
    size_t sr = dr < 0 ? qb.nrows - h->wr : 0, sc = dc < 0 ? qb.ncols - h->wc : 0;
    size_t e = h->elem, bytes = nc * e;
    char *src0 = h->origin + (sr * h->pitch + sc) * e; /* symmetric address in q's buffer */
    for (size_t i = 0; i < nr; i++) {
        char *dst = h->origin + ((r0 + (ptrdiff_t)i) * (ptrdiff_t)h->pitch + c0) * (ptrdiff_t)e;
        char *src = src0 + i * h->pitch * e;
        if (h->nbmem[d]) memcpy(dst, h->nbmem[d] + (src - h->buf), bytes);
        else shmem_getmem_nbi(dst, src, bytes, q); /* completed by the caller's quiet */
    }
}

void shmemx_halo_exchange(shmemx_halo_t h)
{
    checked("shmemx_halo_exchange", h);
    if (h->me.prow < 0) return; /* owns nothing: no neighbours */
    uint64_t e = ++h->epoch, *arrive = h->sync, *done = h->sync + NDIR;
    for (int d = 0; d < NDIR; d++) /* seq_cst: our block's stores come first */
        if (h->nb[d] >= 0) shmem_uint64_atomic_set(&arrive[OPP(d)], e, h->nb[d]);
    for (int d = 0; d < NDIR; d++)
        if (h->nb[d] >= 0) shmem_uint64_wait_until(&arrive[d], SHMEM_CMP_GE, e);
    for (int d = 0; d < NDIR; d++)
        if (h->nb[d] >= 0) copy_dir(h, d);
    if (h->remote) shmem_quiet(); /* the gets from other nodes have landed */
    for (int d = 0; d < NDIR; d++)
        if (h->nb[d] >= 0) shmem_uint64_atomic_set(&done[OPP(d)], e, h->nb[d]);
    for (int d = 0; d < NDIR; d++)
        if (h->nb[d] >= 0) shmem_uint64_wait_until(&done[d], SHMEM_CMP_GE, e);
}

void shmemx_halo_gather(shmemx_halo_t h, void *dest)
{
    checked("shmemx_halo_gather", h);
    char *out = dest;
    if (!dest && h->gr && h->gc)
        shmi_fatal("shmemx_halo_gather: dest is NULL: pass a buffer of %zu x %zu elements",
                   h->gr, h->gc);
    for (int q = 0; q < shmi_g.npes; q++) {
        shmemx_halo_box_t b;
        box_of(h, q, &b);
        for (size_t i = 0; i < b.nrows; i++) /* non-blocking: across nodes the rows overlap */
            shmem_getmem_nbi(out + ((b.row0 + i) * h->gc + b.col0) * h->elem,
                             h->origin + i * h->pitch * h->elem, b.ncols * h->elem, q);
    }
    shmem_quiet();
}
