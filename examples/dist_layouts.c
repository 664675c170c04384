/* dist_layouts.c - data placement by layout (brief §4.4.2): which PE owns
 * global element i, where it lives there, and owner-computes loops.
 *
 *   symrun -n 3 ./dist_layouts block | cyclic | blockcyclic | user
 *
 * For a small N the program prints the owner map, then every PE computes
 * only its own elements (iterating runs of consecutive global indices),
 * and PE 0 reads a global index range back with one transfer per owner.
 * Layouts:
 *   block:        one contiguous block per PE, the first N % npes get one more;
 *   cyclic:       element i on PE i % npes (good for load balance);
 *   blockcyclic:  blocks of 4 dealt round-robin (balance + contiguity);
 *   user:         any owner function, here "hot" elements 0..9 on PE 0. */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 22

static int hot_on_pe0(size_t i, int npes, void *ctx)
{
    (void)ctx;
    return i < 10 ? 0 : (int)(i % (size_t)npes);
}

static double work(size_t i) { return (double)i * 1.5; }

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "block";
    shmemx_layout_t lay;
    if (!strcmp(name, "block")) lay = SHMEMX_LAYOUT_BLOCK;
    else if (!strcmp(name, "cyclic")) lay = SHMEMX_LAYOUT_CYCLIC;
    else if (!strcmp(name, "blockcyclic")) lay = SHMEMX_LAYOUT_BLOCK_CYCLIC(4);
    else if (!strcmp(name, "user")) lay = SHMEMX_LAYOUT_USER(hot_on_pe0, NULL);
    else {
        fprintf(stderr, "usage: %s block|cyclic|blockcyclic|user\n", argv[0]);
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_dist_t d = shmemx_dist_create(N, sizeof(double), lay);

    if (me == 0) { /* the owner map: element i -> (PE, local index) */
        printf("%s layout, N=%d, %d PEs\n  owner: ", name, N, npes);
        for (size_t i = 0; i < N; i++) printf("%d", shmemx_dist_owner(d, i, NULL));
        printf("\n  local: ");
        for (size_t i = 0; i < N; i++) {
            size_t l;
            shmemx_dist_owner(d, i, &l);
            printf("%zu%s", l, i + 1 < N ? "," : "\n");
        }
    }
    /* Owner computes: runs of consecutive global indices in our part. */
    double *part = shmemx_dist_local(d);
    shmemx_dist_run_t r;
    int runs = 0;
    for (shmemx_dist_iter_t it = shmemx_dist_iter(d, me, 0, N); shmemx_dist_next(&it, &r); runs++)
        for (size_t k = 0; k < r.count; k++) part[r.local + k] = work(r.global + k);
    shmem_barrier_all();
    printf("  PE %d owns %zu elements in %d run%s\n", me, shmemx_dist_local_count(d, me), runs,
           runs == 1 ? "" : "s");

    static int errors;
    shmem_barrier_all();
    if (me == 0) { /* a global range, split into one transfer per owner */
        double got[N];
        shmemx_dist_get(d, got, 3, N - 5);
        for (size_t i = 3; i < N - 2; i++) errors += got[i - 3] != work(i);
        printf("  get of global [3, %d) from all owners: %s\n", N - 2, errors ? "FAIL" : "ok");
    }
    shmem_barrier_all();
    int verdict = shmem_int_g(&errors, 0);
    shmemx_dist_destroy(d);
    shmem_finalize();
    return verdict != 0;
}
