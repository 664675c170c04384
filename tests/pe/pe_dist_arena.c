/* pe_dist_arena.c - affinity allocation (issue 4, brief §4.4.1): after one
 * collective arena, any PE allocates in any PE's part without a collective
 * call and hands out global pointers that every PE reads and writes; frees
 * from another PE; many PEs and threads allocate in one part at once; a full
 * part gives SHMEMX_GPTR_NULL; everything freed leaves one free block. */
#include "pe_dist.h"

#include <pthread.h>
#include <string.h>

#define PART (256 << 10)
#define K 16
static shmemx_gptr_t table[256][K]; /* symmetric: PE p's allocations, on PE 0 */
static int me, np;
static shmemx_arena_t arena;

static void pattern(unsigned char *b, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(seed * 131 + i * 7);
}
static size_t size_of(int pe, int k) { return (size_t)(1 + (pe * 37 + k * 101) % 700); }

static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++) {
        shmemx_gptr_t g[4];
        for (int k = 0; k < 4; k++) {
            g[k] = shmemx_arena_alloc(arena, (size_t)(16 + (i * 7 + k * 13) % 200), 0);
            CHECK(g[k] != SHMEMX_GPTR_NULL);
            unsigned char *p = shmemx_gptr_local(g[k]);
            memset(p, me, 16);
        }
        for (int k = 0; k < 4; k++) {
            unsigned char *p = shmemx_gptr_local(g[k]);
            for (int j = 0; j < 16; j++) CHECK(p[j] == me);
            shmemx_arena_free(arena, g[k]);
        }
    }
    return NULL;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    CHECK(np <= 256);
    arena = shmemx_arena_create(PART);
    CHECK(arena != NULL);
    shmemx_arena_stats_t st;
    shmemx_arena_stats(arena, me, &st);
    CHECK(st.used == 0 && st.blocks == 0 && st.largest_free >= PART);
    shmem_barrier_all(); /* before anyone allocates in our part */

    /* Each PE allocates K blocks on PE (me + k) % np, writes them, and
     * publishes the global pointers in PE 0's table. */
    shmemx_gptr_t mine[K];
    for (int k = 0; k < K; k++) {
        int target = (me + k) % np;
        size_t n = size_of(me, k);
        mine[k] = shmemx_arena_alloc(arena, n, target);
        CHECK(mine[k] != SHMEMX_GPTR_NULL && shmemx_gptr_pe(mine[k]) == target);
        CHECK((uintptr_t)shmemx_gptr_addr(mine[k]) % 16 == 0);
        unsigned char buf[700];
        pattern(buf, n, (uint64_t)(me * K + k));
        shmemx_gptr_put(mine[k], buf, n);
    }
    shmem_putmem(table[me], mine, sizeof mine, 0);
    shmem_barrier_all();
    /* Everybody reads everybody's blocks. */
    for (int p = 0; p < np; p++) {
        shmemx_gptr_t g[K];
        shmem_getmem(g, table[p], sizeof g, 0);
        for (int k = 0; k < K; k++) {
            size_t n = size_of(p, k);
            unsigned char got[700], want[700];
            shmemx_gptr_get(got, g[k], n);
            pattern(want, n, (uint64_t)(p * K + k));
            CHECKF(memcmp(got, want, n) == 0, "block %d of PE %d on PE %d", k, p, shmemx_gptr_pe(g[k]));
            unsigned char *direct = shmemx_gptr_local(g[k]);
            CHECK(direct && memcmp(direct, want, n) == 0);
        }
    }
    shmem_barrier_all();
    /* Free the blocks the left neighbour allocated (another PE's frees). */
    int left = (me + np - 1) % np;
    shmemx_gptr_t g[K];
    shmem_getmem(g, table[left], sizeof g, 0);
    for (int k = 0; k < K; k++) shmemx_arena_free(arena, g[k]);
    shmemx_arena_free(arena, SHMEMX_GPTR_NULL);
    shmem_barrier_all();
    shmemx_arena_stats(arena, me, &st);
    CHECKF(st.used == 0 && st.blocks == 0 && st.largest_free >= PART, "used %zu blocks %zu largest %zu", st.used, st.blocks, st.largest_free);
    shmem_barrier_all(); /* checked before anyone churns on PE 0's part */

    /* Every PE, 2 threads each, churns on PE 0's part at once. */
    pthread_t th[2];
    for (long t = 0; t < 2; t++) pthread_create(&th[t], NULL, churn, NULL);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    shmem_barrier_all();
    shmemx_arena_stats(arena, 0, &st);
    CHECKF(st.used == 0 && st.largest_free >= PART, "after churn: used %zu largest %zu", st.used, st.largest_free);

    /* Fill PE me's part until NULL, then free everything. */
    shmem_barrier_all();
    shmemx_gptr_t *all = malloc(PART / 32 * sizeof *all);
    size_t count = 0;
    while ((all[count] = shmemx_arena_alloc(arena, 100, me)) != SHMEMX_GPTR_NULL) count++;
    CHECKF(count == PART / 128 || count == PART / 128 + 1, "%zu blocks of 100 (+16) in %d bytes", count, PART);
    CHECK(shmemx_arena_alloc(arena, PART * 2, me) == SHMEMX_GPTR_NULL);
    for (size_t i = count; i-- > 0;) shmemx_arena_free(arena, all[i]);
    shmemx_arena_stats(arena, me, &st);
    CHECK(st.used == 0 && st.largest_free >= PART);
    free(all);
    shmemx_arena_destroy(arena);
    if (me == 0) printf("pe_dist_arena: cross-PE alloc/free, global pointers, contention, exhaustion ok with %d PEs\n", np);
    shmem_finalize();
    return 0;
}
