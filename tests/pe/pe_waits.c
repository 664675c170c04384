/* pe_waits.c - point-to-point synchronization on every type that has it
 * (generated from SHMEM_TYPE_TABLE's SYNC rows): wait_until_all/any/some, their _vector
 * forms and test_all/any/some(_vector), with every PE producing into every
 * PE's array (several producers), status masks, empty sets (SIZE_MAX / 0 /
 * 1), the six comparisons on signed and unsigned values, and test's plain
 * form. */
#include "pe_test.h"
#include <string.h>

#define MAXN 64
static int me, n;
static int status[MAXN + 1];
static size_t idx[MAXN + 1];

static void clear_status(int v)
{
    for (int i = 0; i <= MAXN; i++) status[i] = v;
}

/* Each PE p stores p+1 into slot p of every PE, starting with a different
 * target to vary the arrival order. */
#define PRODUCE(N, T, x)                                                             \
    for (int k = 0; k < n; k++) shmem_##N##_p(&(x)[me], (T)(me + 1), (me + k) % n)

#define TEST_WAITS(N, T, A, B, S, G) SHMI_WHEN_##S##_SYNC(                             \
    static void empty_##N(T *x)                                                      \
    {                                                                                \
        T v[MAXN + 1] = { 0 };                                                       \
        CHECK(shmem_##N##_test_all(x, 0, NULL, SHMEM_CMP_EQ, (T)9) == 1);            \
        CHECK(shmem_##N##_test_any(x, 0, NULL, SHMEM_CMP_EQ, (T)0) == SIZE_MAX);     \
        CHECK(shmem_##N##_test_some(x, 0, NULL, NULL, SHMEM_CMP_EQ, (T)0) == 0);     \
        CHECK(shmem_##N##_test_all_vector(x, 0, NULL, SHMEM_CMP_EQ, NULL) == 1);     \
        CHECK(shmem_##N##_test_any_vector(x, 0, NULL, SHMEM_CMP_EQ, NULL) == SIZE_MAX); \
        CHECK(shmem_##N##_test_some_vector(x, 0, NULL, NULL, SHMEM_CMP_EQ, NULL) == 0); \
        shmem_##N##_wait_until_all(x, 0, NULL, SHMEM_CMP_EQ, (T)9);                  \
        CHECK(shmem_##N##_wait_until_any(x, 0, NULL, SHMEM_CMP_EQ, (T)9) == SIZE_MAX); \
        CHECK(shmem_##N##_wait_until_some(x, 0, idx, NULL, SHMEM_CMP_EQ, (T)9) == 0); \
        clear_status(1); /* everything masked: empty too */                          \
        shmem_##N##_wait_until_all(x, (size_t)n, status, SHMEM_CMP_EQ, (T)9);        \
        shmem_##N##_wait_until_all_vector(x, (size_t)n, status, SHMEM_CMP_EQ, v);    \
        CHECK(shmem_##N##_wait_until_any(x, (size_t)n, status, SHMEM_CMP_EQ, (T)9) == SIZE_MAX); \
        CHECK(shmem_##N##_wait_until_any_vector(x, (size_t)n, status, SHMEM_CMP_EQ, v) == SIZE_MAX); \
        CHECK(shmem_##N##_wait_until_some(x, (size_t)n, idx, status, SHMEM_CMP_EQ, (T)9) == 0); \
        CHECK(shmem_##N##_wait_until_some_vector(x, (size_t)n, idx, status, SHMEM_CMP_EQ, v) == 0); \
        CHECK(shmem_##N##_test_all(x, (size_t)n, status, SHMEM_CMP_EQ, (T)9) == 1);  \
        CHECK(shmem_##N##_test_any(x, (size_t)n, status, SHMEM_CMP_EQ, (T)0) == SIZE_MAX); \
        CHECK(shmem_##N##_test_some(x, (size_t)n, idx, status, SHMEM_CMP_EQ, (T)0) == 0); \
        clear_status(0);                                                             \
        /* nothing produced yet: tests fail, with the right "none" values */         \
        CHECK(shmem_##N##_test_all(x, (size_t)n, NULL, SHMEM_CMP_NE, (T)0) == 0);    \
        CHECK(shmem_##N##_test_any(x, (size_t)n, NULL, SHMEM_CMP_NE, (T)0) == SIZE_MAX); \
        CHECK(shmem_##N##_test_some(x, (size_t)n, idx, NULL, SHMEM_CMP_NE, (T)0) == 0); \
        for (int i = 0; i < n; i++) v[i] = (T)(i + 1);                               \
        CHECK(shmem_##N##_test_all_vector(x, (size_t)n, NULL, SHMEM_CMP_EQ, v) == 0); \
        CHECK(shmem_##N##_test_any_vector(x, (size_t)n, NULL, SHMEM_CMP_EQ, v) == SIZE_MAX); \
        CHECK(shmem_##N##_test_some_vector(x, (size_t)n, idx, NULL, SHMEM_CMP_EQ, v) == 0); \
    }                                                                                \
    /* round: 0 any, 1 some, 2 all, 3 any_vector, 4 some_vector, 5 all_vector,      \
     * 6 test_any loop, 7 test_some loop */                                          \
    static void round_##N(T *x, int round)                                           \
    {                                                                                \
        T v[MAXN];                                                                   \
        int seen[MAXN] = { 0 }, got = 0;                                             \
        for (int i = 0; i < n; i++) v[i] = (T)(i + 1);                               \
        clear_status(0);                                                             \
        shmem_barrier_all();                                                         \
        PRODUCE(N, T, x);                                                            \
        while (got < n && round != 2 && round != 5) {                                \
            size_t c = 1, i;                                                         \
            switch (round) {                                                         \
            case 0: idx[0] = shmem_##N##_wait_until_any(x, (size_t)n, status, SHMEM_CMP_NE, (T)0); break; \
            case 1: c = shmem_##N##_wait_until_some(x, (size_t)n, idx, status, SHMEM_CMP_NE, (T)0); break; \
            case 3: idx[0] = shmem_##N##_wait_until_any_vector(x, (size_t)n, status, SHMEM_CMP_EQ, v); break; \
            case 4: c = shmem_##N##_wait_until_some_vector(x, (size_t)n, idx, status, SHMEM_CMP_EQ, v); break; \
            case 6: idx[0] = shmem_##N##_test_any(x, (size_t)n, status, SHMEM_CMP_GT, (T)0); \
                    c = idx[0] != SIZE_MAX; break;                                   \
            default: c = shmem_##N##_test_some_vector(x, (size_t)n, idx, status, SHMEM_CMP_GE, v); \
            }                                                                        \
            CHECK(c <= (size_t)n && (round >= 6 || c >= 1));                         \
            for (size_t k = 0; k < c; k++) {                                         \
                i = idx[k];                                                          \
                CHECKF(i < (size_t)n && !seen[i] && x[i] == (T)(i + 1),              \
                       "round %d: index %zu", round, i);                             \
                seen[i] = status[i] = 1;                                             \
                got++;                                                               \
            }                                                                        \
        }                                                                            \
        if (round == 2) shmem_##N##_wait_until_all(x, (size_t)n, NULL, SHMEM_CMP_NE, (T)0); \
        if (round == 5) shmem_##N##_wait_until_all_vector(x, (size_t)n, NULL, SHMEM_CMP_EQ, v); \
        for (int i = 0; i < n; i++) CHECK(x[i] == (T)(i + 1));                       \
        CHECK(shmem_##N##_test_all(x, (size_t)n, NULL, SHMEM_CMP_GE, (T)1) == 1);    \
        CHECK(shmem_##N##_test_all_vector(x, (size_t)n, NULL, SHMEM_CMP_LE, v) == 1); \
        CHECK(shmem_##N##_test_any_vector(x, (size_t)n, NULL, SHMEM_CMP_EQ, v) < (size_t)n); \
        CHECK(shmem_##N##_test_some(x, (size_t)n, idx, NULL, SHMEM_CMP_LE, (T)n) == (size_t)n); \
        /* slot n is never written: all fails unless it is masked out */            \
        CHECK(shmem_##N##_test_all(x, (size_t)n + 1, NULL, SHMEM_CMP_NE, (T)0) == 0); \
        clear_status(0);                                                             \
        status[n] = 1;                                                               \
        CHECK(shmem_##N##_test_all(x, (size_t)n + 1, status, SHMEM_CMP_NE, (T)0) == 1); \
        shmem_barrier_all();                                                         \
        for (int i = 0; i <= n; i++) x[i] = 0;                                       \
        shmem_barrier_all();                                                         \
    }                                                                                \
    static void cmps_##N(T *x)                                                       \
    {                                                                                \
        int neg = !((T)-1 > (T)0);                                                   \
        if (me == 0) shmem_##N##_p(&x[0], (T)-5, n - 1);                               \
        if (me == n - 1) {                                                           \
            shmem_##N##_wait_until(&x[0], SHMEM_CMP_NE, (T)0);                       \
            CHECK(shmem_##N##_test(&x[0], SHMEM_CMP_LT, (T)0) == neg);               \
            CHECK(shmem_##N##_test(&x[0], SHMEM_CMP_GE, (T)0) == !neg);              \
            CHECK(shmem_##N##_test(&x[0], SHMEM_CMP_GT, (T)-6) == 1);                \
            CHECK(shmem_##N##_test(&x[0], SHMEM_CMP_LE, (T)-5) == 1);                \
            CHECK(shmem_##N##_test(&x[0], SHMEM_CMP_EQ, (T)-5) == 1);                \
            CHECK(shmem_##N##_test(&x[0], SHMEM_CMP_NE, (T)-5) == 0);                \
            CHECK(shmem_##N##_test_any(x, 2, NULL, SHMEM_CMP_LT, (T)0) == (neg ? 0 : SIZE_MAX)); \
        }                                                                            \
        shmem_barrier_all();                                                         \
        x[0] = 0;                                                                    \
        shmem_barrier_all();                                                         \
    }                                                                                \
    static void waits_##N(void)                                                      \
    {                                                                                \
        T *x = shmem_calloc(MAXN + 1, sizeof(T));                                    \
        empty_##N(x);                                                                \
        for (int r = 0; r < 8; r++) round_##N(x, r);                                 \
        cmps_##N(x);                                                                 \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_WAITS)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    CHECK(n <= MAXN);
#define RUN(N, T, A, B, S, G) SHMI_WHEN_##S##_SYNC(waits_##N();)
    SHMEM_TYPE_TABLE(RUN)
    if (me == 0) printf("pe_waits: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
