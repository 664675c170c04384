/* pe_reinit.c - repeated initialization (OpenSHMEM 1.6): nested
 * init/finalize pairs (an inner finalize only synchronizes), then several
 * sessions one after another (shmem_init after the last shmem_finalize).
 * Checks shmem_query_initialized/_finalized/_thread before, between and
 * after; shmem_pcontrol's level (1 again after each init); that a session's
 * heap works (ring put), starts empty, and calloc clears pages the previous
 * session dirtied; that a split team left alive by one session does not
 * disturb a team split in the next (same slot).  Any PE count. */
#include "pe_test.h"
#include <shmemx.h>
#include <string.h>

#define FAIL_IF(c)                                                                        \
    do {                                                                                  \
        if (c) {                                                                          \
            fprintf(stderr, "%s:%d: %s (outside a session)\n", __FILE__, __LINE__, #c);   \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define BIG (1 << 20)

static void ring(long tag)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *buf = shmem_malloc(sizeof(long));
    CHECK(buf);
    shmem_long_p(buf, tag * 100 + me, (me + 1) % n);
    shmem_barrier_all();
    CHECKF(*buf == tag * 100 + (me + n - 1) % n, "session %ld: got %ld", tag, *buf);
    shmem_free(buf);
}

static void session(int s)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int init = 0, fin = 1, prov = -1;
    shmem_query_initialized(&init);
    shmem_query_finalized(&fin);
    CHECK(init && !fin);
    shmem_query_thread(&prov);
    CHECK(prov == SHMEM_THREAD_SERIALIZED);
    CHECKF(shmemx_pcontrol_level() == 1, "pcontrol level %d at the start of session %d",
           shmemx_pcontrol_level(), s);
    shmem_pcontrol(0);
    CHECK(shmemx_pcontrol_level() == 0);
    ring(s);
    /* a fresh heap: nothing of the last session is allocated */
    shmemx_heap_info_t hi;
    CHECK(shmemx_heap_info(&hi) == 0 && hi.live_blocks == 0);
    /* calloc over pages the last session wrote must give zeros */
    unsigned char *z = shmem_calloc(BIG, 1);
    CHECK(z);
    for (size_t i = 0; i < BIG; i++) CHECKF(z[i] == 0, "session %d: calloc byte %zu = %#x", s, i, z[i]);
    memset(z, 0xab, BIG);
    shmem_free(z);
    /* a team of the even PEs; session 1 leaves it alive (finalize ends it) */
    shmem_team_t evens;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens) == 0);
    long *v = shmem_malloc(sizeof(long)), *sum = shmem_malloc(sizeof(long));
    CHECK(v && sum);
    *v = me + s;
    if (evens != SHMEM_TEAM_INVALID) {
        for (int k = 0; k < 3; k++) {
            CHECK(shmem_long_sum_reduce(evens, sum, v, 1) == 0);
            long want = 0;
            for (int p = 0; p < n; p += 2) want += p + s;
            CHECKF(*sum == want, "session %d: team sum %ld, want %ld", s, *sum, want);
            CHECK(shmem_team_sync(evens) == 0);
        }
        if (s != 1) shmem_team_destroy(evens);
    }
    shmem_barrier_all();
    shmem_free(v);
    shmem_free(sum);
}

int main(void)
{
    int init = 1, fin = 1, prov = -1;
    shmem_query_initialized(&init);
    shmem_query_finalized(&fin);
    shmem_query_thread(&prov);
    FAIL_IF(init || fin || prov != SHMEM_THREAD_SINGLE);

    /* nested: init_thread, init; two finalizes, the inner one a barrier */
    CHECK(shmem_init_thread(SHMEM_THREAD_SERIALIZED, &prov) == 0);
    CHECK(prov == SHMEM_THREAD_SERIALIZED);
    shmem_init();
    shmem_query_thread(&prov);
    CHECK(prov == SHMEM_THREAD_SERIALIZED);
    shmem_pcontrol(3, "tool-defined", 42);
    CHECK(shmemx_pcontrol_level() == 3);
    ring(0);
    shmem_finalize();
    shmem_query_initialized(&init);
    CHECK(init); /* still in the session */
    ring(0);
    shmem_finalize();
    shmem_query_initialized(&init);
    shmem_query_finalized(&fin);
    shmem_query_thread(&prov);
    FAIL_IF(init || !fin || prov != SHMEM_THREAD_SERIALIZED);

    for (int s = 1; s <= 3; s++) {
        CHECK(shmem_init_thread(SHMEM_THREAD_SERIALIZED, &prov) == 0 && prov == SHMEM_THREAD_SERIALIZED);
        session(s);
        shmem_finalize();
        shmem_query_initialized(&init);
        FAIL_IF(init);
    }
    printf("pe_reinit: ok\n");
    return 0;
}
