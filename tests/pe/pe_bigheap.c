/* pe_bigheap.c - a 64 GiB heap per PE on a smaller machine: reserving costs
 * nothing, a 32 GiB block can be allocated and its far end used. */
#include "pe_test.h"
#include <shmemx.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmemx_heap_info_t hi;
    shmemx_heap_info(&hi);
    CHECK(hi.size >= ((size_t)63 << 30));
    size_t big = (size_t)32 << 30;
    char *p = shmem_malloc(big);
    CHECK(p);
    /* touch a few pages only */
    for (size_t off = 0; off < big; off += (size_t)4 << 30) p[off] = (char)me;
    p[big - 1] = (char)(me + 1);
    shmem_barrier_all();
    CHECK(shmem_char_g(&p[big - 1], (me + 1) % n) == (char)((me + 1) % n + 1));
    char *q = shmem_calloc(1, (size_t)16 << 30);
    CHECK(q && q[((size_t)16 << 30) - 1] == 0);
    shmem_free(q);
    shmem_free(p);
    if (me == 0) printf("pe_bigheap: ok with %d PEs, heap %zu GiB each\n", n, hi.size >> 30);
    shmem_finalize();
    return 0;
}
