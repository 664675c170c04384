/* dist_init_local.c - initialization strategy 1 of the brief (§4.3): every PE
 * fills its own copy of a symmetric array.
 *
 * The brief's loop `for (i...) data[i] = my_pe;` becomes one call that also
 * ends with the barrier the brief forgets (peers may read any copy after it):
 *     shmemx_init_local(data, N, sizeof(int), SHMEMX_FILL_VALUE(&me));
 * or, when the value depends on the index, with a function f(i, pe, ctx).
 * Run: symrun -n 4 ./dist_init_local */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>

#define N 1000

/* f(global index, pe, ctx): the value of element i in PE pe's copy. */
static void temperature(void *out, size_t i, int pe, void *ctx)
{
    double base = *(const double *)ctx;
    *(double *)out = base + (double)i * 0.5 + pe;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), bad = 0;

    int *ids = shmem_malloc(N * sizeof *ids);
    shmemx_init_local(ids, N, sizeof *ids, SHMEMX_FILL_VALUE(&me)); /* a constant */
    int right = (me + 1) % npes;
    bad += shmem_int_g(&ids[N - 1], right) != right; /* no barrier needed: the call ended with one */

    double *t = shmem_malloc(N * sizeof *t), base = 20.0;
    shmemx_init_local(t, N, sizeof *t, SHMEMX_FILL_ELEM(temperature, &base)); /* f(i, pe, ctx) */
    for (int i = 0; i < N; i++) bad += t[i] != 20.0 + i * 0.5 + me;
    bad += shmem_double_g(&t[10], right) != 25.0 + right;

    static int errors; /* symmetric global: PE 0 sums the errors */
    shmem_int_atomic_add(&errors, bad, 0);
    shmem_barrier_all();
    if (me == 0)
        printf("local init: %d PEs each filled their own %d ints (own PE number) and %d doubles "
               "(f(i, pe)): %s\n", npes, N, N, errors ? "FAIL" : "ok");
    int verdict = shmem_int_g(&errors, 0);
    shmem_free(t);
    shmem_free(ids);
    shmem_finalize();
    return verdict != 0;
}
