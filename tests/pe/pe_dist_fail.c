/* pe_dist_fail.c - misuse of the issue-4 calls must end the job with one
 * clear line (never hang, never corrupt), and a real segfault in a program
 * with lazy arrays must still crash with SIGSEGV.  One mode per run:
 *   pe_dist_fail MODE   (see the table in tests/pe/CMakeLists.txt) */
#include "pe_dist.h"

#include <string.h>

static uint64_t *volatile lazy; /* volatile: stored before the first touch */
static void self_reading_fill(void *out, size_t i, int pe, void *ctx)
{
    (void)ctx, (void)pe;
    *(uint64_t *)out = i ? lazy[i - 1] + 1 : 0; /* reads the block being filled */
}
static volatile uintptr_t bad_addr = 16; /* a real segfault; volatile: no -Warray-bounds */
static void fill_u64(void *out, size_t i, int pe, void *ctx)
{
    (void)ctx, (void)pe;
    *(uint64_t *)out = i;
}
static int pe_dependent_owner(size_t i, int npes, void *ctx)
{
    (void)ctx;
    return (int)((i + (size_t)shmem_my_pe()) % (size_t)npes);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (!strcmp(m, "segv")) { /* a real fault, outside every lazy array */
        lazy = shmemx_lazy_alloc(1000, 8, 0, SHMEMX_FILL_ELEM(fill_u64, NULL));
        if (lazy[999] != 999) return 2;
        if (me == np - 1) *(volatile int *)bad_addr = 1;
        shmem_barrier_all();
    } else if (!strcmp(m, "bad_layout")) {
        shmemx_dist_create(10, 8, (shmemx_layout_t){ 0, 0, NULL, NULL });
    } else if (!strcmp(m, "block_cyclic_0")) {
        shmemx_dist_create(10, 8, SHMEMX_LAYOUT_BLOCK_CYCLIC(0));
    } else if (!strcmp(m, "owner_mismatch")) {
        shmemx_dist_create(100, 8, SHMEMX_LAYOUT_USER(pe_dependent_owner, NULL));
    } else if (!strcmp(m, "range")) {
        shmemx_dist_t d = shmemx_dist_create(10, 8, SHMEMX_LAYOUT_CYCLIC);
        long buf[8];
        shmemx_dist_get(d, buf, 5, 8);
    } else if (!strcmp(m, "halo_width")) {
        shmemx_halo_create_1d(4, 8, 3, 0); /* 2 PEs: blocks of 2 */
    } else if (!strcmp(m, "halo_grid")) {
        int grid[2] = { 3, 3 };
        shmemx_halo_create_2d(10, 10, 8, 1, 0, grid);
    } else if (!strcmp(m, "lazy_recursion")) {
        lazy = shmemx_lazy_alloc(1000, 8, 0, SHMEMX_FILL_ELEM(self_reading_fill, NULL));
        return lazy[5] == 5 ? 3 : 4;
    } else if (!strcmp(m, "lazy_free_plain")) {
        void *p = shmem_malloc(4096);
        shmemx_lazy_free(p);
    } else if (!strcmp(m, "lazy_shmem_free")) { /* the heap's free on a lazy array */
        lazy = shmemx_lazy_alloc(1000, 8, 0, SHMEMX_FILL_ZERO);
        shmem_free(lazy);
    } else if (!strcmp(m, "lazy_shmem_realloc")) {
        lazy = shmemx_lazy_alloc(1000, 8, 0, SHMEMX_FILL_ZERO);
        shmem_realloc(lazy, 16000);
    } else if (!strcmp(m, "arena_double_free")) {
        shmemx_arena_t a = shmemx_arena_create(4096);
        shmemx_gptr_t g = shmemx_arena_alloc(a, 64, (me + 1) % np);
        shmemx_arena_free(a, g);
        shmemx_arena_free(a, g);
    } else if (!strcmp(m, "cache_line")) {
        shmemx_cache_create(1 << 20, 1000, SHMEMX_CACHE_MANUAL);
    } else if (!strcmp(m, "root")) {
        long *a = shmem_malloc(80);
        shmemx_init_root(a, 10, 8, SHMEMX_FILL_ZERO, np);
    } else {
        fprintf(stderr, "pe_dist_fail: unknown mode '%s'\n", m);
        return 2;
    }
    shmem_finalize();
    return 0;
}
