/* pe_basic.c - same address on every PE, ring put/get, broadcast, atomics,
 * wait_until, realloc/calloc/align, shmem_ptr, heap info. */
#include "pe_test.h"
#include <shmemx.h>
#include <stdint.h>
#include <string.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int initialized = 0;
    shmem_query_initialized(&initialized);
    CHECK(initialized == 1);
    /* Regression (tests-sos shmem_info): the name equals SHMEM_VENDOR_STRING. */
    char name[SHMEM_MAX_NAME_LEN];
    int major, minor;
    shmem_info_get_name(name);
    shmem_info_get_version(&major, &minor);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION);

    /* Same address everywhere: each PE puts its pointer into PE 0's table. */
    uintptr_t *addrs = shmem_malloc((size_t)n * sizeof *addrs);
    long *buf = shmem_malloc(1024 * sizeof(long));
    CHECK(addrs && buf);
    uintptr_t mine = (uintptr_t)buf;
    shmem_putmem(&addrs[me], &mine, sizeof mine, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int i = 0; i < n; i++) CHECKF(addrs[i] == mine, "PE %d got %#lx, PE 0 %#lx", i,
                                          (unsigned long)addrs[i], (unsigned long)mine);
    CHECK(shmem_ptr(buf, me) == buf);
    CHECK(shmem_addr_accessible(buf, (me + 1) % n));
    int on_stack = 0;
    CHECK(!shmem_addr_accessible(&on_stack, 0));

    /* Ring: put to the right neighbour, get from the left one. */
    long src[1024];
    for (int i = 0; i < 1024; i++) src[i] = me * 100000L + i;
    shmem_long_put(buf, src, 1024, (me + 1) % n);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    for (int i = 0; i < 1024; i++) CHECK(buf[i] == left * 100000L + i);
    long got[1024];
    shmem_long_get(got, buf, 1024, left);
    int lleft = (left + n - 1) % n;
    for (int i = 0; i < 1024; i++) CHECK(got[i] == lleft * 100000L + i);
    CHECK(shmem_long_g(&buf[5], left) == lleft * 100000L + 5);
    shmem_barrier_all();

    /* Strided put: every 3rd element. */
    long strided[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    memset(buf, 0, 64 * sizeof(long));
    shmem_barrier_all();
    shmem_long_iput(buf, strided, 3, 1, 8, (me + 1) % n);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) CHECK(buf[3 * i] == i + 1 && buf[3 * i + 1] == 0);
    long back[4];
    shmem_long_iget(back, buf, 1, 6, 4, me);
    CHECK(back[0] == 1 && back[1] == 3 && back[2] == 5 && back[3] == 7);

    /* Broadcast from the last PE, root's dest updated too. */
    int root = n - 1;
    long bsrc[16], *bdst = shmem_malloc(16 * sizeof(long)), *bsym = shmem_malloc(16 * sizeof(long));
    for (int i = 0; i < 16; i++) bsym[i] = me == root ? 7000 + i : -1;
    memset(bdst, 0, 16 * sizeof(long));
    (void)bsrc;
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsym, 16, root) == 0);
    for (int i = 0; i < 16; i++) CHECK(bdst[i] == 7000 + i);

    /* Atomics: everybody adds to PE 0's counter. */
    long *counter = shmem_calloc(1, sizeof(long));
    CHECK(*counter == 0);
    shmem_barrier_all();
    for (int i = 0; i < 1000; i++) shmem_long_atomic_add(counter, 1, 0);
    long before = shmem_long_atomic_fetch_add(counter, 0, 0);
    CHECK(before >= 1000);
    shmem_barrier_all();
    if (me == 0) CHECK(*counter == 1000L * n);
    int *ic = shmem_calloc(1, sizeof(int));
    shmem_barrier_all();
    int prev = shmem_int_atomic_fetch_add(ic, 1, 0);
    CHECK(prev >= 0 && prev < n);
    shmem_barrier_all();
    if (me == 0) CHECK(*ic == n);

    /* Ping: PE 0 signals each PE, which waits. */
    long *flag = shmem_calloc(1, sizeof(long));
    if (me == 0)
        for (int p = 1; p < n; p++) shmem_long_p(flag, 42, p);
    else
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, 42);
    CHECK(me == 0 || shmem_long_test(flag, SHMEM_CMP_GE, 42));
    shmem_barrier_all();

    /* realloc keeps contents, same address everywhere; align honours alignment. */
    int *arr = shmem_malloc(100 * sizeof(int));
    for (int i = 0; i < 100; i++) arr[i] = i * me;
    arr = shmem_realloc(arr, 100000 * sizeof(int));
    CHECK(arr);
    for (int i = 0; i < 100; i++) CHECK(arr[i] == i * me);
    uintptr_t a = (uintptr_t)arr;
    shmem_putmem(&addrs[me], &a, sizeof a, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int i = 0; i < n; i++) CHECK(addrs[i] == a);
    void *al = shmem_align(1 << 21, 100);
    CHECK(al && ((uintptr_t)al & ((1 << 21) - 1)) == 0);
    CHECK(shmem_malloc(0) == NULL);
    shmem_free(NULL);

    shmemx_heap_info_t hi;
    CHECK(shmemx_heap_info(&hi) == 0);
    CHECK(hi.live_blocks >= 8 && hi.used > 0 && hi.used + hi.free == hi.size);

    shmem_free(al);
    shmem_free(arr);
    shmem_free(flag);
    shmem_free(ic);
    shmem_free(counter);
    shmem_free(bsym);
    shmem_free(bdst);
    shmem_free(buf);
    shmem_free(addrs);
    CHECK(shmemx_heap_info(&hi) == 0 && hi.live_blocks == 0);
    if (me == 0) printf("pe_basic: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
