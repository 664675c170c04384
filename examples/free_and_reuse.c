/* free_and_reuse.c - releasing symmetric memory (brief §4.5).
 *
 * nvshmem_free is collective: every PE calls it with the same address (it
 * starts with a barrier, so nobody frees memory another PE still uses).
 * This program shows that freed space is reused, that the heap returns to
 * where it started (shmemx_heap_info), and why a forgotten free matters: big
 * blocks that are freed can be allocated again and again, while leaked ones
 * soon make nvshmem_malloc return NULL (on every PE at once; the library also
 * prints why on stderr).
 * Run: symrun -n 4 ./free_and_reuse */
#include <nvshmem.h>
#include <nvshmemx.h> /* shmemx_heap_info */

#include <stdio.h>

#define MIB ((size_t)1 << 20)
#define ROUNDS 8

static int errors;
#define CHECK(c, ...)                                                        \
    do {                                                                     \
        if (!(c)) {                                                          \
            printf("PE %d: FAIL: %s: ", nvshmem_my_pe(), #c);                \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
            errors++;                                                        \
        }                                                                    \
    } while (0)

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe();
    shmemx_heap_info_t start, now;
    shmemx_heap_info(&start);

    /* 1. Free a block, allocate the same size again: the space is reused. */
    char *a = nvshmem_malloc(MIB), *b = nvshmem_malloc(MIB);
    char *old_a = a;
    nvshmem_free(a);
    a = NULL; /* the brief's good habit: no dangling pointer */
    char *c = nvshmem_malloc(MIB);
    nvshmem_free(NULL); /* does nothing, on every PE */
    if (me == 0)
        printf("free + malloc of the same size: %s (%p, then %p)\n",
               c == old_a ? "the freed block was reused" : "placed elsewhere",
               (void *)old_a, (void *)c);
    nvshmem_free(c);
    nvshmem_free(b);
    shmemx_heap_info(&now);
    CHECK(now.used == start.used && now.live_blocks == start.live_blocks,
          "used %zu -> %zu, live blocks %zu -> %zu", start.used, now.used,
          start.live_blocks, now.live_blocks);

    /* 2. Blocks of a third of the heap: freed each time, they never run out. */
    size_t chunk = start.largest_free / 3 / MIB * MIB;
    int rounds = 0;
    for (int r = 0; r < ROUNDS; r++) {
        char *p = nvshmem_malloc(chunk);
        if (!p) break;
        p[chunk - 1] = (char)r; /* usable: touch its last byte */
        nvshmem_free(p);
        rounds++;
    }
    CHECK(rounds == ROUNDS, "only %d of %d malloc+free rounds worked", rounds, ROUNDS);

    /* 3. The same blocks, leaked: allocation fails after a few (and the
     * library says why on stderr; flush ours first to keep them in order). */
    fflush(stdout);
    char *leaked[ROUNDS];
    int held = 0;
    while (held < ROUNDS && (leaked[held] = nvshmem_malloc(chunk)) != NULL) held++;
    int fit = held;
    CHECK(fit >= 2 && fit < ROUNDS, "%d leaked blocks of %zu MiB fit", fit, chunk / MIB);
    while (held > 0) nvshmem_free(leaked[--held]); /* same order on every PE */

    shmemx_heap_info(&now);
    CHECK(now.used == start.used && now.live_blocks == start.live_blocks,
          "heap not back to its start: used %zu -> %zu", start.used, now.used);
    if (me == 0)
        printf("%d rounds of malloc+free of %zu MiB worked; leaked instead, allocation "
               "%d returned NULL; after freeing, %zu bytes used as at start: %s\n",
               rounds, chunk / MIB, fit + 1, now.used, errors ? "FAIL" : "ok");

    /* Exit status: every PE fails if any PE saw an error. */
    int *bad = nvshmem_calloc(1, sizeof *bad);
    if (errors) nvshmem_int_atomic_inc(bad, 0);
    nvshmem_barrier_all();
    int failed = nvshmem_int_g(bad, 0) != 0;
    nvshmem_free(bad);
    nvshmem_finalize();
    return failed;
}
