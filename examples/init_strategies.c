/* init_strategies.c - the four initialization strategies of the brief (§4.3),
 * each in its plain form, each checked:
 *
 *   1. local:       every PE fills its own copy (e.g. with its PE number);
 *   2. root+bcast:  PE 0 fills, one broadcast gives every PE the same data;
 *   3. distributed: a global array is split into one block per PE and each PE
 *                   fills only the block it owns (any N, remainder included);
 *   4. lazy:        a sparse array whose blocks are filled on first use, by
 *                   whichever PE touches a block first, guarded by a per-block
 *                   "initialized" flag that lives next to the block.
 *
 * PE 0 prints one line per strategy; any wrong value makes the exit status 1.
 * Run: symrun -n 4 ./init_strategies */
#include <nvshmem.h>

#include <stdio.h>
#include <stdlib.h>

#define N 1000        /* strategies 1 and 2: a replicated array */
#define GLOBAL_N 1003 /* strategy 3: distributed; 1003 % 4 != 0 on purpose */
#define NBLOCKS 32    /* strategy 4: blocks of the lazy array ... */
#define BS 128        /* ... of BS ints each */

static int compute(long i) { return (int)(i * 7 + 1); }

static int me, npes;
static int *errs; /* symmetric, errs[s] on PE 0 sums the errors of strategy s */

/* Add this PE's error count for strategy s; afterwards PE 0 knows the sum. */
static void report(int s, long local_errors)
{
    nvshmem_int_atomic_add(&errs[s], (int)local_errors, 0);
    nvshmem_barrier_all();
}

static void local_fill(void)
{
    int *data = (int *)nvshmem_malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        data[i] = nvshmem_my_pe(); /* each PE writes its own number */
    nvshmem_barrier_all();
    /* Check our copy, and that our right neighbour's copy holds its number. */
    long bad = 0;
    int right = (me + 1) % npes;
    for (int i = 0; i < N; i++) bad += data[i] != me;
    bad += nvshmem_int_g(&data[N / 2], right) != right;
    report(0, bad);
    if (me == 0)
        printf("1. local fill:        each PE wrote its PE number into its own %d ints: %s\n",
               N, errs[0] ? "FAIL" : "ok");
    nvshmem_free(data);
}

static void root_broadcast(void)
{
    int *data = (int *)nvshmem_malloc(N * sizeof(int));
    int *init = (int *)nvshmem_malloc(N * sizeof(int)); /* broadcast source: symmetric */
    if (me == 0)
        for (int i = 0; i < N; i++) init[i] = i;
    /* The brief puts a barrier here; broadcast needs none (only PE 0 reads
     * init), but a put/get form of this strategy would. */
    nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, data, init, N, 0);
    long bad = 0;
    for (int i = 0; i < N; i++) bad += data[i] != i;
    report(1, bad);
    if (me == 0)
        printf("2. root + broadcast:  PE 0 filled %d ints, broadcast to %d PEs: %s\n", N, npes,
               errs[1] ? "FAIL" : "ok");
    nvshmem_free(init);
    nvshmem_free(data);
}

/* Block distribution for any n: the first n % npes PEs get one extra element. */
static long block_count(long n, int pe) { return n / npes + (pe < n % npes); }
static long block_start(long n, int pe)
{ return pe * (n / npes) + (pe < n % npes ? pe : n % npes); }

static void distributed_fill(void)
{
    long maxblk = block_count(GLOBAL_N, 0); /* same on every PE: allocation is collective */
    int *blk = (int *)nvshmem_malloc((size_t)maxblk * sizeof(int));
    long start = block_start(GLOBAL_N, me), count = block_count(GLOBAL_N, me);
    for (long k = 0; k < count; k++) /* only the block this PE owns */
        blk[k] = compute(start + k);
    nvshmem_barrier_all();
    /* Every PE assembles the whole array from the owners and checks it. */
    int *all = malloc(GLOBAL_N * sizeof(int));
    for (int pe = 0; pe < npes; pe++)
        nvshmem_int_get(all + block_start(GLOBAL_N, pe), blk,
                        (size_t)block_count(GLOBAL_N, pe), pe);
    long bad = 0;
    for (long i = 0; i < GLOBAL_N; i++) bad += all[i] != compute(i);
    free(all);
    report(2, bad);
    if (me == 0)
        printf("3. distributed fill:  %d elements, each PE filled only its block "
               "(%ld or %ld): %s\n", GLOBAL_N, block_count(GLOBAL_N, npes - 1), maxblk,
               errs[2] ? "FAIL" : "ok");
    nvshmem_free(blk);
}

/* Lazy: block b lives on PE b % npes, in slot b / npes.  Its flag goes
 * EMPTY -> BUSY (one PE won the compare-and-swap and is filling) -> READY. */
enum { EMPTY = 0, BUSY = 1, READY = 2 };

static int touches(int pe, int b) { return b == 5 || (b * 7 + pe * 3) % 8 == 0; }

/* Make block b usable and copy it into out; returns 1 if this PE filled it. */
static int lazy_use(int *lazy, int *flags, int b, int *out)
{
    int owner = b % npes, slot = b / npes, filled = 0;
    if (nvshmem_int_atomic_compare_swap(&flags[slot], EMPTY, BUSY, owner) == EMPTY) {
        for (int k = 0; k < BS; k++) out[k] = compute((long)b * BS + k);
        nvshmem_int_put(&lazy[slot * BS], out, BS, owner);
        nvshmem_quiet(); /* the data lands before the flag says READY */
        nvshmem_int_atomic_set(&flags[slot], READY, owner);
        filled = 1;
    } else {
        while (nvshmem_int_atomic_fetch(&flags[slot], owner) != READY)
            ; /* another PE is filling it right now */
    }
    nvshmem_int_get(out, &lazy[slot * BS], BS, owner);
    return filled;
}

static void lazy_fill(void)
{
    int slots = (NBLOCKS + npes - 1) / npes;
    int *lazy = (int *)nvshmem_malloc((size_t)slots * BS * sizeof(int));
    int *flags = (int *)nvshmem_calloc((size_t)slots, sizeof(int)); /* all EMPTY */
    int *fills = (int *)nvshmem_calloc(1, sizeof(int));
    int out[BS];
    long bad = 0;
    for (int b = 0; b < NBLOCKS; b++) {
        if (!touches(me, b)) continue;
        nvshmem_int_atomic_add(fills, lazy_use(lazy, flags, b, out), 0);
        for (int k = 0; k < BS; k++) bad += out[k] != compute((long)b * BS + k);
    }
    nvshmem_barrier_all();
    /* Touched blocks are READY, untouched ones were never filled. */
    int touched = 0;
    for (int b = 0; b < NBLOCKS; b++) {
        int any = 0;
        for (int pe = 0; pe < npes; pe++) any |= touches(pe, b);
        touched += any;
        if (b % npes == me) bad += flags[b / npes] != (any ? READY : EMPTY);
    }
    if (me == 0) bad += *fills != touched; /* each touched block filled exactly once */
    report(3, bad);
    if (me == 0)
        printf("4. lazy fill:         %d blocks, %d touched and filled once each (%d fills), "
               "%d never filled: %s\n", NBLOCKS, touched, *fills, NBLOCKS - touched,
               errs[3] ? "FAIL" : "ok");
    nvshmem_free(fills);
    nvshmem_free(flags);
    nvshmem_free(lazy);
}

int main(void)
{
    nvshmem_init();
    me = nvshmem_my_pe();
    npes = nvshmem_n_pes();
    errs = (int *)nvshmem_calloc(4, sizeof(int));

    local_fill();
    root_broadcast();
    distributed_fill();
    lazy_fill();

    int total = 0;
    for (int s = 0; s < 4; s++) total += nvshmem_int_g(&errs[s], 0);
    nvshmem_free(errs);
    nvshmem_finalize();
    return total != 0;
}
