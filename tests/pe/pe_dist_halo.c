/* pe_dist_halo.c - halo exchange (issue 4): 1-D and 2-D, widths 1..3, fixed
 * and periodic boundaries, with and without corners, automatic and explicit
 * process grids, sizes with N % npes != 0 and N < npes (idle PEs).  Every
 * ghost cell is checked after two exchanges with changing data: the value of
 * the global cell it mirrors, or the untouched boundary value. */
#include "pe_dist.h"

#include <string.h>

static int me, np;
#define BOUNDARY (-7.0)

static double val(long r, long c, int round) { return (double)(r * 100003 + c * 7 + round * 1000000 + 1); }

static long wrap(long x, long n) { return ((x % n) + n) % n; }

/* Smallest non-empty block along a dimension of n split over p. */
static size_t smallest(size_t n, int p) { return n < (size_t)p ? 1 : n / (size_t)p; }

static int dim_ok(size_t n, int p, size_t w, int periodic)
{
    size_t active = n < (size_t)p ? n : (size_t)p;
    return w == 0 || active == 0 || (active == 1 && !periodic) || w <= smallest(n, p);
}

/* Check one PE's block after an exchange of round `round`. */
static void check_block(shmemx_halo_t h, size_t gr, size_t gc, int flags, int round, int one_d)
{
    shmemx_halo_box_t b;
    double *o = shmemx_halo_data(h, &b);
    if (b.prow < 0) {
        CHECK(b.nrows == 0 || b.ncols == 0);
        return;
    }
    long wr = (long)b.wrow, wc = (long)b.wcol;
    for (long r = -wr; r < (long)b.nrows + wr; r++)
        for (long c = -wc; c < (long)b.ncols + wc; c++) {
            int in_r = r >= 0 && r < (long)b.nrows, in_c = c >= 0 && c < (long)b.ncols;
            long g_r = (long)b.row0 + r, g_c = (long)b.col0 + c;
            double got = o[r * (long)b.pitch + c], want;
            if (in_r && in_c) continue; /* the block itself */
            int corner = !in_r && !in_c;
            int out_r = g_r < 0 || g_r >= (long)gr, out_c = g_c < 0 || g_c >= (long)gc;
            int ok_r = !out_r || (flags & SHMEMX_HALO_PERIODIC_ROWS);
            int ok_c = !out_c || (flags & SHMEMX_HALO_PERIODIC_COLS);
            if ((corner && !(flags & SHMEMX_HALO_CORNERS)) || !ok_r || !ok_c)
                want = BOUNDARY; /* never written by the exchange */
            else
                want = val(wrap(g_r, (long)gr), wrap(g_c, (long)gc), round);
            CHECKF(got == want, "%s %zux%zu w=%ld/%ld flags=%d grid %dx%d: PE %d (%d,%d) cell "
                   "(%ld,%ld) = %.0f, want %.0f", one_d ? "1-D" : "2-D", gr, gc, wr, wc, flags,
                   b.prows, b.pcols, me, b.prow, b.pcol, r, c, got, want);
        }
}

static void fill_block(shmemx_halo_t h, int round)
{
    shmemx_halo_box_t b;
    double *o = shmemx_halo_data(h, &b);
    for (size_t r = 0; r < b.nrows; r++)
        for (size_t c = 0; c < b.ncols; c++)
            o[r * b.pitch + c] = val((long)(b.row0 + r), (long)(b.col0 + c), round);
}

static void set_ghosts(shmemx_halo_t h)
{
    shmemx_halo_box_t b;
    double *o = shmemx_halo_data(h, &b);
    long wr = (long)b.wrow, wc = (long)b.wcol;
    if (b.prow < 0) return;
    for (long r = -wr; r < (long)b.nrows + wr; r++)
        for (long c = -wc; c < (long)b.ncols + wc; c++)
            if (r < 0 || c < 0 || r >= (long)b.nrows || c >= (long)b.ncols) o[r * (long)b.pitch + c] = BOUNDARY;
}

static int run(size_t gr, size_t gc, size_t w, int flags, const int *grid, int one_d)
{
    shmemx_halo_t h = one_d ? shmemx_halo_create_1d(gc, sizeof(double), w, flags)
                            : shmemx_halo_create_2d(gr, gc, sizeof(double), w, flags, grid);
    CHECK(h != NULL);
    set_ghosts(h);
    for (int round = 0; round < 2; round++) {
        fill_block(h, round);
        shmemx_halo_exchange(h);
        check_block(h, one_d ? (gc ? 1 : 0) : gr, gc, one_d ? (flags ? SHMEMX_HALO_PERIODIC_COLS : 0) : flags, round, one_d);
    }
    /* Every PE gathers the whole array. */
    shmem_barrier_all();
    size_t rows = one_d ? (gc ? 1 : 0) : gr;
    double *all = malloc((rows * gc + 1) * sizeof *all);
    shmemx_halo_gather(h, all);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < gc; c++) CHECK(all[r * gc + c] == val((long)r, (long)c, 1));
    free(all);
    shmem_barrier_all();
    shmemx_halo_destroy(h);
    return 1;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    int cases = 0;
    size_t sizes[16];
    int ns = pe_dist_sizes(sizes);
    for (int s = 0; s < ns; s++)          /* 1-D */
        for (size_t w = 1; w <= 3; w++)
            for (int per = 0; per < 2; per++)
                if (dim_ok(sizes[s], np, w, per)) cases += run(1, sizes[s], w, per ? SHMEMX_HALO_PERIODIC : 0, NULL, 1);
    static const size_t shapes[][2] = { { 1, 1 }, { 5, 7 }, { 17, 13 }, { 3, 40 }, { 40, 2 }, { 9, 9 }, { 0, 5 } };
    static const int flagset[] = { 0, SHMEMX_HALO_PERIODIC, SHMEMX_HALO_PERIODIC | SHMEMX_HALO_CORNERS,
                                   SHMEMX_HALO_CORNERS, SHMEMX_HALO_PERIODIC_ROWS, SHMEMX_HALO_PERIODIC_COLS | SHMEMX_HALO_CORNERS };
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        for (size_t w = 1; w <= 2; w++)
            for (size_t fi = 0; fi < sizeof flagset / sizeof *flagset; fi++) {
                int fl = flagset[fi];
                size_t gr = shapes[k][0], gc = shapes[k][1];
                for (int pr = 0; pr <= np; pr++) { /* 0: automatic grid */
                    if (pr && np % pr) continue;
                    int grid[2] = { pr, pr ? np / pr : 0 };
                    if (pr && !(dim_ok(gr, grid[0], w, fl & SHMEMX_HALO_PERIODIC_ROWS) &&
                                dim_ok(gc, grid[1], w, fl & SHMEMX_HALO_PERIODIC_COLS)))
                        continue;
                    if (!pr) { /* the automatic grid must be valid for the test to run it */
                        shmemx_halo_t h = shmemx_halo_create_2d(gr, gc, 8, 0, 0, NULL);
                        shmemx_halo_box_t b;
                        shmemx_halo_box(h, 0, &b);
                        int ok = dim_ok(gr, b.prows, w, fl & SHMEMX_HALO_PERIODIC_ROWS) &&
                                 dim_ok(gc, b.pcols, w, fl & SHMEMX_HALO_PERIODIC_COLS);
                        shmemx_halo_destroy(h);
                        if (!ok) continue;
                    }
                    cases += run(gr, gc, w, fl, pr ? grid : NULL, 0);
                }
            }
    if (me == 0) printf("pe_dist_halo: %d 1-D and 2-D cases ok with %d PEs\n", cases, np);
    shmem_finalize();
    return 0;
}
