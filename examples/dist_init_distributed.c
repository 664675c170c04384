/* dist_init_distributed.c - initialization strategy 3 of the brief (§4.3,
 * §4.4.2): a global array split over the PEs; each PE fills only the part it
 * owns; optionally every PE then gets the whole array (all-gather).
 *
 * The brief's `block_size = N / npes; start = pe * block_size` drops the last
 * N % npes elements.  A layout gets every N right (here N = 1003, and the
 * layout can be BLOCK, CYCLIC, BLOCK_CYCLIC(b) or a user owner map):
 *     shmemx_dist_t d = shmemx_dist_create(N, sizeof(long), SHMEMX_LAYOUT_BLOCK);
 *     shmemx_dist_init(d, SHMEMX_FILL_ELEM(compute, NULL), NULL);  // owners fill
 *     shmemx_dist_init(d, SHMEMX_FILL_ELEM(compute, NULL), all);   // + all-gather
 * Run: symrun -n 4 ./dist_init_distributed */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>

#define N 1003 /* not a multiple of 4 on purpose */

static long compute(size_t i) { return (long)(i * i % 9973); }
static void fill(void *out, size_t i, int pe, void *ctx)
{
    (void)pe, (void)ctx;
    *(long *)out = compute(i);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), bad = 0;
    shmemx_dist_t d = shmemx_dist_create(N, sizeof(long), SHMEMX_LAYOUT_BLOCK);

    /* Owners fill their part only: no PE computes another's elements. */
    shmemx_dist_init(d, SHMEMX_FILL_ELEM(fill, NULL), NULL);
    size_t first, count;
    shmemx_dist_local_range(d, me, &first, &count); /* BLOCK: one contiguous range */
    const long *mine = shmemx_dist_local(d);
    for (size_t k = 0; k < count; k++) bad += mine[k] != compute(first + k);

    /* Every PE needs the whole array: fill + all-gather in one call. */
    long *all = malloc(N * sizeof *all);
    shmemx_dist_init(d, SHMEMX_FILL_ELEM(fill, NULL), all);
    for (size_t i = 0; i < N; i++) bad += all[i] != compute(i);

    static int errors;
    shmem_int_atomic_add(&errors, bad, 0);
    shmem_barrier_all();
    if (me == 0)
        printf("distributed init: N=%d over %d PEs, parts of %zu..%zu elements, each filled by "
               "its owner, then all-gathered: %s\n", N, npes, shmemx_dist_local_count(d, npes - 1),
               shmemx_dist_local_count(d, 0), errors ? "FAIL" : "ok");
    int verdict = shmem_int_g(&errors, 0);
    free(all);
    shmemx_dist_destroy(d);
    shmem_finalize();
    return verdict != 0;
}
