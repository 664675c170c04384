/* block_distribution.c - split N elements into one contiguous block per PE
 * (brief §4.4.2), correct for every N, including N % npes != 0 and N < npes.
 *
 * The brief's version, block_size = N / npes and start = pe * block_size,
 * silently drops the last N % npes elements (and gives every PE an empty
 * block when N < npes).  Here the first N % npes PEs own one extra element:
 *
 *   count(pe) = N / npes + (pe < N % npes)
 *   start(pe) = pe * (N / npes) + min(pe, N % npes)
 *   owner(i)  = the PE whose [start, start + count) holds i
 *
 * For each N, every PE fills only its block of a symmetric array, then PE 0
 * reads all blocks with nvshmem_int_get and checks that every element 0..N-1 is
 * there exactly once, written by its owner.
 * Run: symrun -n 4 ./block_distribution */
#include <nvshmem.h>

#include <stdio.h>
#include <stdlib.h>

struct layout { long n; int npes; };

static long count_of(struct layout l, int pe) { return l.n / l.npes + (pe < l.n % l.npes); }
static long start_of(struct layout l, int pe)
{
    long rem = l.n % l.npes;
    return pe * (l.n / l.npes) + (pe < rem ? pe : rem);
}
/* Inverse of start_of: O(1), no search. */
static int owner_of(struct layout l, long i)
{
    long q = l.n / l.npes, rem = l.n % l.npes;
    long big = rem * (q + 1); /* elements held by the PEs with an extra one */
    return i < big ? (int)(i / (q + 1)) : (int)(rem + (i - big) / q);
}

static int value(long i) { return (int)(i * 3 + 11); }

/* Distribute n elements, check, print one line on PE 0; returns the number of
 * errors PE 0 found (0 on other PEs). */
static long run(long n)
{
    int me = nvshmem_my_pe();
    struct layout l = { n, nvshmem_n_pes() };
    long maxblk = count_of(l, 0); /* PE 0's block is a largest one; same on all PEs */
    long start = start_of(l, me), count = count_of(l, me);

    /* maxblk may be 0 (n == 0): nvshmem_malloc(0) is NULL on every PE, no barrier. */
    int *blk = nvshmem_malloc((size_t)maxblk * sizeof(int));
    for (long k = 0; k < count; k++) blk[k] = value(start + k);
    nvshmem_barrier_all();

    long errors = 0;
    if (me == 0) {
        int *all = malloc((size_t)(n ? n : 1) * sizeof(int));
        long covered = 0;
        for (int pe = 0; pe < l.npes; pe++) {
            long s = start_of(l, pe), c = count_of(l, pe);
            if (s != covered) errors++; /* blocks must be contiguous, in order */
            if (c) nvshmem_int_get(all + s, blk, (size_t)c, pe);
            for (long k = 0; k < c; k++) errors += owner_of(l, s + k) != pe;
            covered = s + c;
        }
        errors += covered != n;
        for (long i = 0; i < n; i++) errors += all[i] != value(i);
        free(all);

        long naive = (n / l.npes) * l.npes; /* what the brief's loop covers */
        printf("N=%-5ld over %d PEs: blocks of %ld..%ld, all %ld elements placed once%s; "
               "N/npes blocks would drop %ld: %s\n",
               n, l.npes, count_of(l, l.npes - 1), maxblk, n,
               n < l.npes ? " (some PEs own none)" : "", n - naive, errors ? "FAIL" : "ok");
    }
    nvshmem_free(blk); /* starts with a barrier: PE 0 is done reading */
    return errors;
}

int main(void)
{
    nvshmem_init();
    int npes = nvshmem_n_pes();
    const long sizes[] = { 1, npes - 1, npes, npes + 1, 10, 1000, 1001, 1003 };
    long errors = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        if (sizes[k] > 0) errors += run(sizes[k]);

    /* Every PE exits with PE 0's verdict. */
    long *verdict = nvshmem_malloc(sizeof *verdict); /* ends with a barrier */
    if (nvshmem_my_pe() == 0) *verdict = errors;
    nvshmem_barrier_all();
    long v = nvshmem_long_g(verdict, 0);
    nvshmem_free(verdict);
    nvshmem_finalize();
    return v != 0;
}
