/* pe_team_misuse.c MODE - one misuse of teams or team collectives per mode;
 * the harness (expect_fail.sh) checks that the job ends non-zero with the
 * expected one-line message and does not hang. */
#include "pe_test.h"

#include <stdlib.h>
#include <string.h>

static long sym_a[64], sym_b[64];

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "push_watchdog")) {
        setenv("SHMEM_WATCHDOG", "2", 0); /* the caller's settings win */
        setenv("SHMEM_WATCHDOG_ABORT", "1", 0);
    }
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long local[64] = { 0 };
    shmem_team_t odd;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd);
    if (!strcmp(m, "invalid_team")) {
        shmem_long_sum_reduce(odd, sym_a, sym_b, 4); /* PE 0 is not in odd */
    } else if (!strcmp(m, "destroyed")) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t);
        shmem_team_destroy(t);
        shmem_team_sync(t);
    } else if (!strcmp(m, "bad_handle")) {
        shmem_team_my_pe((shmem_team_t)(void *)local);
    } else if (!strcmp(m, "root_range")) {
        shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, n);
    } else if (!strcmp(m, "nonsym_dest")) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, local, sym_b, 4);
    } else if (!strcmp(m, "root_mismatch")) {
        shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, me);
    } else if (!strncmp(m, "push_", 5)) { /* issue 19: pushed small broadcasts */
        int last = me == n - 1;
        if (!strcmp(m, "push_all_roots")) /* every PE names itself the root */
            shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, me);
        else if (!strcmp(m, "push_diff_root")) /* the last PE names another root */
            shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, last ? 1 : 0);
        else if (!strcmp(m, "push_diff_size")) /* both small */
            shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, last ? 2 : 4, 0);
        else if (!strcmp(m, "push_size_pull")) /* 512 bytes are pulled, 32 pushed */
            shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, last ? 64 : 4, 0);
        else if (!strcmp(m, "push_root_fcollect")) { /* the root is in another collective */
            if (me == 0) shmem_long_fcollect(SHMEM_TEAM_WORLD, sym_a, sym_b, 1);
            else shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, 0);
        } else if (!strcmp(m, "push_root_barrier")) { /* ... or in a barrier */
            if (me == 0) shmem_barrier_all();
            else shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, 0);
        } else if (!strcmp(m, "push_member_reduce")) { /* a member is in a reduction */
            if (last) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym_a, sym_b, 4);
            else shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, 0);
        } else if (!strcmp(m, "push_watchdog")) { /* the root never comes: the watchdog */
            if (me == 0) shmem_long_wait_until(&sym_a[0], SHMEM_CMP_EQ, 5);
            shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, 0);
        }
        shmem_barrier_all(); /* not reached */
    } else if (!strcmp(m, "split_mismatch")) {
        shmem_team_t t;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, me == 0 ? 1 : 2, NULL, 0, &t);
    } else if (!strcmp(m, "coll_mismatch")) {
        if (me == 0) shmem_long_broadcast(SHMEM_TEAM_WORLD, sym_a, sym_b, 4, 0);
        else shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym_a, sym_b, 4);
    } else if (!strcmp(m, "team_mismatch")) {
        /* odd team's rank 0 is PE 1; PE 3 passes another count */
        if (odd != SHMEM_TEAM_INVALID)
            shmem_int_max_reduce(odd, (int *)sym_a, (int *)sym_b, me == 3 ? 2 : 1);
    } else if (!strcmp(m, "destroy_world")) {
        shmem_team_destroy(SHMEM_TEAM_WORLD);
    } else if (!strcmp(m, "overlap")) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sym_a + 1, sym_a, 4);
    } else if (!strcmp(m, "alltoall_overlap")) {
        shmem_long_alltoall(SHMEM_TEAM_WORLD, sym_a, sym_a, 2);
    } else if (!strcmp(m, "team_ptr_range")) {
        shmem_team_ptr(SHMEM_TEAM_WORLD, sym_a, n + 3);
    } else if (!strcmp(m, "bad_strides")) {
        shmem_long_alltoalls(SHMEM_TEAM_WORLD, sym_a, sym_b, 0, 1, 1);
    } else if (!strcmp(m, "huge_count")) {
        shmem_long_fcollect(SHMEM_TEAM_WORLD, sym_a, sym_b, (size_t)-1 / 4);
    } else {
        fprintf(stderr, "pe_team_misuse: unknown mode '%s'\n", m);
        return 2;
    }
    shmem_finalize();
    return 0; /* reaching here means the misuse went unnoticed */
}
