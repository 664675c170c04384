/* pe_nvshmem_fp16.c - NVSHMEM's half and bfloat16 families on host memory
 * (issue 14), any PE count, in C (the 16-bit struct types of shmemx_fp16.h):
 * the conversions' rounding (to nearest, ties to even; overflow, subnormals),
 * put/get/p/g, _nbi, iput/iget, put_signal, broadcast, fcollect, alltoall,
 * and sum/prod/min/max reduce and reducescatter on the world team (and a
 * large in-place sum, past the staged small path).  The
 * reductions use values whose rounding after every step is known: 1 plus
 * half an ulp, n-1 times, stays 1 (ties to even), where one rounding at the
 * end would not; products of 1 + ulp grow by one ulp a PE.  Bits are
 * compared, never approximate values. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdint.h>
#include <string.h>

#include "pe_test.h"

static int me, n;

static void check_conversions(void)
{
    const float ulp_h = 1.0f / 1024, ulp_b = 1.0f / 128; /* ulps of 1 */
    CHECK(shmemx_float_to_half_bits(1.0f) == 0x3c00);
    CHECK(shmemx_float_to_half_bits(1.0f + ulp_h / 2) == 0x3c00);     /* tie: to even */
    CHECK(shmemx_float_to_half_bits(1.0f + 3 * ulp_h / 2) == 0x3c02); /* tie: to even */
    CHECK(shmemx_float_to_half_bits(1.0f + ulp_h / 2 + ulp_h / 64) == 0x3c01);
    CHECK(shmemx_float_to_half_bits(-2.5f) == 0xc100);
    CHECK(shmemx_float_to_half_bits(65519.0f) == 0x7bff); /* 65504, the largest */
    CHECK(shmemx_float_to_half_bits(65520.0f) == 0x7c00); /* overflow: infinity */
    CHECK(shmemx_float_to_half_bits(0x1p-24f) == 0x0001); /* smallest subnormal */
    CHECK(shmemx_float_to_half_bits(0x1p-25f) == 0x0000); /* tie: to even (0) */
    CHECK(shmemx_float_to_half_bits(0x3p-25f) == 0x0002); /* tie: to even (2) */
    CHECK(shmemx_float_to_half_bits(-0.0f) == 0x8000);
    CHECK((shmemx_float_to_half_bits(__builtin_nanf("")) & 0x7fff) > 0x7c00);
    CHECK(shmemx_half_bits_to_float(0x0001) == 0x1p-24f);
    CHECK(shmemx_half_bits_to_float(0x7bff) == 65504.0f);
    CHECK(shmemx_half_bits_to_float(0x3c01) == 1.0f + ulp_h);
    CHECK(shmemx_float_to_bfloat16_bits(1.0f + ulp_b / 2) == 0x3f80);
    CHECK(shmemx_float_to_bfloat16_bits(1.0f + 3 * ulp_b / 2) == 0x3f82);
    CHECK(shmemx_float_to_bfloat16_bits(-3.0f) == 0xc040);
    CHECK(shmemx_float_to_bfloat16_bits(3.4e38f) == 0x7f80); /* rounds up to infinity */
    CHECK(shmemx_bfloat16_bits_to_float(0x3f81) == 1.0f + ulp_b);
    CHECK(sizeof(shmemx_half_t) == 2 && sizeof(shmemx_bfloat16_t) == 2);
}

#define NE 8     /* elements per PE */
#define NL 20000 /* a large reduction: past the staged path, several blocks */

/* One type's whole test: ONE_HALF_ULP is half an ulp of 1 (2^-11, 2^-8),
 * ONE_ULP_BITS the bits of 1 + ulp. */
#define TEST_FP16(N, T, B, O, G)                                                          \
    static T N##_b(uint16_t bits)                                                         \
    {                                                                                     \
        T v;                                                                              \
        memcpy(&v, &bits, 2);                                                             \
        return v;                                                                         \
    }                                                                                     \
    static uint16_t N##_bits(T v)                                                         \
    {                                                                                     \
        uint16_t b;                                                                       \
        memcpy(&b, &v, 2);                                                                \
        return b;                                                                         \
    }                                                                                     \
    static T N##_f(float f) { return shmemx_##N##_from_float(f); }                        \
    static void test_##N(float one_half_ulp, uint16_t one_ulp_bits)                       \
    {                                                                                     \
        T *a = nvshmem_malloc(NE * sizeof(T)), *r = nvshmem_malloc(NE * sizeof(T));      \
        T *all = nvshmem_malloc((size_t)n * NE * sizeof(T));                              \
        T *all2 = nvshmem_malloc((size_t)n * NE * sizeof(T));                             \
        uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));                              \
        CHECK(a && r && all && all2 && sig);                                              \
        const int next = (me + 1) % n, prev = (me + n - 1) % n;                           \
        T v[NE], w[NE];                                                                   \
        for (int i = 0; i < NE; i++) v[i] = N##_f((float)(me * 16 + i) - 3.5f);          \
        /* put, get, p, g, _nbi, iput, iget (exact values: small integers and halves) */ \
        nvshmem_##N##_put(r, v, NE, next);                                                \
        nvshmem_barrier_all();                                                            \
        for (int i = 0; i < NE; i++)                                                      \
            CHECK(N##_bits(r[i]) == N##_bits(N##_f((float)(prev * 16 + i) - 3.5f)));      \
        nvshmem_##N##_get(w, r, NE, next); /* next's r holds my v */                      \
        for (int i = 0; i < NE; i++) CHECK(N##_bits(w[i]) == N##_bits(v[i]));             \
        CHECK(N##_bits(nvshmem_##N##_g(&r[3], next)) == N##_bits(v[3]));                  \
        nvshmem_barrier_all();                                                            \
        nvshmem_##N##_p(&a[0], N##_b(one_ulp_bits), next);                                \
        nvshmem_##N##_put_nbi(&a[1], &v[1], 2, next);                                     \
        nvshmem_quiet();                                                                  \
        nvshmem_##N##_get_nbi(&w[0], &a[0], 3, next);                                     \
        nvshmem_quiet();                                                                  \
        CHECK(N##_bits(w[0]) == one_ulp_bits);                                            \
        nvshmem_barrier_all();                                                            \
        CHECK(N##_bits(a[0]) == one_ulp_bits);                                            \
        CHECK(N##_bits(a[1]) == N##_bits(N##_f((float)(prev * 16 + 1) - 3.5f)));          \
        nvshmem_barrier_all();                                                            \
        nvshmem_##N##_iput(r, v, 2, 1, NE / 2, next); /* r[0,2,4,6] = v[0..3] */          \
        nvshmem_barrier_all();                                                            \
        nvshmem_##N##_iget(w, r, 1, 2, NE / 2, me); /* w[0..3] = r[0,2,4,6] */            \
        for (int i = 0; i < NE / 2; i++)                                                  \
            CHECK(N##_bits(w[i]) == N##_bits(N##_f((float)(prev * 16 + i) - 3.5f)));      \
        nvshmem_barrier_all();                                                            \
        nvshmem_##N##_put_signal(r, v, NE, sig, 1, NVSHMEM_SIGNAL_ADD, next);             \
        nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1);                                \
        CHECK(N##_bits(r[NE - 1]) == N##_bits(N##_f((float)(prev * 16 + NE - 1) - 3.5f))); \
        nvshmem_barrier_all();                                                            \
        /* broadcast from the last PE, fcollect, alltoall */                              \
        for (int i = 0; i < NE; i++) a[i] = v[i];                                         \
        nvshmem_barrier_all();                                                            \
        CHECK(nvshmem_##N##_broadcast(NVSHMEM_TEAM_WORLD, r, a, NE, n - 1) == 0);         \
        for (int i = 0; i < NE; i++)                                                      \
            CHECK(N##_bits(r[i]) == N##_bits(N##_f((float)((n - 1) * 16 + i) - 3.5f)));   \
        CHECK(nvshmem_##N##_fcollect(NVSHMEM_TEAM_WORLD, all, a, NE) == 0);               \
        for (int p = 0; p < n; p++)                                                       \
            for (int i = 0; i < NE; i++)                                                  \
                CHECK(N##_bits(all[p * NE + i]) == N##_bits(N##_f((float)(p * 16 + i) - 3.5f))); \
        for (int p = 0; p < n; p++)                                                       \
            for (int i = 0; i < NE; i++) all[p * NE + i] = N##_f((float)(me * 64 + p * 8 + i)); \
        nvshmem_barrier_all();                                                            \
        CHECK(nvshmem_##N##_alltoall(NVSHMEM_TEAM_WORLD, all2, all, NE) == 0);            \
        for (int p = 0; p < n; p++)                                                       \
            for (int i = 0; i < NE; i++)                                                  \
                CHECK(N##_bits(all2[p * NE + i]) == N##_bits(N##_f((float)(p * 64 + me * 8 + i)))); \
        /* reductions: element 0 sums 1 + (n-1) half ulps, 1 multiplies 1 + ulp,          \
         * 2 is me + 1, 3 is -(me + 1), 4 is -0.5 * (me + 1), 5-7 are 1 */               \
        for (int i = 0; i < NE; i++) a[i] = N##_f(1.0f);                                  \
        a[0] = N##_f(me == 0 ? 1.0f : one_half_ulp);                                      \
        a[1] = N##_b(one_ulp_bits);                                                       \
        a[2] = N##_f((float)(me + 1));                                                    \
        a[3] = N##_f(-(float)(me + 1));                                                   \
        a[4] = N##_f(-0.5f * (float)(me + 1));                                            \
        nvshmem_barrier_all();                                                            \
        CHECK(nvshmem_##N##_sum_reduce(NVSHMEM_TEAM_WORLD, r, a, NE) == 0);               \
        CHECKF(N##_bits(r[0]) == N##_bits(N##_f(1.0f)), "%s sum: 0x%04x",                 \
               #N, N##_bits(r[0])); /* rounded at every step */                          \
        CHECK(N##_bits(r[2]) == N##_bits(N##_f((float)(n * (n + 1) / 2))));               \
        CHECK(N##_bits(r[3]) == N##_bits(N##_f(-(float)(n * (n + 1) / 2))));              \
        CHECK(N##_bits(r[7]) == N##_bits(N##_f((float)n)));                               \
        CHECK(nvshmem_##N##_prod_reduce(NVSHMEM_TEAM_WORLD, r, a, NE) == 0);              \
        CHECKF(N##_bits(r[1]) == (uint16_t)(N##_bits(N##_f(1.0f)) + n), "%s prod: 0x%04x", \
               #N, N##_bits(r[1]));                                                       \
        float fact = 1;                                                                   \
        for (int p = 1; p <= n; p++) fact *= (float)p;                                    \
        CHECK(N##_bits(r[2]) == N##_bits(N##_f(fact)));                                   \
        CHECK(N##_bits(r[4]) == N##_bits(N##_f(fact / (float)(1 << n) * (n % 2 ? -1 : 1)))); \
        CHECK(nvshmem_##N##_max_reduce(NVSHMEM_TEAM_WORLD, r, a, NE) == 0);               \
        CHECK(N##_bits(r[2]) == N##_bits(N##_f((float)n)));                               \
        CHECK(N##_bits(r[3]) == N##_bits(N##_f(-1.0f)));                                  \
        CHECK(N##_bits(r[4]) == N##_bits(N##_f(-0.5f)));                                  \
        CHECK(N##_bits(r[0]) == N##_bits(N##_f(1.0f)));                                   \
        CHECK(nvshmem_##N##_min_reduce(NVSHMEM_TEAM_WORLD, r, a, NE) == 0);               \
        CHECK(N##_bits(r[2]) == N##_bits(N##_f(1.0f)));                                   \
        CHECK(N##_bits(r[3]) == N##_bits(N##_f(-(float)n)));                              \
        CHECK(N##_bits(r[0]) == N##_bits(N##_f(n > 1 ? one_half_ulp : 1.0f)));            \
        /* reducescatter: block p of every PE is p + 1; member me gets n * (me + 1) */   \
        for (int p = 0; p < n; p++)                                                       \
            for (int i = 0; i < NE; i++) all[p * NE + i] = N##_f((float)(p + 1));         \
        nvshmem_barrier_all();                                                            \
        CHECK(nvshmem_##N##_sum_reducescatter(NVSHMEM_TEAM_WORLD, r, all, NE) == 0);      \
        for (int i = 0; i < NE; i++) CHECK(N##_bits(r[i]) == N##_bits(N##_f((float)(n * (me + 1))))); \
        CHECK(nvshmem_##N##_max_reducescatter(NVSHMEM_TEAM_WORLD, r, all, NE) == 0);      \
        CHECK(N##_bits(r[0]) == N##_bits(N##_f((float)(me + 1))));                        \
        /* large, in place: even elements as element 0 above, odd ones me + 1 */         \
        T *big = nvshmem_malloc(NL * sizeof(T));                                          \
        CHECK(big);                                                                       \
        for (int i = 0; i < NL; i++)                                                      \
            big[i] = i % 2 ? N##_f((float)(me + 1)) : N##_f(me == 0 ? 1.0f : one_half_ulp); \
        nvshmem_barrier_all();                                                            \
        CHECK(nvshmem_##N##_sum_reduce(NVSHMEM_TEAM_WORLD, big, big, NL) == 0);           \
        for (int i = 0; i < NL; i++)                                                      \
            CHECKF(N##_bits(big[i]) ==                                                    \
                       N##_bits(N##_f(i % 2 ? (float)(n * (n + 1) / 2) : 1.0f)),          \
                   "%s large sum: element %d: 0x%04x", #N, i, N##_bits(big[i]));          \
        nvshmem_free(big);                                                                \
        nvshmem_barrier_all();                                                            \
        nvshmem_free(sig);                                                                \
        nvshmem_free(all2);                                                               \
        nvshmem_free(all);                                                                \
        nvshmem_free(r);                                                                  \
        nvshmem_free(a);                                                                  \
    }
SHMEMX_FP16_REDUCE_ROWS(TEST_FP16)

int main(void)
{
    nvshmem_init();
    me = nvshmem_my_pe();
    n = nvshmem_n_pes();
    check_conversions();
    test_half(0x1p-11f, 0x3c01);
    test_bfloat16(0x1p-8f, 0x3f81);
    nvshmem_finalize();
    if (me == 0) printf("pe_nvshmem_fp16: %d PEs ok\n", n);
    return 0;
}
