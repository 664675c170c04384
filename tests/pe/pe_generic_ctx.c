/* pe_generic_ctx.c - the C11 generic interfaces with and without a context
 * first: every generic operation compiles for every C type the spec lists
 * for it, in both forms (cover(), compiled, not run), and a run that checks
 * the chosen routines do the right thing, including the bitwise AMOs on
 * int32_t/int64_t (which have no row of their own in _Generic). */
#include "pe_test.h"
#include <string.h>

#define RMA_TYPES(X) X(float) X(double) X(long double) X(char) X(signed char) X(short) X(int) \
    X(long) X(long long) X(unsigned char) X(unsigned short) X(unsigned int) X(unsigned long) \
    X(unsigned long long) X(int8_t) X(int16_t) X(int32_t) X(int64_t) X(uint8_t) X(uint16_t) \
    X(uint32_t) X(uint64_t) X(size_t) X(ptrdiff_t)
#define STD_AMO(X) X(int) X(long) X(long long) X(unsigned int) X(unsigned long) \
    X(unsigned long long) X(int32_t) X(int64_t) X(uint32_t) X(uint64_t) X(size_t) X(ptrdiff_t)
#define EXT_AMO(X) X(float) X(double) STD_AMO(X)
#define SYNC_T(X) X(short) X(unsigned short) STD_AMO(X)
#define BIT_AMO(X) X(unsigned int) X(unsigned long) X(unsigned long long) X(int32_t) X(int64_t) \
    X(uint32_t) X(uint64_t)

/* One block per type and family: both forms of every generic operation. */
#define R(T) { static T a[4]; T b[4] = { 0 }, v; static uint64_t s;                     \
    shmem_put(a, b, 1, 0); shmem_put(c, a, b, 1, 0); shmem_get(b, a, 1, 0);               \
    shmem_get(c, b, a, 1, 0); shmem_put_nbi(a, b, 1, 0); shmem_put_nbi(c, a, b, 1, 0);    \
    shmem_get_nbi(b, a, 1, 0); shmem_get_nbi(c, b, a, 1, 0); shmem_p(a, b[0], 0);         \
    shmem_p(c, a, b[0], 0); v = shmem_g(a, 0); v = shmem_g(c, a, 0);                      \
    v = shmem_g((const T *)a, 0); v = shmem_g(c, (const T *)a, 0); (void)v;              \
    shmem_iput(a, b, 1, 1, 1, 0); shmem_iput(c, a, b, 1, 1, 1, 0);                       \
    shmem_iget(b, a, 1, 1, 1, 0); shmem_iget(c, b, a, 1, 1, 1, 0);                       \
    shmem_ibput(a, b, 1, 1, 1, 1, 0); shmem_ibput(c, a, b, 1, 1, 1, 1, 0);               \
    shmem_ibget(b, a, 1, 1, 1, 1, 0); shmem_ibget(c, b, a, 1, 1, 1, 1, 0);               \
    shmem_put_signal(a, b, 1, &s, 1, SHMEM_SIGNAL_ADD, 0);                                \
    shmem_put_signal(c, a, b, 1, &s, 1, SHMEM_SIGNAL_ADD, 0);                             \
    shmem_put_signal_nbi(a, b, 1, &s, 1, SHMEM_SIGNAL_SET, 0);                            \
    shmem_put_signal_nbi(c, a, b, 1, &s, 1, SHMEM_SIGNAL_SET, 0); }
#define E(T) { static T a; T v = shmem_atomic_fetch(&a, 0); v = shmem_atomic_fetch(c, &a, 0);  \
    v = shmem_atomic_fetch((const T *)&a, 0); v = shmem_atomic_fetch(c, (const T *)&a, 0);    \
    shmem_atomic_set(&a, v, 0); shmem_atomic_set(c, &a, v, 0); v = shmem_atomic_swap(&a, v, 0); \
    v = shmem_atomic_swap(c, &a, v, 0); shmem_atomic_fetch_nbi(&v, &a, 0);                    \
    shmem_atomic_fetch_nbi(c, &v, &a, 0); shmem_atomic_swap_nbi(&v, &a, v, 0);                \
    shmem_atomic_swap_nbi(c, &v, &a, v, 0); }
#define S(T) { static T a; T v = shmem_atomic_compare_swap(&a, 0, 1, 0);              \
    v = shmem_atomic_compare_swap(c, &a, 0, 1, 0); v = shmem_atomic_fetch_inc(&a, 0);         \
    v = shmem_atomic_fetch_inc(c, &a, 0); shmem_atomic_inc(&a, 0); shmem_atomic_inc(c, &a, 0); \
    v = shmem_atomic_fetch_add(&a, 1, 0); v = shmem_atomic_fetch_add(c, &a, 1, 0);            \
    shmem_atomic_add(&a, 1, 0); shmem_atomic_add(c, &a, 1, 0);                                 \
    shmem_atomic_compare_swap_nbi(&v, &a, 0, 1, 0); shmem_atomic_compare_swap_nbi(c, &v, &a, 0, 1, 0); \
    shmem_atomic_fetch_inc_nbi(&v, &a, 0); shmem_atomic_fetch_inc_nbi(c, &v, &a, 0);          \
    shmem_atomic_fetch_add_nbi(&v, &a, 1, 0); shmem_atomic_fetch_add_nbi(c, &v, &a, 1, 0);    \
    (void)v; }
#define W(T) { static T a, w[2];                                                            \
    size_t ix[2]; int st[2] = { 0 }; T cv[2] = { 0 };                                         \
    shmem_wait_until(&a, SHMEM_CMP_GE, 0); (void)shmem_test(&a, SHMEM_CMP_GE, 0);             \
    shmem_wait_until_all(w, 2, st, SHMEM_CMP_GE, 0);                                          \
    (void)shmem_wait_until_any(w, 2, st, SHMEM_CMP_GE, 0);                                    \
    (void)shmem_wait_until_some(w, 2, ix, st, SHMEM_CMP_GE, 0);                               \
    shmem_wait_until_all_vector(w, 2, st, SHMEM_CMP_GE, cv);                                  \
    (void)shmem_wait_until_any_vector(w, 2, st, SHMEM_CMP_GE, cv);                            \
    (void)shmem_wait_until_some_vector(w, 2, ix, st, SHMEM_CMP_GE, cv);                       \
    (void)shmem_test_all(w, 2, st, SHMEM_CMP_GE, 0); (void)shmem_test_any(w, 2, st, SHMEM_CMP_GE, 0); \
    (void)shmem_test_some(w, 2, ix, st, SHMEM_CMP_GE, 0);                                     \
    (void)shmem_test_all_vector(w, 2, st, SHMEM_CMP_GE, cv);                                  \
    (void)shmem_test_any_vector(w, 2, st, SHMEM_CMP_GE, cv);                                  \
    (void)shmem_test_some_vector(w, 2, ix, st, SHMEM_CMP_GE, cv); }
#define B(T) { static T a; T v = shmem_atomic_fetch_and(&a, 1, 0);                          \
    v = shmem_atomic_fetch_and(c, &a, 1, 0); shmem_atomic_and(&a, 1, 0); shmem_atomic_and(c, &a, 1, 0); \
    v = shmem_atomic_fetch_or(&a, 1, 0); v = shmem_atomic_fetch_or(c, &a, 1, 0);               \
    shmem_atomic_or(&a, 1, 0); shmem_atomic_or(c, &a, 1, 0); v = shmem_atomic_fetch_xor(&a, 1, 0); \
    v = shmem_atomic_fetch_xor(c, &a, 1, 0); shmem_atomic_xor(&a, 1, 0); shmem_atomic_xor(c, &a, 1, 0); \
    shmem_atomic_fetch_and_nbi(&v, &a, 1, 0); shmem_atomic_fetch_and_nbi(c, &v, &a, 1, 0);     \
    shmem_atomic_fetch_or_nbi(&v, &a, 1, 0); shmem_atomic_fetch_or_nbi(c, &v, &a, 1, 0);       \
    shmem_atomic_fetch_xor_nbi(&v, &a, 1, 0); shmem_atomic_fetch_xor_nbi(c, &v, &a, 1, 0); }

void cover(shmem_ctx_t c);
void cover(shmem_ctx_t c)
{
    RMA_TYPES(R) EXT_AMO(E) STD_AMO(S) BIT_AMO(B) SYNC_T(W)
    static uint64_t s;
    shmem_signal_add(&s, 1, 0);
    shmem_signal_add(c, &s, 1, 0);
    shmem_signal_set(&s, 1, 0);
    shmem_signal_set(c, &s, 1, 0);
}

static int me, n;

static void run(shmem_ctx_t c)
{
    static long d[8], fetched;
    static int32_t b32;
    static int64_t b64;
    static double dbl;
    static uint64_t sig;
    long s[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, l[8] = { 0 };
    int to = (me + 1) % n;
    memset(d, 0, sizeof d);
    b32 = 0, b64 = 0, sig = 0;
    shmem_barrier_all();
    shmem_put(c, d, s, 2, to);
    shmem_ibput(c, d + 2, s + 2, 2, 2, 2, 3, to); /* contiguous 6 */
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) CHECK(d[i] == i + 1);
    shmem_barrier_all();
    shmem_get(c, l, d, 8, to);
    CHECK(!memcmp(l, s, sizeof s) && shmem_g(c, &d[7], to) == 8 && shmem_g(&d[6], to) == 7);
    shmem_atomic_or(c, &b32, (int32_t)1 << me % 31, 0);
    shmem_atomic_fetch_xor_nbi(c, &fetched, &d[0], 3L, to); /* d[0]: 1 ^ 3 = 2 */
    CHECK(fetched == 1);
    (void)shmem_atomic_fetch_or(c, &b64, (int64_t)1 << me % 63, 0);
    shmem_barrier_all();
    if (me == 0) {
        int32_t w32 = 0;
        int64_t w64 = 0;
        for (int p = 0; p < n; p++) w32 |= (int32_t)1 << p % 31, w64 |= (int64_t)1 << p % 63;
        CHECK(b32 == w32 && b64 == w64);
    }
    CHECK(shmem_atomic_fetch(c, &d[0], me) == 2);
    shmem_atomic_set(c, &dbl, 2.5, to);
    shmem_barrier_all();
    CHECK(dbl == 2.5 && shmem_atomic_fetch(c, (const double *)&dbl, me) == 2.5);
    shmem_barrier_all();
    shmem_put_signal(c, d, s, 8, &sig, 5, SHMEM_SIGNAL_SET, to);
    uint64_t got = shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 5); /* 7: the add below came */
    CHECK(got == 5 || got == 7);
    shmem_signal_add(c, &sig, 2, to);
    shmem_signal_set(&sig, 10, me);
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(&sig) == 10 || shmem_signal_fetch(&sig) == 12);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    (void)argv;
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    if (argc > 99) cover(SHMEM_CTX_DEFAULT); /* compiled for its type coverage only */
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(0, &c) == 0);
    run(c);
    run(SHMEM_CTX_DEFAULT);
    shmem_ctx_destroy(c);
    if (me == 0) printf("pe_generic_ctx: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
