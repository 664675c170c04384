/* pe_aset_outside.c - a PE outside the active set of a deprecated
 * active-set collective returns at once, touching neither pSync nor dest
 * (issue 17, item 6), as Open MPI's OSHMEM does.
 *
 * The legacy-suite case first: every PE calls shmem_long_sum_to_all over the
 * set {PE 0} (PE_start 0, logPE_stride 0, PE_size 1).  PE 0 calls only after
 * every other PE has returned from its call and said so, so a PE that waited
 * in the call (for PE 0, or for anything) would hang the job (the test's
 * timeout) instead of passing.  Then every other routine over {PE 0} and,
 * with 4 PEs, over the strided set {0, 2}.  Outsiders fill pSync and dest
 * with sentinels and check them unchanged. */
#define SHMEM_NO_DEPRECATION_WARNINGS
#include "pe_test.h"

#include <shmem.h>
#include <string.h>

#define N 4
static long pSync[SHMEM_SYNC_SIZE];
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long src[N * 8], dst[N * 8];
static int done;

static void sentinels(int member)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) pSync[i] = member ? SHMEM_SYNC_VALUE : 42;
    for (int i = 0; i < N * 8; i++) dst[i] = -7;
}

static void untouched(const char *what)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECKF(pSync[i] == 42, "%s: pSync[%d]=%ld changed on a PE outside the set", what, i, pSync[i]);
    for (int i = 0; i < N * 8; i++)
        CHECKF(dst[i] == -7, "%s: dest[%d]=%ld changed on a PE outside the set", what, i, dst[i]);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < N * 8; i++) src[i] = me * 100 + i;

    /* 1. shmem_long_sum_to_all over {0}, called by every PE */
    sentinels(me == 0);
    shmem_barrier_all();
    if (me == 0) {
        shmem_int_wait_until(&done, SHMEM_CMP_EQ, npes - 1); /* all others returned */
        shmem_long_sum_to_all(dst, src, N, 0, 0, 1, pWrk, pSync);
        for (int i = 0; i < N; i++) CHECKF(dst[i] == i, "sum over {0}: dest[%d]=%ld", i, dst[i]);
        for (int i = 0; i < SHMEM_SYNC_SIZE; i++) CHECK(pSync[i] == SHMEM_SYNC_VALUE);
    } else {
        shmem_long_sum_to_all(dst, src, N, 0, 0, 1, pWrk, pSync);
        untouched("shmem_long_sum_to_all");
        shmem_int_atomic_inc(&done, 0);
    }
    shmem_barrier_all();

    /* 2. the other routines, over {0} and (4+ PEs) {0, 2}: members call in
     * step, outsiders call and must come back untouched */
    for (int set = 0; set < (npes >= 4 ? 2 : 1); set++) {
        int lstride = set, size = set ? 2 : 1;
        int member = me % (1 << lstride) == 0 && me / (1 << lstride) < size;
        for (int op = 0; op < 8; op++) {
            sentinels(member);
            shmem_barrier_all();
            switch (op) {
            case 0: shmem_barrier(0, lstride, size, pSync); break;
            case 1: shmem_sync(0, lstride, size, pSync); break;
            case 2: shmem_broadcast64(dst, src, N, 0, 0, lstride, size, pSync); break;
            case 3: shmem_collect64(dst, src, N, 0, lstride, size, pSync); break;
            case 4: shmem_fcollect64(dst, src, N, 0, lstride, size, pSync); break;
            case 5: shmem_alltoall64(dst, src, N, 0, lstride, size, pSync); break;
            case 6: shmem_alltoalls64(dst, src, 1, 1, N, 0, lstride, size, pSync); break;
            case 7: shmem_long_max_to_all(dst, src, N, 0, lstride, size, pWrk, pSync); break;
            }
            if (!member) {
                untouched("an active-set routine");
            } else if (op == 7) {
                long top = (long)(size - 1) * (1 << lstride) * 100;
                for (int i = 0; i < N; i++) CHECK(dst[i] == top + i);
            } else if (op >= 3 && op <= 6) {
                for (int i = 0; i < N * size; i++)
                    CHECK(dst[i] == (long)(i / N) * (1 << lstride) * 100 + (op >= 5 ? me / (1 << lstride) * N : 0) + i % N);
            }
            shmem_barrier_all();
        }
    }
    if (me == 0) printf("pe_aset_outside: ok, %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
