/* pe_globals.c - global and static variables are symmetric: put, get and
 * atomics on them work, and data/bss contents survive shmem_init. */
#include "pe_test.h"
#include <shmemx.h>
#include <string.h>

long g_data[64] = { 1, 2, 3 };     /* .data */
static long g_bss[1 << 16];        /* .bss, 512 KiB */
static int g_counter;
static const char *g_str = "hello"; /* pointer in .data into .rodata */

int main(void)
{
    static long s_local = 5;
    g_bss[100] = 77; /* written before init: must survive the move */
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    CHECK(g_data[2] == 3 && g_bss[100] == 77 && s_local == 5 && strcmp(g_str, "hello") == 0);
    void *gb;
    size_t gs;
    shmemx_globals_range(&gb, &gs);
    CHECK(gb && gs >= sizeof g_bss && (char *)g_bss >= (char *)gb);
    CHECK(shmem_addr_accessible(&g_counter, (me + 1) % n));
    shmem_barrier_all(); /* everyone checked its own values before peers write */

    int to = (me + 1) % n, from = (me + n - 1) % n;
    long v = 1000 + me;
    shmem_long_put(&g_data[10], &v, 1, to);
    shmem_long_p(&g_bss[(1 << 16) - 1], 2000 + me, to);
    shmem_long_p(&s_local, 3000 + me, to);
    shmem_int_atomic_add(&g_counter, 1, 0);
    shmem_barrier_all();
    CHECK(g_data[10] == 1000 + from);
    CHECK(g_bss[(1 << 16) - 1] == 2000 + from);
    CHECK(s_local == 3000 + from);
    CHECK(shmem_long_g(&g_data[10], to) == 1000 + me);
    if (me == 0) CHECK(g_counter == n);
    long *peer = shmem_ptr(&g_data[10], to);
    CHECK(peer && *peer == 1000 + me);
    shmem_barrier_all();
    if (me == 0) printf("pe_globals: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
