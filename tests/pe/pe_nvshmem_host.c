/* pe_nvshmem_host.c - the NVSHMEM host API on host memory (issue 14), any PE
 * count: init with attributes and status, versions and constants, int32 teams
 * (split, 2d, config, translate, destroy, reuse), every host collective
 * (barrier, sync, broadcast, fcollect, alltoall, reductions, reducescatter,
 * maxloc) on the world and on a split team, put-with-signal and signal
 * routines, single and multi-element waits and tests with NVSHMEM's
 * comparison values, AMOs, buffer registration, mc_ptr, unique-ID init.
 * Every result is checked exactly.  With an argument it runs one misuse case
 * (tests/pe/CMakeLists.txt expects its one-line error). */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pe_test.h"

static int me, n;

static void check_constants(void)
{
    /* NVSHMEM's values and layouts, not OpenSHMEM's. */
    CHECK(NVSHMEM_CMP_EQ == 0 && NVSHMEM_CMP_NE == 1 && NVSHMEM_CMP_GT == 2);
    CHECK(NVSHMEM_CMP_LE == 3 && NVSHMEM_CMP_LT == 4 && NVSHMEM_CMP_GE == 5);
    CHECK(NVSHMEM_SIGNAL_SET == 9 && NVSHMEM_SIGNAL_ADD == 10);
    CHECK(NVSHMEM_TEAM_INVALID == -1 && NVSHMEM_TEAM_WORLD == 0 && NVSHMEM_TEAM_SHARED == 1);
    CHECK(NVSHMEMX_TEAM_NODE == 2 && NVSHMEMX_TEAM_SAME_MYPE_NODE == 3 && NVSHMEM_TEAMS_MIN == 6);
    CHECK(NVSHMEMX_SUCCESS == 0 && NVSHMEMX_ERROR_INVALID_VALUE == 1 &&
          NVSHMEMX_ERROR_INTERNAL == 7);
    CHECK(NVSHMEM_STATUS_NOT_INITIALIZED == 0 && NVSHMEM_STATUS_IS_INITIALIZED == 2 &&
          NVSHMEM_STATUS_FULL_MPG == 4);
    CHECK(NVSHMEMX_INIT_WITH_MPI_COMM == 2 && NVSHMEMX_INIT_WITH_SHMEM == 4 &&
          NVSHMEMX_INIT_WITH_UNIQUEID == 8);
    CHECK(sizeof(nvshmem_team_t) == 4 && sizeof(nvshmem_team_config_t) == 64);
    CHECK(sizeof(nvshmemx_uniqueid_t) == 128 && sizeof(nvshmemx_uniqueid_args_t) == 24);
    CHECK(sizeof(nvshmemx_init_args_t) == 128 && sizeof(nvshmemx_init_attr_t) == 144);
    CHECK(sizeof(double2) == 16);
    int major = 0, minor = 0, patch = 0;
    nvshmem_info_get_version(&major, &minor);
    CHECK(major == 1 && minor == 3 && NVSHMEM_MAJOR_VERSION == 1 && NVSHMEM_MINOR_VERSION == 3);
    nvshmemx_vendor_get_version_info(&major, &minor, &patch);
    CHECK(major == 3 && minor == 4 && patch == 5 && NVSHMEM_VENDOR_VERSION == 30405);
    char name[NVSHMEM_MAX_NAME_LEN];
    nvshmem_info_get_name(name);
    CHECKF(strncmp(name, NVSHMEM_VENDOR_STRING, strlen(NVSHMEM_VENDOR_STRING)) == 0, "%s", name);
    CHECK(nvshmemx_mc_ptr(NVSHMEM_TEAM_WORLD, name) == NULL);
}

static void check_teams(void)
{
    CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == me && nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) == n);
    CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED) == me && nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE) == n);
    CHECK(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) == me);
    CHECK(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID) == -1 && nvshmem_team_n_pes(NVSHMEM_TEAM_INVALID) == -1);
    CHECK(nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE) == -1);
    CHECK(nvshmem_team_my_pe(12345) == -1 && nvshmem_team_n_pes(-7) == -1);

    /* Even PEs, with a configuration. */
    nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER, got;
    cfg.num_contexts = 3;
    nvshmem_team_t even = 99;
    CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, &cfg,
                                     NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &even) == 0);
    if (me % 2 == 0) {
        CHECKF(even >= NVSHMEM_TEAMS_MIN, "even=%d", (int)even);
        CHECK(nvshmem_team_my_pe(even) == me / 2 && nvshmem_team_n_pes(even) == (n + 1) / 2);
        CHECK(nvshmem_team_translate_pe(even, nvshmem_team_n_pes(even) - 1, NVSHMEM_TEAM_WORLD) ==
              2 * (nvshmem_team_n_pes(even) - 1));
        CHECK(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, me, even) == me / 2);
        memset(&got, 0x55, sizeof got);
        nvshmem_team_get_config(even, &got);
        CHECK(got.num_contexts == 3 && got.version == NVSHMEMI_TEAM_CONFIG_VERSION_2_IDENTIFIER);
    } else {
        CHECK(even == NVSHMEM_TEAM_INVALID);
        CHECK(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, me, NVSHMEM_TEAM_INVALID) == -1);
    }
    /* A 2D grid, 2 wide. */
    nvshmem_team_t x = 99, y = 99;
    CHECK(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) == 0);
    CHECK(x >= NVSHMEM_TEAMS_MIN && y >= NVSHMEM_TEAMS_MIN && x != y && x != even && y != even);
    CHECK(nvshmem_team_my_pe(x) == me % 2 && nvshmem_team_my_pe(y) == me / 2);
    CHECK(nvshmem_team_n_pes(x) == (me / 2 * 2 + 2 <= n ? 2 : 1));
    CHECK(nvshmem_team_n_pes(y) == (n - me % 2 + 1) / 2);
    CHECK(nvshmem_team_translate_pe(y, 0, NVSHMEM_TEAM_WORLD) == me % 2);
    CHECK(nvshmem_team_translate_pe(x, 0, y) == (me % 2 == 0 ? me / 2 : -1));
    nvshmem_team_get_config(x, &got);
    CHECK(got.num_contexts == 0);
    nvshmem_team_sync(x);
    nvshmem_team_destroy(y);
    CHECK(nvshmem_team_my_pe(y) == -1);
    /* The freed index is taken again by the next split. */
    nvshmem_team_t y2 = 99;
    CHECK(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, NULL, 0, NULL, NULL, 0, &y2) == 0);
    CHECK(y2 == y && nvshmem_team_my_pe(y2) == me / 2);
    nvshmem_team_destroy(y2);
    nvshmem_team_destroy(x);
    if (even != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(even);
    nvshmem_team_destroy(NVSHMEM_TEAM_INVALID); /* nothing */
}

/* Every collective on team (rank r of size m; world rank = base + stride * r). */
static void check_collectives(nvshmem_team_t team, int base, int stride)
{
    int r = nvshmem_team_my_pe(team), m = nvshmem_team_n_pes(team);
    enum { K = 5 };
    int *isrc = nvshmem_malloc(K * 8 * sizeof(int)), *idst = nvshmem_malloc(K * 8 * sizeof(int));
    long *lsrc = nvshmem_malloc(K * sizeof(long)), *ldst = nvshmem_malloc(8 * K * sizeof(long));
    unsigned *usrc = nvshmem_malloc(8 * K * sizeof(unsigned)), *udst = nvshmem_malloc(K * sizeof(unsigned));
    double *dsrc = nvshmem_malloc(8 * K * sizeof(double)), *ddst = nvshmem_malloc(8 * K * sizeof(double));
    double2 *pairs = nvshmem_malloc(3 * sizeof(double2)), *best = nvshmem_malloc(3 * sizeof(double2));
    if (r < 0) goto out; /* allocation is collective over the world; the rest over team */
    (void)base;

    CHECK(nvshmem_barrier(team) == 0 && nvshmem_team_sync(team) == 0 && nvshmem_sync(team) == 0);

    /* broadcast from the last member */
    for (int i = 0; i < K; i++) isrc[i] = 1000 * r + i, idst[i] = -1;
    CHECK(nvshmem_int_broadcast(team, idst, isrc, K, m - 1) == 0);
    for (int i = 0; i < K; i++) CHECK(idst[i] == 1000 * (m - 1) + i);
    for (int i = 0; i < K; i++) isrc[i] = 7 * r + i;
    CHECK(nvshmem_broadcastmem(team, idst, isrc, K * sizeof(int), 0) == 0);
    for (int i = 0; i < K; i++) CHECK(idst[i] == i);

    /* fcollect */
    for (int i = 0; i < K; i++) lsrc[i] = 100L * r + i;
    CHECK(nvshmem_long_fcollect(team, ldst, lsrc, K) == 0);
    for (int p = 0; p < m; p++)
        for (int i = 0; i < K; i++) CHECK(ldst[p * K + i] == 100L * p + i);
    memset(ldst, 0, 8 * K * sizeof(long));
    CHECK(nvshmem_fcollectmem(team, ldst, lsrc, K * sizeof(long)) == 0);
    for (int p = 0; p < m; p++) CHECK(ldst[p * K + K - 1] == 100L * p + K - 1);

    /* alltoall: block p of my source goes to member p */
    for (int p = 0; p < m; p++)
        for (int i = 0; i < K; i++) isrc[p * K + i] = 10000 * r + 100 * p + i;
    CHECK(nvshmem_int_alltoall(team, idst, isrc, K) == 0);
    for (int p = 0; p < m; p++)
        for (int i = 0; i < K; i++) CHECKF(idst[p * K + i] == 10000 * p + 100 * r + i, "%d", idst[p * K + i]);
    memset(idst, 0, (size_t)m * K * sizeof(int));
    CHECK(nvshmem_alltoallmem(team, idst, isrc, K * sizeof(int)) == 0);
    for (int p = 0; p < m; p++) CHECK(idst[p * K] == 10000 * p + 100 * r);

    /* reductions */
    for (int i = 0; i < K; i++) isrc[i] = r + i + 1;
    CHECK(nvshmem_int_sum_reduce(team, idst, isrc, K) == 0);
    for (int i = 0; i < K; i++) CHECK(idst[i] == m * (m - 1) / 2 + m * (i + 1));
    CHECK(nvshmem_int_max_reduce(team, idst, isrc, K) == 0 && idst[0] == m);
    CHECK(nvshmem_int_min_reduce(team, idst, isrc, K) == 0 && idst[K - 1] == K);
    CHECK(nvshmem_int_prod_reduce(team, idst, isrc, 1) == 0);
    int fact = 1;
    for (int p = 1; p <= m; p++) fact *= p;
    CHECK(idst[0] == fact);
    for (int i = 0; i < K; i++) usrc[i] = 1u << (r + i);
    CHECK(nvshmem_uint_or_reduce(team, udst, usrc, K) == 0 && udst[0] == (1u << m) - 1);
    CHECK(nvshmem_uint_xor_reduce(team, udst, usrc, K) == 0 && udst[1] == ((1u << m) - 1) << 1);
    CHECK(nvshmem_uint_and_reduce(team, udst, usrc, K) == 0 && udst[0] == (m == 1 ? 1u : 0u));
    for (int i = 0; i < K; i++) dsrc[i] = 0.5 * r + i;
    CHECK(nvshmem_double_sum_reduce(team, ddst, dsrc, K) == 0 && ddst[2] == 0.25 * m * (m - 1) + 2.0 * m);

    /* reducescatter: member p gets the reduction of block p */
    for (int p = 0; p < m; p++)
        for (int i = 0; i < K; i++) isrc[p * K + i] = 1000 * p + 10 * r + i;
    CHECK(nvshmem_int_sum_reducescatter(team, idst, isrc, K) == 0);
    for (int i = 0; i < K; i++) CHECKF(idst[i] == m * (1000 * r + i) + 10 * m * (m - 1) / 2, "%d", idst[i]);
    for (int p = 0; p < m; p++)
        for (int i = 0; i < K; i++) usrc[p * K + i] = (unsigned)(p << 8) | (1u << r) | (unsigned)i << 16;
    CHECK(nvshmem_uint_xor_reducescatter(team, udst, usrc, K) == 0);
    for (int i = 0; i < K; i++)
        CHECK(udst[i] == ((m % 2 ? ((unsigned)(r << 8) | (unsigned)i << 16) : 0u) ^ ((1u << m) - 1)));
    for (int p = 0; p < m; p++)
        for (int i = 0; i < K; i++) dsrc[p * K + i] = (r == p) ? 100.0 + i : (double)r;
    CHECK(nvshmem_double_max_reducescatter(team, ddst, dsrc, K) == 0);
    for (int i = 0; i < K; i++) CHECK(ddst[i] == 100.0 + i);

    /* maxloc: element 0 has one maximum, element 1 a tie between every member
     * (the smallest location wins), element 2 is in place. */
    pairs[0] = (double2){ r == m / 2 ? 9.0 : (double)r, 10.0 + r };
    pairs[1] = (double2){ 5.0, 50.0 - r };
    CHECK(nvshmemx_double2_maxloc_reduce_block(team, best, pairs, 2) == 0);
    CHECK(best[0].x == 9.0 && best[0].y == 10.0 + m / 2);
    CHECK(best[1].x == 5.0 && best[1].y == 50.0 - (m - 1));
    pairs[2] = (double2){ -1.0 * r, (double)r };
    CHECK(nvshmemx_double2_maxloc_reduce_block(team, pairs + 2, pairs + 2, 1) == 0);
    CHECK(pairs[2].x == 0.0 && pairs[2].y == 0.0);
    (void)stride;
out:
    nvshmem_barrier_all();
    nvshmem_free(best), nvshmem_free(pairs), nvshmem_free(ddst), nvshmem_free(dsrc);
    nvshmem_free(udst), nvshmem_free(usrc), nvshmem_free(ldst), nvshmem_free(lsrc);
    nvshmem_free(idst), nvshmem_free(isrc);
}

static void check_signals_waits(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *buf = nvshmem_calloc(8, sizeof(int));
    long *lw = nvshmem_calloc((size_t)n, sizeof(long));
    uint64_t *sig = nvshmem_calloc(4, sizeof(uint64_t));
    int src[8];
    for (int i = 0; i < 8; i++) src[i] = 100 * me + i;

    /* put_signal with SET; waited for with NVSHMEM_CMP_GE (5: OpenSHMEM's LE) */
    nvshmem_int_put_signal(buf, src, 4, &sig[0], 7, NVSHMEM_SIGNAL_SET, right);
    CHECK(nvshmem_signal_wait_until(&sig[0], NVSHMEM_CMP_GE, 7) == 7);
    for (int i = 0; i < 4; i++) CHECK(buf[i] == 100 * left + i);
    /* _nbi with ADD, sized and untyped forms */
    nvshmem_int_put_signal_nbi(buf + 4, src + 4, 2, &sig[1], 2, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_put32_signal(buf + 6, src + 6, 1, &sig[1], 3, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_putmem_signal_nbi(buf + 7, src + 7, sizeof(int), &sig[1], 5, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_quiet();
    CHECK(nvshmem_signal_wait_until(&sig[1], NVSHMEM_CMP_EQ, 10) == 10);
    for (int i = 4; i < 8; i++) CHECK(buf[i] == 100 * left + i);
    nvshmem_putmem_signal(buf, src, sizeof(int), &sig[2], 1, NVSHMEM_SIGNAL_SET, right);
    nvshmem_put64_signal_nbi(lw, src, 1, &sig[2], 1, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_quiet();
    CHECK(nvshmem_signal_wait_until(&sig[2], NVSHMEM_CMP_GT, 1) == 2);
    /* signal_op and fetch; LE (3: OpenSHMEM's GE) */
    nvshmemx_signal_op(&sig[3], 40, NVSHMEM_SIGNAL_SET, right);
    nvshmemx_signal_op(&sig[3], 2, NVSHMEM_SIGNAL_ADD, right);
    CHECK(nvshmem_signal_wait_until(&sig[3], NVSHMEM_CMP_NE, 0) != 0);
    while (nvshmem_signal_fetch(&sig[3]) != 42) {
    }
    nvshmem_barrier_all();
    CHECK(nvshmem_signal_wait_until(&sig[3], NVSHMEM_CMP_LE, 42) == 42);
    CHECK(nvshmem_uint64_test(&sig[3], NVSHMEM_CMP_LE, 41) == 0);
    CHECK(nvshmem_uint64_test(&sig[3], NVSHMEM_CMP_GE, 43) == 0);
    CHECK(nvshmem_uint64_test(&sig[3], NVSHMEM_CMP_LT, 43) == 1);
    nvshmem_barrier_all();

    /* put64_signal_nbi above: two ints of the left neighbour's src */
    int pair[2] = { 100 * left, 100 * left + 1 };
    CHECK(memcmp(lw, pair, sizeof pair) == 0);
    nvshmem_barrier_all();
    for (int p = 0; p < n; p++) lw[p] = 0;
    nvshmem_barrier_all();
    /* AMOs: every PE adds to slot 0 of PE 0; then each works on its slot at the right */
    nvshmem_long_atomic_add(&lw[0], me + 1, 0);
    nvshmem_barrier_all();
    if (me == 0) CHECK(lw[0] == (long)n * (n + 1) / 2);
    nvshmem_barrier_all();
    lw[0] = 0;
    nvshmem_barrier_all();
    CHECK(nvshmem_long_atomic_fetch_inc(&lw[me], right) == 0);
    CHECK(nvshmem_long_atomic_compare_swap(&lw[me], 1, 77, right) == 1);
    CHECK(nvshmem_long_atomic_swap(&lw[me], 5, right) == 77);
    CHECK(nvshmem_long_atomic_fetch(&lw[me], right) == 5);
    CHECK(nvshmem_int64_atomic_fetch_and((int64_t *)&lw[me], 4, right) == 5);
    CHECK(nvshmem_long_atomic_fetch_add(&lw[me], 10, right) == 4);
    nvshmem_barrier_all();

    /* multi-element waits: each PE sets flag [me] on every PE, with p */
    nvshmem_barrier_all();
    int *flags = nvshmem_calloc((size_t)n, sizeof(int));
    for (int p = 0; p < n; p++) nvshmem_int_p(&flags[me], me + 1, p);
    nvshmem_int_wait_until_all(flags, (size_t)n, NULL, NVSHMEM_CMP_GE, 1);
    for (int p = 0; p < n; p++) CHECK(flags[p] == p + 1);
    size_t idx[64];
    CHECK(nvshmem_int_wait_until_some(flags, (size_t)n, idx, NULL, NVSHMEM_CMP_GT, 0) == (size_t)n);
    CHECK(nvshmem_int_wait_until_any(flags, (size_t)n, NULL, NVSHMEM_CMP_EQ, n) == (size_t)(n - 1));
    int want[64], status[64];
    for (int p = 0; p < n; p++) want[p] = p + 1, status[p] = 0;
    nvshmem_int_wait_until_all_vector(flags, (size_t)n, NULL, NVSHMEM_CMP_EQ, want);
    CHECK(nvshmem_int_wait_until_any_vector(flags, (size_t)n, NULL, NVSHMEM_CMP_LE, want) < (size_t)n);
    CHECK(nvshmem_int_wait_until_some_vector(flags, (size_t)n, idx, NULL, NVSHMEM_CMP_GE, want) == (size_t)n);
    CHECK(nvshmem_int_test_all(flags, (size_t)n, NULL, NVSHMEM_CMP_LE, n) == 1);
    CHECK(nvshmem_int_test_all(flags, (size_t)n, NULL, NVSHMEM_CMP_LT, n) == 0);
    CHECK(nvshmem_int_test_any(flags, (size_t)n, NULL, NVSHMEM_CMP_GT, n) == SIZE_MAX);
    status[0] = 1; /* exclude element 0 */
    CHECK(nvshmem_int_test_some(flags, (size_t)n, idx, status, NVSHMEM_CMP_GE, 1) == (size_t)(n - 1));
    CHECK(nvshmem_int_test_all_vector(flags, (size_t)n, NULL, NVSHMEM_CMP_EQ, want) == 1);
    want[n - 1] = 0;
    CHECK(nvshmem_int_test_all_vector(flags, (size_t)n, NULL, NVSHMEM_CMP_EQ, want) == 0);
    CHECK(nvshmem_int_test_any_vector(flags, (size_t)n, NULL, NVSHMEM_CMP_GT, want) == (size_t)(n - 1));
    CHECK(nvshmem_int_test_some_vector(flags, (size_t)n, idx, NULL, NVSHMEM_CMP_NE, want) == 1 &&
          idx[0] == (size_t)(n - 1));
    nvshmem_int_wait_until(&flags[0], NVSHMEM_CMP_LE, 1);
    CHECK(nvshmem_int_test(&flags[0], NVSHMEM_CMP_GE, 2) == 0);
    nvshmem_barrier_all();
    nvshmem_free(flags);
    nvshmem_free(sig);
    nvshmem_free(lw);
    nvshmem_free(buf);
}

static void check_buffers(void)
{
    char *local = malloc(4096);
    CHECK(nvshmemx_buffer_register(local, 4096) == NVSHMEMX_SUCCESS);
    CHECK(nvshmemx_buffer_register(local, 4096) == NVSHMEMX_ERROR_INVALID_VALUE);   /* again */
    CHECK(nvshmemx_buffer_register(local + 100, 10) == NVSHMEMX_ERROR_INVALID_VALUE); /* inside */
    CHECK(nvshmemx_buffer_register(local - 8, 16) == NVSHMEMX_ERROR_INVALID_VALUE);   /* overlaps */
    CHECK(nvshmemx_buffer_register(NULL, 8) == NVSHMEMX_ERROR_INVALID_VALUE);
    CHECK(nvshmemx_buffer_register(local + 4096, 0) == NVSHMEMX_ERROR_INVALID_VALUE);
    CHECK(nvshmemx_buffer_register(local + 4096, 8) == NVSHMEMX_SUCCESS);            /* adjacent */
    /* a registered buffer as the local side of RMA */
    long *sym = nvshmem_malloc(sizeof(long));
    *(long *)local = 4242 + me;
    nvshmem_long_put(sym, (long *)local, 1, (me + 1) % n);
    nvshmem_barrier_all();
    CHECK(*sym == 4242 + (me + n - 1) % n);
    CHECK(nvshmemx_buffer_unregister(local + 1) == NVSHMEMX_ERROR_INVALID_VALUE);
    CHECK(nvshmemx_buffer_unregister(local) == NVSHMEMX_SUCCESS);
    CHECK(nvshmemx_buffer_unregister(local) == NVSHMEMX_ERROR_INVALID_VALUE);
    nvshmemx_buffer_unregister_all();
    CHECK(nvshmemx_buffer_unregister(local + 4096) == NVSHMEMX_ERROR_INVALID_VALUE);
    CHECK(nvshmemx_buffer_register(local, 4104) == NVSHMEMX_SUCCESS); /* all gone */
    nvshmem_free(sym);
    free(local);
}

static int misuse(const char *mode)
{
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (!strcmp(mode, "mpi_comm")) {
        int comm = 0;
        CHECK(nvshmemx_set_attr_mpi_comm_args(&comm, &attr) == 0 && attr.mpi_comm == &comm);
        nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
        return 0; /* not reached */
    }
    if (!strcmp(mode, "uid_rank")) { /* every PE says it is rank 0 of 2 */
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        CHECK(nvshmemx_get_uniqueid(&id) == 0);
        CHECK(nvshmemx_set_attr_uniqueid_args(0, 2, &id, &attr) == 0);
        nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
        nvshmem_barrier_all();
        nvshmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "uid_foreign")) { /* an ID nvshmemx_get_uniqueid did not make */
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        CHECK(nvshmemx_set_attr_uniqueid_args(0, 1, &id, &attr) == 0);
        nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
        return 0;
    }
    nvshmem_init();
    int *a = nvshmem_malloc(8 * sizeof(int));
    if (!strcmp(mode, "rs_overlap")) nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, a + 1, a, 1);
    if (!strcmp(mode, "destroy_world")) nvshmem_team_destroy(NVSHMEM_TEAM_WORLD);
    if (!strcmp(mode, "destroy_twice")) {
        nvshmem_team_t t;
        CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, nvshmem_n_pes(), NULL, 0, &t) == 0);
        nvshmem_team_destroy(t);
        nvshmem_team_destroy(t);
    }
    if (!strcmp(mode, "bad_sig_op")) nvshmemx_signal_op((uint64_t *)a, 1, 1 /* SHMEM_SIGNAL_SET */, 0);
    if (!strcmp(mode, "team_init")) nvshmemx_team_init(NULL, NULL, 0, 1, 0);
    if (!strcmp(mode, "register_symmetric")) nvshmemx_buffer_register_symmetric(a, 64, 0);
    fprintf(stderr, "pe_nvshmem_host: misuse mode '%s' did not stop the program\n", mode);
    return 3;
}

int main(int argc, char **argv)
{
    if (argc > 1) return misuse(argv[1]);

    CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED);
    /* CUmodule/CUlibrary routines: NVSHMEM's status, one line each (gpu_module has the rest) */
    CHECK(nvshmemx_cumodule_init(NULL) == NVSHMEMX_ERROR_INVALID_VALUE); /* before init */
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    CHECK(attr.version == NVSHMEM_INIT_ATTR_V2_IDENTIFIER && attr.args.uid_args.myrank == -1);
    CHECK(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_SHMEM, &attr) == 0);
    CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED);
    me = nvshmem_my_pe();
    n = nvshmem_n_pes();

    check_constants();
    CHECK(nvshmemx_cumodule_init(NULL) == NVSHMEMX_ERROR_INVALID_VALUE);
    CHECK(nvshmemx_culibrary_finalize(NULL) == NVSHMEMX_ERROR_INVALID_VALUE);
    check_teams();
    check_collectives(NVSHMEM_TEAM_WORLD, 0, 1);
    nvshmem_team_t even;
    CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even) == 0);
    check_collectives(even, 0, 2);
    check_signals_waits();
    check_buffers();
    if (even != NVSHMEM_TEAM_INVALID) CHECK(nvshmem_team_my_pe(even) == me / 2);
    nvshmem_barrier_all();
    nvshmem_finalize(); /* also forgets the team, which is not destroyed here */
    CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED);

    /* Again, with a unique ID: the ranks are the PEs (started by symrun). */
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    CHECK(nvshmemx_get_uniqueid(&id) == 0 && id.version == (1 << 16) + 128);
    CHECK(nvshmemx_set_attr_uniqueid_args(me, n, &id, &attr) == 0);
    CHECK(attr.args.uid_args.id == &id && attr.args.uid_args.nranks == n);
    CHECK(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) == 0);
    CHECK(nvshmem_my_pe() == me && nvshmem_n_pes() == n);
    if (even != NVSHMEM_TEAM_INVALID) CHECK(nvshmem_team_my_pe(even) == -1);
    int *v = nvshmem_malloc(sizeof(int));
    *v = me;
    CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, v, v, 1) == 0 && *v == n * (n - 1) / 2);
    nvshmem_free(v);
    nvshmemx_hostlib_finalize();
    if (me == 0) printf("pe_nvshmem_host: %d PEs ok\n", n);
    return 0;
}
