/* dist_halo1d.c - a 1-D block layout with halo exchange (brief §4.4.2: "only
 * the borders are exchanged"): a periodic 5-point smoothing filter over N
 * points (N % npes != 0), ghost width 2, checked against a serial run.
 *
 *     shmemx_halo_t h = shmemx_halo_create_1d(N, sizeof(double), 2, SHMEMX_HALO_PERIODIC);
 *     double *u = shmemx_halo_data(h, &box);  // u[-2..-1], u[n..n+1] are ghosts
 *     shmemx_halo_exchange(h);                 // neighbours only, no global barrier
 * Run: symrun -n 3 ./dist_halo1d */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1001
#define STEPS 50

static double init(size_t i) { return (double)((i * 37) % 101); }
static double smooth(const double *u, long i)
{
    return (u[i - 2] + 4 * u[i - 1] + 6 * u[i] + 4 * u[i + 1] + u[i + 2]) / 16.0;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_halo_t a = shmemx_halo_create_1d(N, sizeof(double), 2, SHMEMX_HALO_PERIODIC);
    shmemx_halo_t b = shmemx_halo_create_1d(N, sizeof(double), 2, SHMEMX_HALO_PERIODIC);
    shmemx_halo_box_t box;
    double *u = shmemx_halo_data(a, &box), *v = shmemx_halo_data(b, NULL);
    for (size_t k = 0; k < box.ncols; k++) u[k] = init(box.col0 + k);
    for (int s = 0; s < STEPS; s++) {
        shmemx_halo_exchange(a); /* u's ghosts from the neighbours */
        for (long k = 0; k < (long)box.ncols; k++) v[k] = smooth(u, k);
        shmemx_halo_t t = a; a = b; b = t;
        double *p = u; u = v; v = p;
    }
    shmem_barrier_all();
    static int errors;
    if (me == 0) { /* the serial answer, with the same arithmetic */
        double *s0 = calloc(N + 4, sizeof *s0), *s1 = calloc(N + 4, sizeof *s1), *got = malloc(N * sizeof *got);
        for (size_t i = 0; i < N; i++) s0[i + 2] = init(i);
        for (int s = 0; s < STEPS; s++) {
            s0[0] = s0[N]; s0[1] = s0[N + 1]; s0[N + 2] = s0[2]; s0[N + 3] = s0[3];
            for (long i = 0; i < N; i++) s1[i + 2] = smooth(s0, i + 2);
            double *t = s0; s0 = s1; s1 = t;
        }
        shmemx_halo_gather(a, got);
        for (size_t i = 0; i < N; i++) errors += got[i] != s0[i + 2];
        printf("1-D halo: N=%d over %d PEs, width 2, periodic, %d steps: %s (bitwise equal to "
               "the serial run)\n", N, npes, STEPS, errors ? "FAIL" : "ok");
        free(s0); free(s1); free(got);
    }
    shmem_barrier_all();
    int verdict = shmem_int_g(&errors, 0);
    shmemx_halo_destroy(b);
    shmemx_halo_destroy(a);
    shmem_finalize();
    return verdict != 0;
}
