/* dist_init_lazy.c - initialization strategy 4 of the brief (§4.3): a sparse
 * array whose blocks are filled only when first used.
 *
 * The brief only names the idea; by hand it needs a per-block flag, a
 * compare-and-swap and an accessor for every read (see init_strategies.c).
 * Here the array is used through its plain pointer: the first load or store
 * of a block (on any PE, also a peer's get/put) runs the fill function for
 * that block, and a block nobody uses costs no memory:
 *     double *m = shmemx_lazy_alloc(N, sizeof(double), 0, SHMEMX_FILL_ELEM(f, NULL));
 *     x = m[i];          // first touch of i's block fills it
 * The fill function must be async-signal-safe (it runs in the SIGSEGV
 * handler): compute from (index, pe, ctx) only.
 * Run: symrun -n 4 ./dist_init_lazy */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <unistd.h>

#define N (16L << 20) /* 16 Mi doubles = 128 MiB per PE, reserved but not used */

static double f(size_t i, int pe) { return (double)(i % 1000) + pe * 0.25; }
static void fill(void *out, size_t i, int pe, void *ctx)
{
    (void)ctx;
    *(double *)out = f(i, pe);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), bad = 0;
    double *m = shmemx_lazy_alloc(N, sizeof *m, 0, SHMEMX_FILL_ELEM(fill, NULL));

    /* A sparse access pattern: 100 scattered elements of our own copy. */
    for (long k = 0; k < 100; k++) {
        size_t i = (size_t)(k * 1000003L % N);
        bad += m[i] != f(i, me);
    }
    m[7] = -1.0; /* a store is a first touch too */
    bad += m[7] != -1.0 || m[8] != f(8, me);

    /* A peer's block that nobody touched: a plain get still sees the
     * initialized values (the reader fills it in the owner's memory)... */
    int right = (me + 1) % npes;
    double v;
    shmem_getmem(&v, &m[N - 1], sizeof v, right);
    bad += v != f(N - 1, right);
    /* ...and shmemx_lazy_get computes them without committing the block. */
    shmemx_lazy_get(&v, &m[N / 2 + 3], sizeof v, right);
    bad += v != f(N / 2 + 3, right);

    shmem_barrier_all();
    shmemx_lazy_info_t info;
    shmemx_lazy_info(m, &info);
    static int errors;
    shmem_int_atomic_add(&errors, bad, 0);
    shmem_barrier_all();
    if (me == 0)
        printf("lazy init: %ld doubles per PE (%zu blocks of %zu bytes); PE 0 has %zu blocks "
               "filled (%.2f%% of the memory), the rest cost nothing: %s\n", N, info.blocks,
               info.block_bytes, info.ready, 100.0 * (double)info.ready / (double)info.blocks,
               errors ? "FAIL" : "ok");
    int verdict = shmem_int_g(&errors, 0);
    shmemx_lazy_free(m);
    shmem_finalize();
    return verdict != 0;
}
