/* pe_nbi_amo.c - every non-blocking fetching AMO (fetch, swap, compare_swap,
 * fetch_inc, fetch_add, fetch_and/or/xor _nbi), plain and on a context, per
 * type from SHMEM_TYPE_TABLE.  Fetched values are checked after quiet: a
 * fetch_inc by every PE on one counter must hand out 0..n-1 exactly once. */
#include "pe_test.h"

static int me, n;

#define TEST_STD(N, T, A, B, S, G) SHMI_WHEN_##A##_AMO(                               \
    static void std_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *x = shmem_calloc(1, sizeof(T)), got = (T)-1, got2 = (T)-1;                \
        int *seen = shmem_calloc((size_t)n, sizeof(int));                            \
        shmem_barrier_all();                                                         \
        if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_fetch_inc_nbi(&got, x, 0);    \
        else shmem_ctx_##N##_atomic_fetch_inc_nbi(c, &got, x, 0);                    \
        shmem_ctx_quiet(c);                                                          \
        CHECK((unsigned long long)got < (unsigned long long)n);                      \
        shmem_int_atomic_inc(&seen[(int)got], 0);                                    \
        shmem_barrier_all();                                                         \
        if (me == 0)                                                                 \
            for (int p = 0; p < n; p++) CHECKF(seen[p] == 1, "ticket %d seen %d", p, seen[p]); \
        shmem_barrier_all();                                                         \
        if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_fetch_add_nbi(&got, x, (T)2, 0); \
        else shmem_ctx_##N##_atomic_fetch_add_nbi(c, &got, x, (T)2, 0);              \
        shmem_quiet();                                                               \
        CHECK((long long)got >= n && (long long)got < 3 * n && ((long long)got - n) % 2 == 0); \
        shmem_barrier_all();                                                         \
        if (me == 0) {                                                               \
            CHECK(*x == (T)(3 * n));                                                 \
            if (c == SHMEM_CTX_DEFAULT) {                                            \
                shmem_##N##_atomic_compare_swap_nbi(&got, x, (T)(3 * n), (T)5, 0);   \
                shmem_##N##_atomic_compare_swap_nbi(&got2, x, (T)1, (T)6, 0);        \
            } else {                                                                 \
                shmem_ctx_##N##_atomic_compare_swap_nbi(c, &got, x, (T)(3 * n), (T)5, 0); \
                shmem_ctx_##N##_atomic_compare_swap_nbi(c, &got2, x, (T)1, (T)6, 0); \
            }                                                                        \
            shmem_ctx_quiet(c);                                                      \
            CHECK(got == (T)(3 * n) && got2 == (T)5 && *x == (T)5);                \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(seen);                                                            \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_STD)

/* fetch_nbi and swap_nbi: the extended AMO types, float and double included. */
#define TEST_EXT(N, T, A, B, S, G) SHMI_WHEN_##A##_EXTAMO(                            \
    static void ext_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *x = shmem_calloc(1, sizeof(T)), got = (T)0;                               \
        *x = (T)(me + 1);                                                            \
        shmem_barrier_all();                                                         \
        int to = (me + 1) % n;                                                       \
        if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_fetch_nbi(&got, x, to);       \
        else shmem_ctx_##N##_atomic_fetch_nbi(c, &got, x, to);                       \
        shmem_ctx_quiet(c);                                                          \
        CHECK(got == (T)(to + 1));                                                   \
        shmem_barrier_all();                                                         \
        if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_swap_nbi(&got, x, (T)(me + 10), to); \
        else shmem_ctx_##N##_atomic_swap_nbi(c, &got, x, (T)(me + 10), to);         \
        shmem_quiet();                                                               \
        CHECK(got == (T)(to + 1));                                                   \
        shmem_barrier_all();                                                         \
        CHECK(*x == (T)((me + n - 1) % n + 10));                                     \
        shmem_barrier_all();                                                         \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_EXT)

#define TEST_BIT(N, T, A, B, S, G) SHMI_WHEN_##B##_BIT(                               \
    static void bit_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *x = shmem_calloc(1, sizeof(T)), got = 0, bit = (T)((T)1 << (me % 32));    \
        shmem_barrier_all();                                                         \
        if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_fetch_or_nbi(&got, x, bit, 0); \
        else shmem_ctx_##N##_atomic_fetch_or_nbi(c, &got, x, bit, 0);                \
        shmem_quiet();                                                               \
        CHECK((got & bit) == 0);                                                     \
        shmem_barrier_all();                                                         \
        if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_fetch_xor_nbi(&got, x, bit, 0); \
        else shmem_ctx_##N##_atomic_fetch_xor_nbi(c, &got, x, bit, 0);               \
        shmem_quiet();                                                               \
        CHECK((got & bit) == bit || n > 32);                                         \
        shmem_barrier_all();                                                         \
        if (me == 0) {                                                               \
            *x = (T)0xff;                                                            \
            if (c == SHMEM_CTX_DEFAULT) shmem_##N##_atomic_fetch_and_nbi(&got, x, (T)0x0f, 0); \
            else shmem_ctx_##N##_atomic_fetch_and_nbi(c, &got, x, (T)0x0f, 0);       \
            shmem_quiet();                                                           \
            CHECK(got == (T)0xff && *x == (T)0x0f);                                  \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_BIT)

static void run(shmem_ctx_t c)
{
#define RUN_STD(N, T, A, B, S, G) SHMI_WHEN_##A##_AMO(std_##N(c);)
    SHMEM_TYPE_TABLE(RUN_STD)
#define RUN_EXT(N, T, A, B, S, G) SHMI_WHEN_##A##_EXTAMO(ext_##N(c);)
    SHMEM_TYPE_TABLE(RUN_EXT)
#define RUN_BIT(N, T, A, B, S, G) SHMI_WHEN_##B##_BIT(bit_##N(c);)
    SHMEM_TYPE_TABLE(RUN_BIT)
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    run(SHMEM_CTX_DEFAULT);
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &c) == 0);
    run(c);
    shmem_ctx_destroy(c);
    if (me == 0) printf("pe_nbi_amo: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
