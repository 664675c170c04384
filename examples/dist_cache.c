/* dist_cache.c - "copy remote data that is read often to local memory"
 * (brief §4.4.3) with a read cache instead of hand-made copies.
 *
 * Each PE owns a slice of a lookup table; every PE looks up random entries
 * many times.  Reads through the cache fetch each remote line once; the
 * counters say how many remote reads were saved.  The staleness rule
 * SHMEMX_CACHE_UNTIL_BARRIER drops lines at the next barrier, so after the
 * owners update the table and barrier, readers see the new values.
 * Run: symrun -n 4 ./dist_cache */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>

#define SLICE 4096 /* entries per PE */
#define LOOKUPS 20000

static long table[SLICE]; /* symmetric global: this PE's slice */

static long entry(long g, int version) { return g * 3 + version * 100000; }

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long n = (long)SLICE * npes, bad = 0;
    for (long k = 0; k < SLICE; k++) table[k] = entry(me * SLICE + k, 0);
    shmem_barrier_all();

    shmemx_cache_t c = shmemx_cache_create(256 << 10, 512, SHMEMX_CACHE_UNTIL_BARRIER);
    unsigned long x = 12345 + (unsigned long)me;
    for (int version = 0; version < 2; version++) {
        for (int k = 0; k < LOOKUPS; k++) {
            x = x * 6364136223846793005ul + 1442695040888963407ul;
            long g = (long)((x >> 17) % (unsigned long)n), v;
            shmemx_cache_getmem(c, &v, &table[g % SLICE], sizeof v, (int)(g / SLICE));
            bad += v != entry(g, version);
        }
        shmem_barrier_all(); /* everyone is done reading version 0 */
        for (long k = 0; k < SLICE; k++) table[k] = entry(me * SLICE + k, version + 1);
        shmem_barrier_all(); /* ...and the cache's lines are stale from here */
    }
    shmemx_cache_stats_t st;
    shmemx_cache_stats(c, &st);
    static long errors;
    shmem_long_atomic_add(&errors, bad, 0);
    shmem_barrier_all();
    printf("PE %d: %d lookups, %llu line hits, %llu misses, %llu KiB fetched, %llu KiB of "
           "remote reads saved\n", me, 2 * LOOKUPS, (unsigned long long)st.hits,
           (unsigned long long)st.misses, (unsigned long long)st.bytes_fetched >> 10,
           (unsigned long long)st.bytes_saved >> 10);
    shmem_barrier_all();
    if (me == 0) printf("read cache: values right across an update + barrier: %s\n", errors ? "FAIL" : "ok");
    long verdict = shmem_long_g(&errors, 0);
    shmemx_cache_destroy(c);
    shmem_finalize();
    return verdict != 0;
}
