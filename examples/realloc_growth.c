/* realloc_growth.c - grow a symmetric array with nvshmem_realloc (brief §4.2.3).
 *
 * The brief warns that after realloc "the address changes on every PE, so
 * re-send it to the others".  With symmetric memory there is nothing to
 * re-send: realloc is collective, every PE calls it with the same arguments,
 * and the new address (moved or not) is the same on every PE.  This program
 * grows an array in steps (a block allocated right after the array usually
 * makes the first step move it), then shrinks it, and checks each time:
 * the old contents are kept, the address is the same on every PE, and the new
 * elements can be written by another PE.  (NVSHMEM itself has no realloc;
 * symheap's nvshmem_realloc is OpenSHMEM's shmem_realloc.)
 * Run: symrun -n 4 ./realloc_growth */
#include <nvshmem.h>

#include <stdint.h>
#include <stdio.h>

static int pattern(int pe, long i) { return pe * 1000003 + (int)i; }

/* 1 if p has the same value on every PE (each PE sends p to every PE). */
static int same_everywhere(uint64_t *addrs, const void *p)
{
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), same = 1;
    for (int pe = 0; pe < npes; pe++)
        nvshmem_uint64_p(&addrs[me], (uint64_t)(uintptr_t)p, pe);
    nvshmem_barrier_all();
    for (int q = 0; q < npes; q++) same &= addrs[q] == (uint64_t)(uintptr_t)p;
    nvshmem_barrier_all(); /* addrs may be reused by the next call */
    return same;
}

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    uint64_t *addrs = nvshmem_calloc((size_t)npes, sizeof *addrs);
    int *bad = nvshmem_calloc(1, sizeof *bad); /* on PE 0: PEs that saw an error */

    long n = 1024;
    int *a = nvshmem_malloc((size_t)n * sizeof *a);
    char *wall = nvshmem_malloc(64); /* likely right after a: growing there must move */
    for (long i = 0; i < n; i++) a[i] = pattern(me, i);

    const long steps[] = { 4096, 65536, 1L << 20, 512 };
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        long newn = steps[s], kept = newn < n ? newn : n;
        int *old = a;
        int *b = nvshmem_realloc(a, (size_t)newn * sizeof *b); /* collective */
        int ok = b != NULL;
        if (ok) {
            a = b;
            for (long i = 0; i < kept; i++) ok &= a[i] == pattern(me, i);
            for (long i = kept; i < newn; i++) a[i] = pattern(me, i);
            ok &= same_everywhere(addrs, a);
            /* Use the new size remotely: the last element on the right PE. */
            nvshmem_int_p(&a[newn - 1], -me, right);
            nvshmem_barrier_all();
            ok &= a[newn - 1] == -left;
            a[newn - 1] = pattern(me, newn - 1);
        }
        if (!ok) nvshmem_int_atomic_inc(bad, 0);
        nvshmem_barrier_all();
        if (me == 0)
            printf("realloc %7ld -> %7ld ints: %-8s at %p, same on all %d PEs, "
                   "first %ld kept, new end written remotely: %s\n",
                   n, newn, a == old ? "in place" : "moved", (void *)a, npes, kept,
                   *bad ? "FAIL" : "ok");
        if (!b) break;
        n = newn;
    }

    int failed = nvshmem_int_g(bad, 0) != 0;
    nvshmem_free(wall);
    nvshmem_free(a);
    nvshmem_free(bad);
    nvshmem_free(addrs);
    nvshmem_finalize();
    return failed;
}
