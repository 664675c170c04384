/* dist_arena.c - "keep data on the PE that uses it most" (brief §4.4.1)
 * without the brief's `if (my_pe == 0) nvshmem_malloc(...)`, which cannot
 * work: symmetric allocation is collective (symheap stops such a program
 * with "collective mismatch").
 *
 * One collective call reserves an arena on every PE.  Afterwards any PE
 * allocates, without a collective, in the part of the PE that will use the
 * data, and passes a global pointer (PE, address) around.  Here every PE
 * produces a result record for PE 0 (the consumer): it allocates the record
 * in PE 0's part, writes it there, and publishes the global pointer; PE 0
 * then reads all records with plain local loads.
 * Run: symrun -n 4 ./dist_arena */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <string.h>

struct result { int producer; double values[32]; };
static shmemx_gptr_t slot[1024]; /* symmetric: where each producer's record is */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_arena_t arena = shmemx_arena_create(64 << 10); /* collective, once */

    /* Non-collective: allocate in the consumer's (PE 0's) part. */
    shmemx_gptr_t g = shmemx_arena_alloc(arena, sizeof(struct result), 0);
    struct result r = { me, { 0 } };
    for (int k = 0; k < 32; k++) r.values[k] = me * 100.0 + k;
    shmemx_gptr_put(g, &r, sizeof r);           /* the data goes to PE 0's memory */
    shmem_uint64_p((uint64_t *)&slot[me], g, 0); /* the pointer too */
    shmem_barrier_all();

    static int errors;
    if (me == 0) {
        for (int p = 0; p < npes; p++) {
            const struct result *rec = shmemx_gptr_local(slot[p]); /* local memory on PE 0 */
            errors += shmemx_gptr_pe(slot[p]) != 0 || rec->producer != p;
            for (int k = 0; k < 32; k++) errors += rec->values[k] != p * 100.0 + k;
            shmemx_arena_free(arena, slot[p]); /* any PE may free */
        }
        shmemx_arena_stats_t st;
        shmemx_arena_stats(arena, 0, &st);
        printf("arena: %d producers each placed a %zu-byte record in PE 0's memory without a "
               "collective call; PE 0 read them locally and freed them (%zu bytes in use now): "
               "%s\n", npes, sizeof(struct result), st.used, errors ? "FAIL" : "ok");
    }
    shmem_barrier_all();
    int verdict = shmem_int_g(&errors, 0);
    shmemx_arena_destroy(arena);
    shmem_finalize();
    return verdict != 0;
}
