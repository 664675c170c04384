/* pe_teams.c - team management: predefined teams, strided splits (even, odd,
 * start > 0, negative stride, stride 0, nested), invalid triplets, 2-D splits
 * with sizes that do not divide, translate_pe, team_ptr, get_config, team
 * sync, and destroy/re-create many times without leaking team slots. */
#include "pe_test.h"

#include <string.h>

static int me, npes;
static long flag_var;  /* a symmetric global, for shmem_team_ptr */

/* Check every query of a team that should hold world PEs start + stride*i. */
static void check_team(shmem_team_t t, int start, int stride, int size)
{
    int rank = -1;
    for (int i = 0; i < size; i++)
        if (start + stride * i == me) rank = i;
    if (rank < 0) {
        CHECKF(t == SHMEM_TEAM_INVALID, "PE %d is not in (%d,%d,%d) but got a team", me, start,
               stride, size);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, t) == -1);
        return;
    }
    CHECKF(t != SHMEM_TEAM_INVALID, "PE %d should be in (%d,%d,%d)", me, start, stride, size);
    CHECKF(shmem_team_my_pe(t) == rank, "my_pe %d want %d", shmem_team_my_pe(t), rank);
    CHECK(shmem_team_n_pes(t) == size);
    for (int i = 0; i < size; i++) {
        CHECK(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD) == start + stride * i);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + stride * i, t) == i);
        CHECK(shmem_team_translate_pe(t, i, t) == i);
        long *p = shmem_team_ptr(t, &flag_var, i);
        CHECK(p == shmem_ptr(&flag_var, start + stride * i));
    }
    CHECK(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD) == -1);
    CHECK(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD) == -1);
    /* team_ptr: each member writes its rank into the next member's flag_var. */
    flag_var = -1;
    CHECK(shmem_team_sync(t) == 0);
    *(long *)shmem_team_ptr(t, &flag_var, (rank + 1) % size) = rank;
    CHECK(shmem_team_sync(t) == 0);
    CHECKF(flag_var == (rank + size - 1) % size, "flag %ld", flag_var);
    CHECK(shmem_team_sync(t) == 0);
}

static shmem_team_t split(shmem_team_t parent, int start, int stride, int size)
{
    shmem_team_t t;
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    CHECKF(rc == 0, "split(%d,%d,%d) rc %d", start, stride, size, rc);
    return t;
}

static void test_strided(void)
{
    shmem_team_t even = split(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2);
    check_team(even, 0, 2, (npes + 1) / 2);
    if (npes > 1) {
        shmem_team_t odd = split(SHMEM_TEAM_WORLD, 1, 2, npes / 2);
        check_team(odd, 1, 2, npes / 2);
        shmem_team_t tail = split(SHMEM_TEAM_WORLD, 1, 1, npes - 1);
        check_team(tail, 1, 1, npes - 1);
        /* nested: the last two of the tail, reversed */
        if (tail != SHMEM_TEAM_INVALID && npes > 2) {
            shmem_team_t nest = split(tail, npes - 2, -1, 2);
            check_team(nest, npes - 1, -1, 2);
            shmem_team_destroy(nest);
        }
        shmem_team_destroy(odd);
        shmem_team_destroy(tail);
    }
    shmem_team_t rev = split(SHMEM_TEAM_WORLD, npes - 1, -1, npes);
    check_team(rev, npes - 1, -1, npes);
    shmem_team_t one = split(SHMEM_TEAM_WORLD, npes / 2, 0, 1);
    check_team(one, npes / 2, 0, 1);
    /* splits of a strided parent: parent rank -> world PE */
    if (even != SHMEM_TEAM_INVALID && (npes + 1) / 2 > 1) {
        int n = (npes + 1) / 2;
        shmem_team_t sub = split(even, 1, 1, n - 1);
        check_team(sub, 2, 2, n - 1);
        shmem_team_destroy(sub);
    }
    shmem_team_destroy(even);
    shmem_team_destroy(rev);
    shmem_team_destroy(one);
}

static void test_invalid(void)
{
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int bad[][3] = { { 0, 1, 0 }, { 0, 1, npes + 1 }, { npes, 1, 1 }, { -1, 1, 1 },
                     { 0, 0, 2 }, { npes - 1, 1, 2 }, { 0, -1, 2 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[i][0], bad[i][1], bad[i][2],
                                          NULL, 0, &t);
        CHECKF(rc != 0 && t == SHMEM_TEAM_INVALID, "triplet %zu: rc %d", i, rc);
    }
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0);
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1);
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, &flag_var, 0) == NULL);
    shmem_team_config_t c;
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &c) != 0);
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
}

static void test_2d(int xrange)
{
    shmem_team_t x, y;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &x, NULL, 0, &y) == 0);
    int xr = xrange < npes ? xrange : npes;
    int px = me % xr, py = me / xr;
    int xsize = npes - py * xr < xr ? npes - py * xr : xr;
    int ysize = (npes - px + xr - 1) / xr;
    check_team(x, py * xr, 1, xsize);
    check_team(y, px, xr, ysize);
    CHECK(shmem_team_my_pe(x) == px && shmem_team_my_pe(y) == py);
    /* 2-D split of a strided parent (the reversed world) */
    shmem_team_t rev = split(SHMEM_TEAM_WORLD, npes - 1, -1, npes);
    shmem_team_t rx, ry;
    CHECK(shmem_team_split_2d(rev, xrange, NULL, 0, &rx, NULL, 0, &ry) == 0);
    int r = npes - 1 - me;
    px = r % xr, py = r / xr;
    xsize = npes - py * xr < xr ? npes - py * xr : xr;
    ysize = (npes - px + xr - 1) / xr;
    check_team(rx, npes - 1 - py * xr, -1, xsize);
    check_team(ry, npes - 1 - px, -xr, ysize);
    shmem_team_destroy(rx);
    shmem_team_destroy(ry);
    shmem_team_destroy(rev);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
}

static void test_config(void)
{
    shmem_team_config_t c = { 5 }, got = { -1 };
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0);
    CHECK(got.num_contexts == 0);
    CHECK(shmem_team_get_config(SHMEM_TEAM_SHARED, 0, NULL) == 0);
    shmem_team_t t, u;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, SHMEM_TEAM_NUM_CONTEXTS,
                                   &t) == 0);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, 0, &u) == 0);
    CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 5);
    CHECK(shmem_team_get_config(u, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 0);
    shmem_team_destroy(t);
    shmem_team_destroy(u);
}

/* Fill every team slot, check the failure is global, free all, repeat;
 * then 2000 create/destroy pairs: a leaked slot would fail within 126. */
static void test_limits(void)
{
    enum { MAX = 200 };
    shmem_team_t t[MAX];
    int made = 0;
    for (int round = 0; round < 3; round++) {
        made = 0;
        while (made < MAX) {
            int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1 + made % npes, NULL, 0,
                                              &t[made]);
            int any = 0;
            /* every PE must agree on success or failure */
            static int rcs, sum;
            rcs = rc != 0;
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &sum, &rcs, 1);
            any = sum;
            CHECKF(any == 0 || any == npes, "split %d failed on %d of %d PEs", made, any, npes);
            if (any) break;
            made++;
        }
        CHECKF(made == 126, "made %d teams, expected 126 (128 slots minus world and shared)",
               made);
        for (int i = 0; i < made; i++) shmem_team_destroy(t[i]);
    }
    for (int i = 0; i < 2000; i++) {
        shmem_team_t a = split(SHMEM_TEAM_WORLD, i % npes, 1, 1 + (npes - 1 - i % npes));
        shmem_team_t b = split(SHMEM_TEAM_SHARED, 0, 1, npes);
        CHECK(shmem_team_sync(b) == 0);
        if (a != SHMEM_TEAM_INVALID) CHECK(shmem_team_sync(a) == 0);
        shmem_team_destroy(a);
        shmem_team_destroy(b);
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) == me);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, me, SHMEM_TEAM_WORLD) == me);
    check_team(SHMEM_TEAM_WORLD, 0, 1, npes);
    check_team(SHMEM_TEAM_SHARED, 0, 1, npes);
    test_strided();
    test_invalid();
    for (int xr = 1; xr <= npes + 1; xr++) test_2d(xr);
    test_config();
    test_limits();
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
#endif
    if (me == 0) printf("pe_teams: ok with %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
