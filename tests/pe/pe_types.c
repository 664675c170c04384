/* pe_types.c - every typed put/get/p/g/broadcast and every AMO, generated
 * from the same SHMEM_TYPE_TABLE as the library (a type added to the table is
 * tested without touching this file). */
#include "pe_test.h"
#include <string.h>

#define TEST_RMA(N, T, A, B, S, G)                                                   \
    static void test_##N(int me, int n)                                              \
    {                                                                                \
        T *d = shmem_malloc(8 * sizeof(T)), *s = shmem_malloc(8 * sizeof(T));        \
        CHECK(d && s);                                                               \
        for (int i = 0; i < 8; i++) s[i] = (T)(me * 10 + i);                         \
        shmem_barrier_all();                                                         \
        int to = (me + 1) % n, from = (me + n - 1) % n;                              \
        shmem_##N##_put(d, s, 8, to);                                                \
        shmem_barrier_all();                                                         \
        for (int i = 0; i < 8; i++) CHECK(d[i] == (T)(from * 10 + i));               \
        T l[8];                                                                      \
        shmem_##N##_get(l, s, 8, to);                                                \
        for (int i = 0; i < 8; i++) CHECK(l[i] == (T)(to * 10 + i));                 \
        CHECK(shmem_##N##_g(&s[3], to) == (T)(to * 10 + 3));                         \
        shmem_barrier_all();                                                         \
        shmem_##N##_p(&d[0], (T)99, to);                                             \
        shmem_##N##_put_nbi(&d[1], &s[1], 1, to);                                    \
        shmem_quiet();                                                               \
        shmem_barrier_all();                                                         \
        CHECK(d[0] == (T)99 && d[1] == (T)(from * 10 + 1));                          \
        CHECK(shmem_##N##_broadcast(SHMEM_TEAM_WORLD, d, s, 8, 0) == 0);             \
        for (int i = 0; i < 8; i++) CHECK(d[i] == (T)i);                             \
        shmem_free(s);                                                               \
        shmem_free(d);                                                               \
    }
SHMEM_TYPE_TABLE(TEST_RMA)

/* Standard AMOs: PE 0's counter gets fetch_inc/add from everyone. */
#define TEST_AMO(N, T, A, B, S, G) SHMI_WHEN_##A##_AMO(                               \
    static void amo_##N(int me, int n)                                               \
    {                                                                                \
        T *c = shmem_calloc(1, sizeof(T));                                           \
        shmem_barrier_all();                                                         \
        shmem_##N##_atomic_inc(c, 0);                                                \
        (void)shmem_##N##_atomic_fetch_inc(c, 0);                                    \
        shmem_##N##_atomic_add(c, (T)2, 0);                                          \
        (void)shmem_##N##_atomic_fetch_add(c, (T)3, 0);                              \
        shmem_barrier_all();                                                         \
        CHECK(shmem_##N##_atomic_fetch(c, 0) == (T)(7 * n));                         \
        shmem_barrier_all();                                                         \
        if (me == 0) {                                                               \
            CHECK(shmem_##N##_atomic_compare_swap(c, (T)(7 * n), (T)5, 0) == (T)(7 * n)); \
            CHECK(shmem_##N##_atomic_compare_swap(c, (T)1, (T)6, 0) == (T)5);        \
            CHECK(shmem_##N##_atomic_swap(c, (T)8, 0) == (T)5);                      \
            shmem_##N##_atomic_set(c, (T)9, 0);                                      \
            CHECK(*c == (T)9);                                                       \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(c);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_AMO)

#define TEST_BIT(N, T, A, B, S, G) SHMI_WHEN_##B##_BIT(                               \
    static void bit_##N(int me, int n)                                               \
    {                                                                                \
        T *c = shmem_calloc(1, sizeof(T));                                           \
        shmem_barrier_all();                                                         \
        shmem_##N##_atomic_or(c, (T)((T)1 << (me % 32)), 0);                         \
        shmem_barrier_all();                                                         \
        T all = 0;                                                                   \
        for (int p = 0; p < n; p++) all |= (T)((T)1 << (p % 32));                    \
        CHECK(shmem_##N##_atomic_fetch(c, 0) == all);                                \
        shmem_barrier_all();                                                         \
        if (me == 0) {                                                               \
            CHECK(shmem_##N##_atomic_fetch_and(c, (T)1, 0) == all);                  \
            CHECK(shmem_##N##_atomic_fetch_xor(c, (T)3, 0) == (T)1);                 \
            CHECK(*c == (T)2);                                                       \
            shmem_##N##_atomic_xor(c, (T)2, 0);                                      \
            shmem_##N##_atomic_and(c, (T)0, 0);                                      \
            CHECK(shmem_##N##_atomic_fetch_or(c, (T)4, 0) == 0);                     \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(c);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_BIT)

#define TEST_EXT(N, T, A, B, S, G) SHMI_WHEN_##A##_EXTAMO(                            \
    static void ext_##N(int me, int n)                                               \
    {                                                                                \
        T *c = shmem_calloc(1, sizeof(T));                                           \
        shmem_barrier_all();                                                         \
        if (me == n - 1) shmem_##N##_atomic_set(c, (T)3.0, 0);                        \
        shmem_barrier_all();                                                         \
        CHECK(shmem_##N##_atomic_fetch(c, 0) == (T)3.0);                             \
        shmem_barrier_all();                                                         \
        if (me == 0) CHECK(shmem_##N##_atomic_swap(c, (T)4.0, 0) == (T)3.0);          \
        shmem_barrier_all();                                                         \
        shmem_free(c);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_EXT)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
#define RUN(N, T, A, B, S, G) test_##N(me, n);
    SHMEM_TYPE_TABLE(RUN)
#define RUN_AMO(N, T, A, B, S, G) SHMI_WHEN_##A##_AMO(amo_##N(me, n);)
    SHMEM_TYPE_TABLE(RUN_AMO)
#define RUN_BIT(N, T, A, B, S, G) SHMI_WHEN_##B##_BIT(bit_##N(me, n);)
    SHMEM_TYPE_TABLE(RUN_BIT)
#define RUN_EXT(N, T, A, B, S, G) SHMI_WHEN_##A##_EXTAMO(ext_##N(me, n);)
    SHMEM_TYPE_TABLE(RUN_EXT)
    /* C11 generic selection picks the typed routine. */
    long *g = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    shmem_atomic_add(g, 2L, 0);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(g, 0) == 2L * n);
    shmem_barrier_all();
    shmem_free(g);
    /* Regression: generic bitwise AMOs on int32_t/int64_t (fixed-width rows are
     * not in the _Generic cases, and int/long have no bitwise AMOs). */
    int32_t *b32 = shmem_calloc(1, sizeof *b32);
    int64_t *b64 = shmem_calloc(1, sizeof *b64);
    shmem_barrier_all();
    shmem_atomic_or(b32, (int32_t)(1 << (me % 31)), 0);
    shmem_atomic_fetch_xor(b64, (int64_t)1 << (me % 63), 0);
    shmem_barrier_all();
    if (me == 0) {
        int32_t w32 = 0;
        int64_t w64 = 0;
        for (int p = 0; p < n; p++) { w32 |= 1 << (p % 31); w64 ^= (int64_t)1 << (p % 63); }
        CHECK(*b32 == w32 && *b64 == w64);
    }
    shmem_barrier_all();
    shmem_free(b64);
    shmem_free(b32);
    if (me == 0) printf("pe_types: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
