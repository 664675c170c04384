/* write_read_verify.c - the brief's second debugging trick (§4.6): write a
 * known value after allocating, then read it back on every PE.
 *
 * Every PE writes a pattern that names the writer and the index into its own
 * copy, then reads every PE's copy with nvshmem_int_get (whole array) and
 * nvshmem_int_g (one element) and checks each value.  A wrong value names the
 * PE, the index and what was expected.
 * Run: symrun -n 4 ./write_read_verify */
#include <nvshmem.h>

#include <stdio.h>
#include <stdlib.h>

#define N 4096

static int pattern(int pe, int i) { return pe * 1000003 + i; }

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    long errors = 0;

    int *data = (int *)nvshmem_malloc(N * sizeof(int));
    if (data == NULL) {
        printf("PE %d: nvshmem_malloc failed\n", me);
        nvshmem_global_exit(1);
    }
    for (int i = 0; i < N; i++) /* write: each PE its own copy */
        data[i] = pattern(me, i);
    nvshmem_barrier_all(); /* every PE has written before anyone reads */

    int *copy = malloc(N * sizeof(int)); /* private memory is fine as get's dest */
    for (int pe = 0; pe < npes; pe++) {
        nvshmem_int_get(copy, data, N, pe);
        for (int i = 0; i < N; i++) {
            if (copy[i] != pattern(pe, i) && errors++ < 5)
                printf("PE %d: FAIL: PE %d data[%d] = %d, want %d\n", me, pe, i, copy[i],
                       pattern(pe, i));
        }
        int last = nvshmem_int_g(&data[N - 1], pe);
        if (last != pattern(pe, N - 1) && errors++ < 5)
            printf("PE %d: FAIL: g(PE %d data[%d]) = %d, want %d\n", me, pe, N - 1, last,
                   pattern(pe, N - 1));
    }
    printf("PE %d: read %d ints back from each of %d PEs: %s\n", me, N, npes,
           errors ? "MISMATCH" : "all as written");

    free(copy);
    nvshmem_free(data); /* starts with a barrier: nobody frees while others read */
    nvshmem_finalize();
    return errors != 0;
}
