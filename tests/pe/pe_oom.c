/* pe_oom.c - with an 8 MiB heap: a too-large request returns NULL on every PE
 * (all-or-nothing), the heap stays intact and usable afterwards. */
#include "pe_test.h"
#include <shmemx.h>
#include <string.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    char *keep = shmem_malloc(1 << 20);
    CHECK(keep);
    memset(keep, 0x5a, 1 << 20);
    shmemx_heap_info_t before, after;
    shmemx_heap_info(&before);
    CHECK(shmem_malloc((size_t)64 << 20) == NULL);
    CHECK(shmem_calloc((size_t)1 << 40, 1 << 30) == NULL); /* overflow */
    CHECK(shmem_malloc((size_t)-1) == NULL);               /* absurd */
    CHECK(shmem_realloc(keep, (size_t)64 << 20) == NULL);  /* old block kept */
    shmemx_heap_info(&after);
    CHECK(after.used == before.used && after.live_blocks == before.live_blocks);
    for (int i = 0; i < (1 << 20); i += 4099) CHECK(keep[i] == 0x5a);
    /* fill the heap to the brim in 256 KiB blocks, then free all */
    void *blocks[64];
    int k = 0;
    while (k < 64 && (blocks[k] = shmem_malloc(256 << 10)) != NULL) k++;
    CHECK(k > 10 && k < 64);
    while (k > 0) shmem_free(blocks[--k]);
    char *again = shmem_malloc(4 << 20);
    CHECK(again);
    shmem_free(again);
    shmem_free(keep);
    if (me == 0) printf("pe_oom: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
