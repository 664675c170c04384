/* demo.c - a short tour of symheap, meant for 4 PEs: `./dev demo`.
 *
 * 1. the symmetric heap starts at the same address on every PE, and so does
 *    every allocation;  2. a ring of puts;  3. a broadcast;  4. an atomic
 *    counter;  5. realloc;  6. free;  7. the heap report (shmemx_heap_info).
 * Each PE sends what it saw to PE 0, which prints it all in order (the
 * lines of different processes would otherwise interleave).  Every step is
 * checked; any failure makes every PE exit with status 1. */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>

#define TICKETS 100 /* counter increments per PE */
#define NB 8        /* doubles broadcast */

static int me, npes;
static uint64_t *table; /* symmetric, npes slots: PE 0's gathering area */
static int *bad;        /* symmetric: on PE 0, number of failed checks */

static void check(int ok, const char *what)
{
    if (ok) return;
    printf("PE %d: FAIL: %s\n", me, what);
    shmem_int_atomic_inc(bad, 0);
}

/* table[q] on PE 0 = v of PE q.  Collective. */
static void gather(uint64_t v)
{
    shmem_uint64_p(&table[me], v, 0);
    shmem_barrier_all();
}

/* 1 when every PE gave the same value to the last gather (PE 0 only). */
static int all_same(void)
{
    for (int q = 1; q < npes; q++)
        if (table[q] != table[0]) return 0;
    return 1;
}

static const char *yesno(int ok) { return ok ? "yes" : "NO"; }

/* "48 B", "1.0 MiB", "4.0 GiB" into buf. */
static const char *human(size_t n, char buf[32])
{
    const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4) { v /= 1024; u++; }
    snprintf(buf, 32, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    table = shmem_calloc((size_t)npes, sizeof *table);
    bad = shmem_calloc(1, sizeof *bad);
    char name[SHMEM_MAX_NAME_LEN];
    int major, minor;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    if (me == 0) printf("symheap demo: %d PEs, %s, OpenSHMEM %d.%d\n\n", npes, name, major, minor);

    /* 1. Same addresses everywhere. */
    shmemx_heap_info_t hi, start;
    shmemx_heap_info(&start);
    int *x = shmem_malloc(4096);
    gather((uint64_t)(uintptr_t)start.base);
    int base_same = me == 0 && all_same();
    if (me == 0) {
        printf("1. One symmetric heap, one address\n");
        for (int q = 0; q < npes; q++)
            printf("   PE %d: heap base %#llx\n", q, (unsigned long long)table[q]);
    }
    shmem_barrier_all(); /* PE 0 has read table */
    gather((uint64_t)(uintptr_t)x);
    if (me == 0) {
        int same = base_same && all_same();
        printf("   x = shmem_malloc(4096) = %p; same base and same x on all PEs: %s\n\n",
               (void *)x, yesno(same));
        check(same, "heap base or x differs between PEs");
    }
    check(shmem_ptr(x, me) == x, "shmem_ptr(x, me) != x");

    /* 2. Ring: PE p writes p into x[0] of PE p+1. */
    x[0] = -1;
    shmem_barrier_all();
    shmem_int_p(&x[0], me, (me + 1) % npes);
    shmem_barrier_all(); /* completes the puts and orders them before the reads */
    check(x[0] == (me + npes - 1) % npes, "ring: wrong value from the left PE");
    gather((uint64_t)x[0]);
    if (me == 0) {
        printf("2. Ring of puts: shmem_int_p(&x[0], me, (me + 1) %% npes)\n");
        for (int q = 0; q < npes; q++)
            printf("   PE %d: x[0] = %llu (from its left neighbour)\n", q,
                   (unsigned long long)table[q]);
        printf("\n");
    }

    /* 3. Broadcast NB doubles from PE 0. */
    double *src = shmem_malloc(NB * sizeof(double)), *dst = shmem_calloc(NB, sizeof(double));
    if (me == 0)
        for (int i = 0; i < NB; i++) src[i] = i + 0.5;
    shmem_double_broadcast(SHMEM_TEAM_WORLD, dst, src, NB, 0);
    double sum = 0;
    for (int i = 0; i < NB; i++) sum += dst[i];
    check(sum == NB * NB / 2.0, "broadcast: wrong data");
    gather((uint64_t)(sum * 10));
    if (me == 0) {
        printf("3. shmem_double_broadcast of %d doubles {0.5, 1.5, ..., %.1f} from PE 0\n", NB,
               NB - 0.5);
        printf("   sum on each PE: ");
        for (int q = 0; q < npes; q++) printf("%s%.1f", q ? ", " : "", table[q] / 10.0);
        printf(" (want %.1f)\n\n", NB * NB / 2.0);
    }

    /* 4. Atomic counter on PE 0; tickets must be unique. */
    long *counter = shmem_calloc(1, sizeof *counter);
    int *seen = shmem_calloc((size_t)npes * TICKETS, sizeof *seen);
    for (int t = 0; t < TICKETS; t++) {
        long ticket = shmem_long_atomic_fetch_add(counter, 1, 0);
        if (ticket >= 0 && ticket < (long)npes * TICKETS) shmem_int_atomic_inc(&seen[ticket], 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        int unique = 1;
        for (int i = 0; i < npes * TICKETS; i++) unique &= seen[i] == 1;
        printf("4. Atomic counter on PE 0: %d PEs x %d shmem_long_atomic_fetch_add(.., 1, 0)\n",
               npes, TICKETS);
        printf("   counter = %ld (want %d), every ticket handed out once: %s\n\n", *counter,
               npes * TICKETS, yesno(unique));
        check(*counter == (long)npes * TICKETS && unique, "atomic counter");
    }

    /* 5. realloc keeps contents and the address stays symmetric. */
    for (int i = 0; i < 1024; i++) x[i] = me * 10000 + i;
    int *old = x;
    x = shmem_realloc(x, 1 << 20); /* collective, 4 KiB -> 1 MiB */
    int kept = x != NULL;
    for (int i = 0; kept && i < 1024; i++) kept = x[i] == me * 10000 + i;
    check(kept, "realloc lost contents");
    gather((uint64_t)(uintptr_t)x);
    if (me == 0) {
        printf("5. x = shmem_realloc(x, 1 MiB): %s %p -> %p\n", x == old ? "in place," : "moved",
               (void *)old, (void *)x);
        printf("   same new address on all PEs: %s, first 4 KiB kept: %s\n\n", yesno(all_same()),
               yesno(kept));
        check(all_same(), "realloc gave different addresses");
    }
    shmem_barrier_all();

    /* 6. free, and 7. what the heap looks like. */
    shmemx_heap_info(&hi);
    size_t used_before = hi.used, live_before = hi.live_blocks;
    shmem_free(seen);
    shmem_free(counter);
    shmem_free(dst);
    shmem_free(src);
    shmem_free(x);
    shmemx_heap_info(&hi);
    check(hi.used == start.used && hi.live_blocks == start.live_blocks,
          "heap not back to where it started");
    if (me == 0) {
        printf("6. shmem_free of 5 blocks (collective, same address on every PE)\n");
        printf("   live blocks %zu -> %zu, used %zu -> %zu bytes\n\n", live_before,
               hi.live_blocks, used_before, hi.used);
        char b1[32], b2[32], b3[32];
        printf("7. shmemx_heap_info on PE 0\n");
        printf("   base %p, size %s (SHMEM_SYMMETRIC_SIZE)\n", hi.base, human(hi.size, b1));
        printf("   used %s, free %s, largest free block %s\n", human(hi.used, b1),
               human(hi.free, b2), human(hi.largest_free, b3));
        printf("   peak used %s, live blocks %zu\n\n", human(hi.peak_used, b1), hi.live_blocks);
    }

    shmem_barrier_all();
    int failed = shmem_int_g(bad, 0);
    if (me == 0) printf("%s\n", failed ? "demo: SOME CHECKS FAILED" : "demo: all checks passed");
    shmem_free(bad);
    shmem_free(table);
    shmem_finalize();
    return failed != 0;
}
