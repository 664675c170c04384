/* pe_alloc.c - a long random sequence of collective malloc/align/realloc/free
 * (same seed everywhere) gives the same address on every PE at every step,
 * contents survive realloc, and calloc gives zeros even in reused memory. */
#include "pe_test.h"
#include <shmemx.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng = 12345;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

#define SLOTS 64

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    uintptr_t *seen = shmem_calloc((size_t)n, sizeof *seen);
    char *blk[SLOTS] = { 0 };
    size_t len[SLOTS] = { 0 };
    for (int step = 0; step < 1500; step++) {
        int s = (int)(next() % SLOTS), what = (int)(next() % 4);
        size_t sz = 1 + next() % (next() % 8 == 0 ? 1 << 20 : 512);
        if (!blk[s] || what == 0) {
            if (blk[s]) shmem_free(blk[s]);
            blk[s] = what == 1 ? shmem_align((size_t)64 << (next() % 8), sz)
                   : what == 2 ? shmem_calloc(1, sz) : shmem_malloc(sz);
            CHECK(blk[s]);
            if (what == 2)
                for (size_t i = 0; i < sz; i++) CHECKF(blk[s][i] == 0, "calloc byte %zu", i);
            len[s] = sz;
            memset(blk[s], (me + s) & 0xff, sz);
        } else if (what == 3) {
            char *p = shmem_realloc(blk[s], sz);
            CHECK(p);
            size_t keep = len[s] < sz ? len[s] : sz;
            for (size_t i = 0; i < keep; i += 61) CHECK(p[i] == (char)((me + s) & 0xff));
            blk[s] = p;
            len[s] = sz;
            memset(blk[s], (me + s) & 0xff, sz);
        } else {
            shmem_free(blk[s]);
            blk[s] = NULL;
        }
        if (step % 50 == 0 && blk[s]) {
            uintptr_t a = (uintptr_t)blk[s];
            shmem_putmem(&seen[me], &a, sizeof a, 0);
            shmem_barrier_all();
            if (me == 0)
                for (int p = 0; p < n; p++) CHECKF(seen[p] == a, "step %d PE %d", step, p);
            shmem_barrier_all();
        }
    }
    for (int s = 0; s < SLOTS; s++) shmem_free(blk[s]);
    shmem_free(seen);
    shmemx_heap_info_t hi;
    shmemx_heap_info(&hi);
    CHECK(hi.live_blocks == 0 && hi.used == 0);
    if (me == 0) printf("pe_alloc: ok with %d PEs, peak %zu bytes\n", n, hi.peak_used);
    shmem_finalize();
    return 0;
}
