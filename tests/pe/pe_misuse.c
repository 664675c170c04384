#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* pe_misuse.c MODE - one misuse per mode; the test harness (expect_fail.sh)
 * checks that the job ends non-zero with the expected one-line message and
 * does not hang. */
#include "pe_test.h"
#include <shmemx.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "before_init")) return shmem_my_pe();
    if (!strcmp(m, "bad_env")) setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
    if (!strcmp(m, "deadlock") || !strcmp(m, "stopped")) {
        setenv("SHMEM_WATCHDOG", "2", 0); /* the caller's settings win */
        setenv("SHMEM_WATCHDOG_ABORT", "1", 0);
    }
    if (!strcmp(m, "use_after_free") || !strcmp(m, "uaf_evict")) setenv("SHMEM_CHECKS", "full", 1);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *sym = shmem_malloc(16 * sizeof(long));
    long local[16] = { 0 };
    if (!strcmp(m, "put_malloc")) {
        long *heap = malloc(64);
        shmem_putmem(heap, local, 8, (me + 1) % n);
    } else if (!strcmp(m, "get_stack")) {
        shmem_long_get(local, local, 4, (me + 1) % n);
    } else if (!strcmp(m, "free_malloc")) {
        shmem_free(malloc(32));
    } else if (!strcmp(m, "double_free")) {
        shmem_free(sym);
        shmem_free(sym);
    } else if (!strcmp(m, "interior_free")) {
        shmem_free((char *)sym + 8);
    } else if (!strcmp(m, "bad_pe")) {
        shmem_long_p(sym, 1, 7);
    } else if (!strcmp(m, "neg_pe")) {
        if (me == n - 1) shmem_long_g(sym, -1);
        shmem_barrier_all();
    } else if (!strcmp(m, "ptr_malloc")) {
        shmem_ptr(malloc(8), 0);
    } else if (!strcmp(m, "size_mismatch")) {
        shmem_malloc(me == 0 ? 1024 : 2048);
    } else if (!strcmp(m, "one_pe_alloc")) {
        /* the brief's "good" placement example: allocate on one PE only */
        if (me == 0) shmem_malloc(4096);
        shmem_barrier_all();
        shmem_free(sym);
    } else if (!strcmp(m, "free_mismatch")) {
        long *other = shmem_malloc(64);
        shmem_free(me == 1 ? other : sym);
    } else if (!strcmp(m, "overrun")) {
        char *end = (char *)sym;
        while (shmem_addr_accessible(end + 4096, 0)) end += 4096;
        while (shmem_addr_accessible(end + 1, 0)) end += 1;
        shmem_putmem(end - 7, local, 16, 0);
    } else if (!strcmp(m, "huge_count")) {
        shmem_long_put(sym, local, (size_t)-1 / 4, 0);
    } else if (!strcmp(m, "after_finalize")) {
        shmem_finalize();
        shmem_long_p(sym, 1, 0);
    } else if (!strcmp(m, "bad_align")) {
        shmem_align(48, 100);
    } else if (!strcmp(m, "peer_ptr")) {
        long *p = shmem_ptr(sym, (me + 1) % n);
        shmem_long_p(p, 1, 0);
    } else if (!strcmp(m, "global_exit")) {
        if (me == 1) shmem_global_exit(3);
        shmem_barrier_all(); /* the others would wait forever */
        shmem_barrier_all();
    } else if (!strcmp(m, "overflow_free")) {
        ((char *)sym)[16 * sizeof(long) + 3] = 1; /* 4 bytes past the end */
        shmem_free(sym);
    } else if (!strcmp(m, "underflow_realloc")) {
        ((char *)sym)[-2] = 1;
        shmem_realloc(sym, 4096);
    } else if (!strcmp(m, "overflow_finalize")) {
        if (me == 0) sym[16] = 7;
    } else if (!strcmp(m, "remote_overflow")) {
        /* PE 1 writes 8 longs from element 12: the last 4 land past PE 0's block */
        if (me == 1) shmem_long_put(&sym[12], local, 8, 0);
        shmem_barrier_all();
        shmem_free(sym);
    } else if (!strcmp(m, "use_after_free")) {
        shmem_free(sym);
        sym[3] = 42; /* write after free */
        if (shmemx_heap_check() != 0) shmem_global_exit(1);
    } else if (!strcmp(m, "uaf_evict")) {
        shmem_free(sym);
        sym[0] = 1;
        for (int i = 0; i < 70; i++) shmem_free(shmem_malloc(64)); /* pushes sym out of quarantine */
    } else if (!strcmp(m, "deadlock")) {
        /* PE 0 waits for a flag nobody sets while the others sit in a barrier */
        if (me == 0) shmem_long_wait_until(&sym[0], SHMEM_CMP_EQ, 5);
        shmem_barrier_all();
    } else if (!strcmp(m, "stopped")) {
        /* the last PE stops itself (SIGSTOP) while the others wait for it in a
         * barrier: the watchdog must say stopped, not computing */
        shmem_barrier_all();
        if (me == n - 1) raise(SIGSTOP);
        shmem_barrier_all();
    } else if (!strcmp(m, "malloc_vs_barrier")) { /* issue 3: named at the barrier itself */
        if (me == 0) shmem_malloc(64);
        else shmem_barrier_all();
        shmem_barrier_all(); /* not reached: the barrier above already stops the job */
    } else if (!strcmp(m, "malloc_vs_finalize")) { /* the last PE allocates, the rest are done */
        if (me == n - 1) shmem_malloc(64);
    } else if (!strcmp(m, "bcast_vs_sync")) {
        if (me == 0) shmem_long_broadcast(SHMEM_TEAM_WORLD, sym, sym + 8, 4, 0);
        else shmem_sync_all();
    } else if (!strcmp(m, "size_mismatch_mid")) { /* rank 0 agrees with most: PE 2 does not */
        shmem_malloc(me == 2 ? 2048 : 1024);
    } else if (!strcmp(m, "fcollect_small")) { /* dest sized for one PE's part only */
        long *d = shmem_malloc(4 * sizeof(long));
        shmem_long_fcollect(SHMEM_TEAM_WORLD, d, sym, 4);
    } else if (!strcmp(m, "heap_check_ok")) {
        if (shmemx_heap_check() != 0) return 3;
        shmem_free(sym);
        shmem_finalize();
        return 9; /* expect_fail wants non-zero: 9 means "check passed" */
    } else {
        fprintf(stderr, "pe_misuse: unknown mode '%s'\n", m);
        return 2;
    }
    shmem_finalize();
    return 0; /* reaching here means the misuse went unnoticed */
}
