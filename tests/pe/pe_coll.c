/* pe_coll.c - broadcast, collect, fcollect, alltoall, alltoalls on the world
 * team and on split teams (even, odd, start > 0, reversed, a 2-D row):
 * typed, *mem and C11 generic forms, nelems 0, odd sizes and 1 MiB, every
 * root, in-place broadcast, collect with different (and zero) counts. */
#include "pe_test.h"

#include <string.h>
#include <unistd.h>

static int me, npes;
static void *sbuf, *dbuf; /* symmetric; team tests cannot allocate (world collective) */
enum { BUF = 1 << 20 };

/* Value of element i of team rank r's source in test number k. */
static long val(int k, int r, size_t i) { return (long)k * 1000003 + r * 7919 + (long)i; }

static void test_broadcast(shmem_team_t t, int k, size_t n)
{
    int rank = shmem_team_my_pe(t), size = shmem_team_n_pes(t);
    long *src = sbuf, *dst = dbuf;
    for (int root = 0; root < size; root++) {
        for (size_t i = 0; i < n; i++) src[i] = val(k, rank, i), dst[i] = -1;
        CHECK(shmem_long_broadcast(t, dst, src, n, root) == 0);
        for (size_t i = 0; i < n; i++)
            CHECKF(dst[i] == val(k, root, i), "bcast n=%zu root %d [%zu] = %ld", n, root, i, dst[i]);
        /* in place, through the C11 generic */
        for (size_t i = 0; i < n; i++) src[i] = val(k + 1, rank, i);
        CHECK(shmem_broadcast(t, src, src, n, root) == 0);
        for (size_t i = 0; i < n; i++) CHECK(src[i] == val(k + 1, root, i));
        /* bytes, odd count, unaligned dest */
        size_t nb = n * sizeof(long) / 3 + 1;
        char *s = (char *)src, *d = (char *)dst + 1;
        for (size_t i = 0; i < nb; i++) s[i] = (char)(rank * 31 + i);
        CHECK(shmem_broadcastmem(t, d, s, nb, root) == 0);
        for (size_t i = 0; i < nb; i++) CHECK(d[i] == (char)(root * 31 + i));
    }
}

static void test_fcollect(shmem_team_t t, int k, size_t n)
{
    int rank = shmem_team_my_pe(t), size = shmem_team_n_pes(t);
    int *src = sbuf, *dst = dbuf;
    for (size_t i = 0; i < n; i++) src[i] = (int)val(k, rank, i);
    CHECK(shmem_int_fcollect(t, dst, src, n) == 0);
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) CHECK(dst[r * n + i] == (int)val(k, r, i));
    memset(dst, 0, n * size * sizeof(int));
    CHECK(shmem_fcollect(t, dst, src, n) == 0);
    for (int r = 0; r < size; r++) CHECK(n == 0 || dst[r * n + n - 1] == (int)val(k, r, n - 1));
    CHECK(shmem_fcollectmem(t, dst, src, n * sizeof(int)) == 0);
    for (int r = 0; r < size; r++) CHECK(n == 0 || dst[r * n] == (int)val(k, r, 0));
}

/* Rank r contributes count(r) elements, some of them zero. */
static size_t count(int r, size_t n) { return r % 3 == 1 ? 0 : n + (size_t)r; }

static void test_collect(shmem_team_t t, int k, size_t n)
{
    int rank = shmem_team_my_pe(t), size = shmem_team_n_pes(t);
    size_t total = 0, mine = count(rank, n);
    for (int r = 0; r < size; r++) total += count(r, n);
    short *src = sbuf, *dst = dbuf;
    for (size_t i = 0; i < mine; i++) src[i] = (short)val(k, rank, i);
    CHECK(shmem_short_collect(t, dst, src, mine) == 0);
    size_t off = 0;
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < count(r, n); i++, off++)
            CHECKF(dst[off] == (short)val(k, r, i), "collect [%zu] from rank %d", off, r);
    memset(dst, 0, total * sizeof(short));
    CHECK(shmem_collect(t, dst, src, mine) == 0);
    CHECK(total == 0 || dst[total - 1] != 0 || (short)val(k, size - 1, 0) == 0);
    CHECK(shmem_collectmem(t, dst, src, mine * sizeof(short)) == 0);
    off = 0;
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < count(r, n); i++, off++) CHECK(dst[off] == (short)val(k, r, i));
}

static void test_alltoall(shmem_team_t t, int k, size_t n)
{
    int rank = shmem_team_my_pe(t), size = shmem_team_n_pes(t);
    size_t all = n * size;
    double *src = sbuf, *dst = dbuf;
    CHECK((3 * all + 1) * sizeof(double) <= BUF);
    for (size_t i = 0; i < 3 * all; i++) src[i] = (double)val(k, rank, i);
    CHECK(shmem_double_alltoall(t, dst, src, n) == 0);
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) CHECK(dst[r * n + i] == (double)val(k, r, rank * n + i));
    CHECK(shmem_alltoall(t, dst, src, n) == 0);
    CHECK(shmem_alltoallmem(t, dst, src, n * sizeof(double)) == 0);
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) CHECK(dst[r * n + i] == (double)val(k, r, rank * n + i));
    ptrdiff_t strides[][2] = { { 1, 1 }, { 2, 1 }, { 1, 3 }, { 3, 2 } };
    for (int s = 0; s < 4; s++) {
        ptrdiff_t dst_st = strides[s][0], src_st = strides[s][1];
        for (size_t i = 0; i < 3 * all; i++) dst[i] = -1;
        CHECK(shmem_double_alltoalls(t, dst, src, dst_st, src_st, n) == 0);
        for (int r = 0; r < size; r++)
            for (size_t i = 0; i < n; i++) {
                double want = (double)val(k, r, (rank * n + i) * src_st);
                CHECKF(dst[(r * n + i) * dst_st] == want, "alltoalls s%d r%d i%zu", s, r, i);
                if (dst_st > 1) CHECK(dst[(r * n + i) * dst_st + 1] == -1);
            }
        CHECK(shmem_alltoalls(t, dst, src, dst_st, src_st, n) == 0);
        CHECK(shmem_alltoallsmem(t, dst, src, dst_st, src_st, n) == 0);
    }
}

/* Every collective on team t (which this PE may not be in). */
static void test_team(shmem_team_t t, int k)
{
    if (t == SHMEM_TEAM_INVALID) return;
    size_t sizes[] = { 0, 1, 13, 257 };
    for (int s = 0; s < 4; s++) {
        test_broadcast(t, k + s, sizes[s]);
        test_fcollect(t, k + s, sizes[s]);
        test_collect(t, k + s, sizes[s]);
        test_alltoall(t, k + s, sizes[s]);
    }
    shmem_team_sync(t);
}

/* Small broadcasts back to back with no barrier between (pushed when the
 * team has more members than CPUs), rotating roots, a late PE now and then,
 * mixed with small fcollects and reductions, which reuse the slot buffers
 * the pushes wrote (issue 19). */
static void test_push_stream(shmem_team_t t)
{
    if (t == SHMEM_TEAM_INVALID) return;
    int rank = shmem_team_my_pe(t), size = shmem_team_n_pes(t);
    long *src = sbuf, *dst = dbuf;
    for (int it = 0; it < 300; it++) {
        int root = (it * 7) % size;
        size_t n = (size_t)(it % 5) * 8; /* 0 to 256 bytes */
        for (size_t i = 0; i < n; i++) src[i] = val(it, rank, i);
        dst[n] = -7;
        if (it % 37 == rank) usleep(200);
        CHECK(shmem_long_broadcast(t, dst, src, n, root) == 0);
        for (size_t i = 0; i < n; i++)
            CHECKF(dst[i] == val(it, root, i), "stream %d: n=%zu root %d [%zu] = %ld", it, n,
                   root, i, dst[i]);
        CHECK(dst[n] == -7);
        if (it % 3 == 1) {
            src[0] = val(it, rank, 0);
            CHECK(shmem_long_fcollect(t, dst, src, 1) == 0);
            for (int r = 0; r < size; r++) CHECK(dst[r] == val(it, r, 0));
        } else if (it % 3 == 2) {
            src[0] = rank + it;
            CHECK(shmem_long_sum_reduce(t, dst, src, 1) == 0);
            CHECK(dst[0] == (long)size * (size - 1) / 2 + (long)size * it);
        }
    }
    shmem_team_sync(t);
}

/* 1 MiB per PE through broadcast, fcollect and alltoall on the world. */
static void test_large(void)
{
    size_t n = (1 << 20) / sizeof(long);
    long *src = shmem_malloc(n * npes * sizeof(long)), *dst = shmem_malloc(n * npes * sizeof(long));
    for (size_t i = 0; i < n * npes; i++) src[i] = val(9, me, i);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, n, npes - 1);
    for (size_t i = 0; i < n; i++) CHECK(dst[i] == val(9, npes - 1, i));
    shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, n);
    for (int r = 0; r < npes; r++) CHECK(dst[r * n + n / 2] == val(9, r, n / 2));
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, n);
    for (int r = 0; r < npes; r++) CHECK(dst[r * n + 5] == val(9, r, me * n + 5));
    shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, me == 0 ? n : n / 2);
    CHECK(dst[n - 1] == val(9, 0, n - 1));
    if (npes > 1) CHECK(dst[n + n / 2 - 1] == val(9, 1, n / 2 - 1));
    shmem_free(src);
    shmem_free(dst);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    sbuf = shmem_malloc(BUF);
    dbuf = shmem_malloc(BUF);
    shmem_team_t even, odd = SHMEM_TEAM_INVALID, tail = SHMEM_TEAM_INVALID, rev, row, col;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    if (npes > 1) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &tail);
    }
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev);
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &row, NULL, 0, &col);
    test_team(SHMEM_TEAM_WORLD, 10);
    test_team(SHMEM_TEAM_SHARED, 20);
    test_team(even, 30);
    test_team(odd, 40);
    test_team(tail, 50);
    test_team(rev, 60);
    test_team(row, 70);
    test_team(col, 80);
    test_push_stream(SHMEM_TEAM_WORLD);
    test_push_stream(rev);
    test_push_stream(tail);
    test_large();
    shmem_free(sbuf);
    shmem_free(dbuf);
    if (me == 0) printf("pe_coll: ok with %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
