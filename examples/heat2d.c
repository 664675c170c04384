/* heat2d.c - a small real application of the placement layer: 2-D heat
 * diffusion (Jacobi iteration) on an NX x NY plate whose top edge is held
 * at 100 degrees and the other edges at 0.
 *
 * The plate is split in blocks over a process grid (shmemx_halo_create_2d
 * chooses it; uneven splits are fine), each PE updates only its block
 * (owner computes), and before each sweep one shmemx_halo_exchange copies
 * the neighbours' borders into the ghost cells.  The fixed boundary lives in
 * the ghost cells at the plate's edge, which the exchange never touches.
 *
 * Checks: PE 0 gathers the plate and compares it, bit for bit, with a
 * single-PE (plain arrays, no library) run of the same arithmetic; the
 * printed checksum is the same for any PE count (compare -n 1 with -n 4).
 * Benchmark lines (one run, no median), in the bench/ output format, per
 * sweep: compute and halo (the slowest PE's; halo includes waiting for
 * neighbours that are still computing), the whole sweep, and halo_only
 * (exchanges back to back: the exchange's own cost).
 *   symrun -n 4 ./heat2d [NX NY STEPS]      (default 512 384 200) */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOT 100.0

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One Jacobi update; the same expression in the parallel and serial code. */
static inline double jacobi(double up, double down, double left, double right)
{
    return 0.25 * ((up + down) + (left + right));
}

/* Fixed boundary: ghost row -1 (top edge of the plate) is HOT. */
static void set_boundary(shmemx_halo_t h)
{
    shmemx_halo_box_t b;
    double *u = shmemx_halo_data(h, &b);
    if (b.prow == 0)
        for (long c = -1; c <= (long)b.ncols; c++) u[-(long)b.pitch + c] = HOT;
}

static void sweep(const double *u, double *v, const shmemx_halo_box_t *b)
{
    long p = (long)b->pitch;
    for (long r = 0; r < (long)b->nrows; r++)
        for (long c = 0; c < (long)b->ncols; c++) {
            long i = r * p + c;
            v[i] = jacobi(u[i - p], u[i + p], u[i - 1], u[i + 1]);
        }
}

/* The reference: one PE, plain arrays with a one-cell border. */
static double *serial(long nx, long ny, int steps)
{
    long p = ny + 2;
    double *u = calloc((size_t)((nx + 2) * p), sizeof *u), *v = calloc((size_t)((nx + 2) * p), sizeof *v);
    for (long c = 0; c < p; c++) u[c] = v[c] = HOT;
    for (int s = 0; s < steps; s++) {
        for (long r = 1; r <= nx; r++)
            for (long c = 1; c <= ny; c++) {
                long i = r * p + c;
                v[i] = jacobi(u[i - p], u[i + p], u[i - 1], u[i + 1]);
            }
        double *t = u; u = v; v = t;
    }
    free(v);
    return u;
}

static double times[4096][2]; /* symmetric, on PE 0: each PE's compute and halo seconds */

int main(int argc, char **argv)
{
    long nx = argc > 1 ? atol(argv[1]) : 512, ny = argc > 2 ? atol(argv[2]) : 384;
    int steps = argc > 3 ? atoi(argv[3]) : 200;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (nx < 1 || ny < 1 || steps < 0) {
        if (me == 0) fprintf(stderr, "usage: heat2d [NX NY STEPS] (positive sizes)\n");
        shmem_finalize();
        return 2;
    }
    shmemx_halo_t a = shmemx_halo_create_2d((size_t)nx, (size_t)ny, sizeof(double), 1, 0, NULL);
    shmemx_halo_t b = shmemx_halo_create_2d((size_t)nx, (size_t)ny, sizeof(double), 1, 0, NULL);
    set_boundary(a);
    set_boundary(b);
    shmemx_halo_box_t box;
    shmemx_halo_data(a, &box);
    shmem_barrier_all();

    double t_comp = 0, t_halo = 0, t0 = now();
    for (int s = 0; s < steps; s++) {
        double t1 = now();
        shmemx_halo_exchange(a);
        double t2 = now();
        sweep(shmemx_halo_data(a, NULL), shmemx_halo_data(b, NULL), &box);
        t_halo += t2 - t1;
        t_comp += now() - t2;
        shmemx_halo_t t = a; a = b; b = t;
    }
    shmem_barrier_all();
    double total = now() - t0;
    /* Exchanges alone, back to back: the cost of the exchange itself, without
     * waiting for neighbours that are still computing. */
    double t3 = now();
    for (int s = 0; s < steps; s++) shmemx_halo_exchange(a);
    shmem_barrier_all();
    double only = now() - t3;
    if (me < 4096) {
        shmem_double_p(&times[me][0], t_comp, 0);
        shmem_double_p(&times[me][1], t_halo, 0);
    }
    shmem_barrier_all();

    static int errors;
    if (me == 0) {
        double *plate = malloc((size_t)(nx * ny) * sizeof *plate), sum = 0, maxc = 0, maxh = 0;
        shmemx_halo_gather(a, plate);
        double *ref = serial(nx, ny, steps);
        for (long r = 0; r < nx; r++)
            for (long c = 0; c < ny; c++) {
                double x = plate[r * ny + c];
                sum += x;
                errors += memcmp(&x, &ref[(r + 1) * (ny + 2) + c + 1], sizeof x) != 0;
            }
        for (int p = 0; p < npes && p < 4096; p++) { /* the slowest PE sets the pace */
            if (times[p][0] > maxc) maxc = times[p][0];
            if (times[p][1] > maxh) maxh = times[p][1];
        }
        shmemx_halo_box_t b0;
        shmemx_halo_box(a, 0, &b0);
        printf("heat2d: %ldx%ld plate, %d steps, %d PEs (grid %dx%d, blocks up to %zux%zu): "
               "checksum=%.17g; vs single-PE run: %s\n", nx, ny, steps, npes, b0.prows, b0.pcols,
               b0.nrows, b0.ncols, sum, errors ? "DIFFERENT" : "bitwise equal");
        if (steps) {
            printf("bench heat2d %d compute %.3f us\n", npes, maxc / steps * 1e6);
            printf("bench heat2d %d halo %.3f us\n", npes, maxh / steps * 1e6);
            printf("bench heat2d %d sweep %.3f us\n", npes, total / steps * 1e6);
            printf("bench heat2d %d halo_only %.3f us\n", npes, only / steps * 1e6);
            printf("# heat2d: halo exchange (with waiting) is %.1f%% of compute + halo\n",
                   100.0 * maxh / (maxc + maxh > 0 ? maxc + maxh : 1));
        }
        free(ref);
        free(plate);
    }
    shmem_barrier_all();
    int verdict = shmem_int_g(&errors, 0);
    shmemx_halo_destroy(b);
    shmemx_halo_destroy(a);
    shmem_finalize();
    return verdict != 0;
}
