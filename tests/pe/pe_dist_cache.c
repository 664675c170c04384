/* pe_dist_cache.c - the local read cache for remote data (issue 4, brief
 * §4.4.3): hits and bytes saved are counted; UNTIL_BARRIER lines go stale at
 * the next barrier, MANUAL lines stay until invalidate/refresh; puts write
 * through; eviction keeps results right; own-PE reads bypass; lines are
 * clipped at the edge of the globals segment. */
#include "pe_dist.h"

#include <string.h>

#define N 8192 /* longs per PE: 64 KiB */
static long glob[300]; /* a symmetric global, near the segment's edge or not */
static int me, np;

static long v(long i, int pe, int round) { return i * 31 + pe * 1000003L + round * 7; }

static void fill(long *a, int round)
{
    for (long i = 0; i < N; i++) a[i] = v(i, me, round);
    for (long i = 0; i < 300; i++) glob[i] = v(i, me, round + 50);
}

static void check_range(shmemx_cache_t c, const long *a, long lo, long n, int pe, int round)
{
    long *buf = malloc((size_t)n * sizeof *buf);
    shmemx_cache_getmem(c, buf, a + lo, (size_t)n * sizeof *buf, pe);
    for (long i = 0; i < n; i++)
        CHECKF(buf[i] == v(lo + i, pe, round), "pe %d [%ld] = %ld want %ld (round %d)", pe, lo + i, buf[i], v(lo + i, pe, round), round);
    free(buf);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    int right = (me + 1) % np;
    long *a = shmem_malloc(N * sizeof *a);
    fill(a, 0);
    shmem_barrier_all();

    /* UNTIL_BARRIER: first read misses, the same read again hits. */
    shmemx_cache_t c = shmemx_cache_create(64 << 10, 1024, SHMEMX_CACHE_UNTIL_BARRIER);
    shmemx_cache_stats_t st;
    check_range(c, a, 5, 1000, right, 0);
    shmemx_cache_stats(c, &st);
    uint64_t m0 = st.misses;
    for (int rep = 0; rep < 10; rep++) check_range(c, a, 5, 1000, right, 0);
    shmemx_cache_stats(c, &st);
    if (np > 1) {
        CHECKF(st.misses == m0 && st.hits >= 10 * 8, "misses %llu hits %llu", (unsigned long long)st.misses, (unsigned long long)st.hits);
        CHECK(st.bytes_saved == 10 * 1000 * sizeof(long));
        CHECK(st.bytes_fetched == m0 * 1024);
    } else {
        CHECK(st.hits == 0 && st.misses == 0); /* own memory: bypass */
    }
    /* The neighbour rewrites its data; after the barrier we must see it. */
    shmem_barrier_all();
    fill(a, 1);
    shmem_barrier_all();
    check_range(c, a, 5, 1000, right, 1);
    shmemx_cache_stats(c, &st);
    if (np > 1) CHECK(st.invalidations >= 8);
    /* Globals: lines clipped at the segment's edges still serve right. */
    long g[300];
    shmemx_cache_getmem(c, g, glob, sizeof g, right);
    for (int i = 0; i < 300; i++) CHECK(g[i] == v(i, right, 51));
    /* Eviction: read 4x the capacity twice; contents stay right. */
    for (int rep = 0; rep < 2; rep++) check_range(c, a, 0, N, right, 1);
    shmemx_cache_destroy(c);

    /* MANUAL: stays valid across barriers until invalidated or refreshed. */
    c = shmemx_cache_create(128 << 10, 0, SHMEMX_CACHE_MANUAL);
    check_range(c, a, 100, 3000, right, 1);
    shmem_barrier_all();
    fill(a, 2);
    shmem_barrier_all();
    if (np > 1) check_range(c, a, 100, 3000, right, 1); /* stale on purpose */
    shmemx_cache_invalidate_range(c, a + 100, 8, right);  /* one line */
    long x;
    shmemx_cache_getmem(c, &x, a + 100, sizeof x, right);
    CHECK(x == v(100, right, 2));
    shmemx_cache_refresh(c);
    check_range(c, a, 100, 3000, right, 2);
    shmemx_cache_stats(c, &st);
    uint64_t misses = st.misses;
    check_range(c, a, 100, 3000, right, 2);
    shmemx_cache_stats(c, &st);
    CHECK(st.misses == misses); /* refresh re-fetched, so all hits */
    shmemx_cache_invalidate(c);
    check_range(c, a, 100, 3000, right, 2);

    /* Write-through: a put through the cache updates the cached line. */
    shmem_barrier_all();
    long put[10];
    int left = (me + np - 1) % np; /* each PE writes its left neighbour's a[200..210) */
    check_range(c, a, 0, 1024, left, 2);
    for (int i = 0; i < 10; i++) put[i] = -i - 1;
    shmemx_cache_putmem(c, a + 200, put, sizeof put, left);
    shmemx_cache_stats(c, &st);
    misses = st.misses;
    long back[10];
    shmemx_cache_getmem(c, back, a + 200, sizeof back, left);
    CHECK(memcmp(back, put, sizeof put) == 0);
    shmemx_cache_stats(c, &st);
    if (np > 1) CHECK(st.misses == misses);
    shmem_barrier_all();
    for (int i = 0; i < 10; i++) CHECK(a[200 + i] == -i - 1);
    shmemx_cache_destroy(c);
    shmem_barrier_all();
    if (me == 0) printf("pe_dist_cache: hits, staleness rules, write-through, eviction ok with %d PEs\n", np);
    shmem_free(a);
    shmem_finalize();
    return 0;
}
