/* dist_init_root.c - initialization strategy 2 of the brief (§4.3): one PE
 * fills, every PE gets the same data.
 *
 * The brief fills on PE 0, calls barrier_all and then leaves "use put or
 * broadcast" to the reader.  One call does all of it; only the root runs the
 * fill function, the others receive its copy through the team broadcast:
 *     shmemx_init_root(table, N, sizeof(float), SHMEMX_FILL_RANGE(f, ctx), root);
 * Run: symrun -n 4 ./dist_init_root */
#include <shmem.h>
#include <shmemx.h>

#include <math.h>
#include <stdio.h>

#define N 4096

static int calls; /* how often this PE ran the fill function */

/* Range form: fills count elements at once (one call per run, no per-element
 * call overhead).  Here: a sine lookup table, expensive enough that only one
 * PE should compute it. */
static void sine_table(void *out, size_t first, size_t count, int pe, void *ctx)
{
    (void)pe, (void)ctx;
    float *o = out;
    for (size_t k = 0; k < count; k++) o[k] = (float)sin(2 * M_PI * (double)(first + k) / N);
    calls++;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), root = npes - 1, bad = 0;
    float *table = shmem_malloc(N * sizeof *table);
    shmemx_init_root(table, N, sizeof *table, SHMEMX_FILL_RANGE(sine_table, NULL), root);
    for (int i = 0; i < N; i++) bad += table[i] != (float)sin(2 * M_PI * i / N);
    bad += (me == root) != (calls == 1); /* only the root computed */

    static int errors;
    shmem_int_atomic_add(&errors, bad, 0);
    shmem_barrier_all();
    if (me == 0)
        printf("root init: PE %d computed a %d-entry sine table once, all %d PEs received it: %s\n",
               root, N, npes, errors ? "FAIL" : "ok");
    int verdict = shmem_int_g(&errors, 0);
    shmem_free(table);
    shmem_finalize();
    return verdict != 0;
}
