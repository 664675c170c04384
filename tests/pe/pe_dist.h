/* pe_dist.h - helpers shared by the issue-4 tests (pe_dist_*.c): the sizes
 * every test runs (uneven on purpose), the layouts, and a sum over PEs. */
#ifndef PE_DIST_H
#define PE_DIST_H
#include "pe_test.h"

#include <shmemx.h>

/* N = 0, N < npes, N == npes, N % npes != 0, and some larger ones. */
static inline int pe_dist_sizes(size_t *out)
{
    int np = shmem_n_pes(), k = 0;
    size_t cand[] = { 0, 1, (size_t)np - 1, (size_t)np, (size_t)np + 1, 10, 1000, 1003, 4097 };
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= out[j] == cand[i];
        if (!dup) out[k++] = cand[i];
    }
    return k;
}

static int pe_dist_hash_owner(size_t i, int npes, void *ctx)
{
    (void)ctx;
    return (int)((i * 7 + i / 3) % (size_t)npes);
}

static int pe_dist_last_owner(size_t i, int npes, void *ctx)
{
    (void)i, (void)ctx;
    return npes - 1;
}

#define PE_DIST_NLAYOUTS 7
static inline shmemx_layout_t pe_dist_layout(int k, const char **name)
{
    static const char *names[PE_DIST_NLAYOUTS] = { "block", "cyclic", "block_cyclic(1)",
                                                   "block_cyclic(3)", "block_cyclic(64)",
                                                   "user(hash)", "user(all on last)" };
    *name = names[k];
    switch (k) {
    case 0: return SHMEMX_LAYOUT_BLOCK;
    case 1: return SHMEMX_LAYOUT_CYCLIC;
    case 2: return SHMEMX_LAYOUT_BLOCK_CYCLIC(1);
    case 3: return SHMEMX_LAYOUT_BLOCK_CYCLIC(3);
    case 4: return SHMEMX_LAYOUT_BLOCK_CYCLIC(64);
    case 5: return SHMEMX_LAYOUT_USER(pe_dist_hash_owner, NULL);
    default: return SHMEMX_LAYOUT_USER(pe_dist_last_owner, NULL);
    }
}

/* Sum of v over all PEs (every PE gets it).  Collective. */
static inline long pe_dist_sum(long v)
{
    static long slot; /* globals are symmetric */
    shmem_barrier_all();
    slot = v;
    shmem_barrier_all();
    long s = 0;
    for (int p = 0; p < shmem_n_pes(); p++) s += shmem_long_g(&slot, p);
    shmem_barrier_all();
    return s;
}
#endif
