/* pe_reduce.c - every reduction op x type of SHMEM_REDUCE_TABLE, plus the sum
 * scans, generated from the table: on the world team and on split teams
 * (even, reversed, start > 0), nelems 0, 1, odd and several 4 KiB blocks,
 * in place and not; the C11 generic forms; then 1 MiB reductions.
 * Expected values are computed here in the same order (team rank order) and
 * arithmetic (integer sums/products wrap), so even floats must match exactly. */
#include "pe_test.h"

#include <string.h>

static int me, npes;
static void *sbuf, *dbuf;  /* symmetric, big enough for any test */
enum { MAXN = 5000 };

/* Element i of team rank r's source for an operation (small values, so
 * floating-point sums and products are exact; some negative). */
#define VAL(T, r, i, bitwise)                                                     \
    ((bitwise) ? (T)((unsigned)((r) * 37 + (int)(i) * 11 + 5) & 0x7f)            \
               : (T)((((r) * 7 + (int)(i) * 3) % 11) - 5))
#define ARITH(T)                                                                  \
    __typeof__(_Generic((T)0, char: 0u, signed char: 0u, unsigned char: 0u, short: 0u, \
                        unsigned short: 0u, int: 0u, unsigned int: 0u, long: 0ul,  \
                        unsigned long: 0ul, long long: 0ull, unsigned long long: 0ull, \
                        default: (T)0))
#define OP_and(T, a, b) (T)((a) & (b))
#define OP_or(T, a, b) (T)((a) | (b))
#define OP_xor(T, a, b) (T)((a) ^ (b))
#define OP_max(T, a, b) ((b) > (a) ? (b) : (a))
#define OP_min(T, a, b) ((b) < (a) ? (b) : (a))
#define OP_sum(T, a, b) (T)((ARITH(T))(a) + (ARITH(T))(b))
#define OP_prod(T, a, b) (T)((ARITH(T))(a) * (ARITH(T))(b))
#define BITWISE_and 1
#define BITWISE_or 1
#define BITWISE_xor 1
#define BITWISE_max 0
#define BITWISE_min 0
#define BITWISE_sum 0
#define BITWISE_prod 0

/* One reduction through the typed routine.  (The C11 generic forms cannot be
 * used here: they expand SHMEM_REDUCE_TABLE, which is already being expanded;
 * test_generics covers them.) */
#define RUN(N, T, OP)                                                                  \
    do {                                                                               \
        T *src = sbuf, *dst = inplace ? sbuf : dbuf;                                   \
        for (size_t i = 0; i < n; i++) src[i] = VAL(T, rank, i, BITWISE_##OP);         \
        CHECK(shmem_##N##_##OP##_reduce(t, dst, src, n) == 0);                         \
        for (size_t i = 0; i < n; i++) {                                               \
            T want = VAL(T, 0, i, BITWISE_##OP);                                       \
            for (int r = 1; r < size; r++) want = OP_##OP(T, want, VAL(T, r, i, BITWISE_##OP)); \
            CHECKF(dst[i] == want, "shmem_%s_%s_reduce n=%zu inplace=%d: [%zu] wrong", #N, \
                   #OP, n, inplace, i);                                                \
        }                                                                              \
    } while (0)

#define RUN_SCAN(N, T, EX)                                                             \
    do {                                                                               \
        T *src = sbuf, *dst = inplace ? sbuf : dbuf;                                   \
        for (size_t i = 0; i < n; i++) src[i] = VAL(T, rank, i, 0);                    \
        CHECK((EX ? shmem_##N##_sum_exscan(t, dst, src, n)                             \
                  : shmem_##N##_sum_inscan(t, dst, src, n)) == 0);                     \
        for (size_t i = 0; i < n; i++) {                                               \
            T want = 0;                                                                \
            for (int r = 0; r < rank + !EX; r++) want = OP_sum(T, want, VAL(T, r, i, 0)); \
            CHECKF(dst[i] == want, "shmem_%s_sum_%sscan n=%zu inplace=%d: [%zu] wrong", #N, \
                   EX ? "ex" : "in", n, inplace, i);                                   \
        }                                                                              \
    } while (0)

#define TEST_ROW(N, T, B, O, G)                                                        \
    static void test_##N(shmem_team_t t, size_t n, int inplace)                       \
    {                                                                                  \
        int rank = shmem_team_my_pe(t), size = shmem_team_n_pes(t);                    \
        SHMI_WHEN_##B##_BIT(RUN(N, T, and); RUN(N, T, or); RUN(N, T, xor);)            \
        SHMI_WHEN_##O##_ORD(RUN(N, T, max); RUN(N, T, min);)                           \
        RUN(N, T, sum);                                                                \
        RUN(N, T, prod);                                                               \
        RUN_SCAN(N, T, 0);                                                             \
        RUN_SCAN(N, T, 1);                                                             \
    }
SHMEM_REDUCE_TABLE(TEST_ROW)

#define CALL_ROW(N, T, B, O, G) test_##N(t, n, inplace);
static void test_team(shmem_team_t t)
{
    if (t == SHMEM_TEAM_INVALID) return;
    size_t sizes[] = { 0, 1, 7, 300, MAXN };
    for (int s = 0; s < 5; s++)
        for (int inplace = 0; inplace < 2; inplace++) {
            size_t n = sizes[s];
            SHMEM_REDUCE_TABLE(CALL_ROW)
        }
}

/* The C11 generic forms pick the routine of dest's type.  PE p contributes
 * p + 1; want folds STEP (of want and v) over v = 2..upto, from 1. */
#define GEN(OP, T, upto, STEP)                                                         \
    do {                                                                               \
        T *d = dbuf, *s = sbuf;                                                        \
        s[0] = (T)(me + 1);                                                            \
        CHECK(shmem_##OP(SHMEM_TEAM_WORLD, d, s, 1) == 0);                             \
        T want = 1;                                                                    \
        for (int r = 2; r <= (upto); r++) {                                            \
            T v = (T)r;                                                                \
            want = (T)(STEP);                                                          \
        }                                                                              \
        CHECKF(d[0] == want, "generic shmem_%s on %s", #OP, #T);                       \
    } while (0)
static void test_generics(void)
{
    GEN(sum_reduce, int, npes, want + v);
    GEN(sum_reduce, double, npes, want + v);
    GEN(sum_reduce, double _Complex, npes, want + v);
    GEN(sum_reduce, float _Complex, npes, want + v);
    GEN(sum_reduce, long double, npes, want + v);
    GEN(sum_reduce, char, npes, want + v);
    GEN(prod_reduce, unsigned long long, npes, want * v);
    GEN(prod_reduce, double _Complex, npes, want * v);
    GEN(max_reduce, short, npes, v > want ? v : want);
    GEN(max_reduce, size_t, npes, v > want ? v : want);
    GEN(min_reduce, float, npes, v < want ? v : want);
    GEN(min_reduce, ptrdiff_t, npes, v < want ? v : want);
    GEN(and_reduce, int8_t, npes, want & v);
    GEN(and_reduce, unsigned char, npes, want & v);
    GEN(or_reduce, unsigned int, npes, want | v);
    GEN(or_reduce, int32_t, npes, want | v);
    GEN(xor_reduce, int64_t, npes, want ^ v);
    GEN(xor_reduce, uint16_t, npes, want ^ v);
    GEN(sum_inscan, long, me + 1, want + v);
    unsigned char *d = dbuf, *s = sbuf;
    s[0] = (unsigned char)(me + 1);
    CHECK(shmem_sum_exscan(SHMEM_TEAM_WORLD, d, s, 1) == 0);
    CHECK(d[0] == (unsigned char)(me * (me + 1) / 2));
}

/* 1 MiB reductions and scans on the world team. */
static void test_large(void)
{
    size_t n = (1 << 20) / sizeof(long);
    long *src = shmem_malloc(n * sizeof(long)), *dst = shmem_malloc(n * sizeof(long));
    for (size_t i = 0; i < n; i++) src[i] = (long)i * (me + 1);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
    for (size_t i = 0; i < n; i++) CHECK(dst[i] == (long)i * npes * (npes + 1) / 2);
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, src, src, n);
    for (size_t i = 0; i < n; i++) CHECK(src[i] == (long)i * npes);
    for (size_t i = 0; i < n; i++) src[i] = (long)i;
    shmem_long_sum_exscan(SHMEM_TEAM_WORLD, src, src, n);
    for (size_t i = 0; i < n; i += 4093) CHECK(src[i] == (long)i * me);
    shmem_free(src);
    shmem_free(dst);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    sbuf = shmem_malloc(MAXN * 32);
    dbuf = shmem_malloc(MAXN * 32);
    shmem_team_t even, rev, tail = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev);
    if (npes > 1) shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes - 1, NULL, 0, &tail);
    test_team(SHMEM_TEAM_WORLD);
    test_team(even);
    test_team(rev);
    test_team(tail);
    test_generics();
    test_large();
    shmem_free(sbuf);
    shmem_free(dbuf);
    if (me == 0) printf("pe_reduce: ok with %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
