/* pe_ctx.c - communication contexts: create/destroy (options, many, reuse),
 * every shmem_ctx_ RMA and AMO routine per type (generated from
 * SHMEM_TYPE_TABLE, on a created context), block-strided ibput/ibget,
 * contexts on the shared team and on a split team (PE numbers translated),
 * get_team, quiet/fence/pe_quiet and SHMEM_CTX_INVALID. */
#include "pe_test.h"
#include <string.h>

static int me, n;

static void lifecycle(void)
{
    long opts[] = { 0, SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE,
                    SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE };
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        CHECK(shmem_ctx_create(opts[i], &c) == 0 && c != SHMEM_CTX_INVALID);
        CHECK(c != SHMEM_CTX_DEFAULT);
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(c, &t) == 0 && t == SHMEM_TEAM_WORLD);
        shmem_ctx_session_start(c, SHMEM_CTX_SESSION_BATCH, NULL, 0);
        shmem_ctx_session_stop(c);
        shmem_ctx_quiet(c);
        shmem_ctx_fence(c);
        shmem_ctx_destroy(c);
    }
    shmem_team_t t = SHMEM_TEAM_SHARED;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID);
    /* SHMEM_CTX_INVALID: quiet, fence, destroy, sessions do nothing */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_session_start(SHMEM_CTX_INVALID, 0, NULL, 0);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, NULL, 3);
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0 && c == SHMEM_CTX_INVALID);
    /* many at once, then many create/destroy cycles (struct reuse) */
    static long hits;
    enum { MANY = 64 };
    shmem_ctx_t cs[MANY];
    for (int i = 0; i < MANY; i++) CHECK(shmem_ctx_create(0, &cs[i]) == 0);
    for (int i = 0; i < MANY; i++) shmem_ctx_long_atomic_inc(cs[i], &hits, (me + 1) % n);
    for (int i = 0; i < MANY; i++) shmem_ctx_quiet(cs[i]);
    for (int i = 0; i < MANY; i++) shmem_ctx_destroy(cs[i]);
    for (int i = 0; i < 2000; i++) {
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0);
        shmem_ctx_long_atomic_add(c, &hits, 1, me);
        shmem_ctx_destroy(c);
    }
    shmem_barrier_all();
    CHECKF(hits == MANY + 2000, "hits %ld", hits);
}

/* Every ctx RMA routine of one type on context c. */
#define TEST_RMA(N, T, A, B, S, G)                                                   \
    static void rma_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *d = shmem_calloc(32, sizeof(T)), *s = shmem_malloc(32 * sizeof(T)), l[32]; \
        for (int i = 0; i < 32; i++) s[i] = (T)(me * 40 + i);                        \
        shmem_barrier_all();                                                         \
        int to = (me + 1) % n, from = (me + n - 1) % n;                              \
        shmem_ctx_##N##_put(c, d, s, 4, to);                                         \
        shmem_ctx_##N##_put_nbi(c, d + 4, s + 4, 4, to);                             \
        shmem_ctx_##N##_p(c, d + 8, (T)7, to);                                       \
        shmem_ctx_##N##_iput(c, d + 10, s, 2, 3, 3, to); /* d[10,12,14] = s[0,3,6] */ \
        /* 3 blocks of 2: d[16..17, 20..21, 24..25] = s[0..1, 3..4, 6..7] */          \
        shmem_ctx_##N##_ibput(c, d + 16, s, 4, 3, 2, 3, to);                         \
        shmem_ctx_quiet(c);                                                          \
        shmem_barrier_all();                                                         \
        for (int i = 0; i < 8; i++) CHECK(d[i] == (T)(from * 40 + i));               \
        CHECK(d[8] == (T)7);                                                         \
        for (int i = 0; i < 3; i++) CHECK(d[10 + 2 * i] == (T)(from * 40 + 3 * i));  \
        for (int b = 0; b < 3; b++)                                                  \
            for (int k = 0; k < 2; k++)                                              \
                CHECK(d[16 + 4 * b + k] == (T)(from * 40 + 3 * b + k));              \
        CHECK(d[18] == (T)0 && d[19] == (T)0);                                       \
        memset(l, 0, sizeof l);                                                      \
        shmem_ctx_##N##_get(c, l, s, 4, to);                                         \
        shmem_ctx_##N##_get_nbi(c, l + 4, s + 4, 4, to);                             \
        shmem_ctx_quiet(c);                                                          \
        for (int i = 0; i < 8; i++) CHECK(l[i] == (T)(to * 40 + i));                 \
        CHECK(shmem_ctx_##N##_g(c, s + 9, to) == (T)(to * 40 + 9));                  \
        shmem_ctx_##N##_iget(c, l, s, 3, 2, 4, to); /* l[0,3,6,9] = s[0,2,4,6] */     \
        for (int i = 0; i < 4; i++) CHECK(l[3 * i] == (T)(to * 40 + 2 * i));         \
        shmem_ctx_##N##_ibget(c, l, s, 3, 5, 2, 2, to); /* l[0..1,3..4] = s[0..1,5..6] */ \
        CHECK(l[0] == (T)(to * 40) && l[1] == (T)(to * 40 + 1));                     \
        CHECK(l[3] == (T)(to * 40 + 5) && l[4] == (T)(to * 40 + 6));                 \
        shmem_##N##_ibget(l, s, 1, 1, 4, 1, to); /* contiguous */                    \
        for (int i = 0; i < 4; i++) CHECK(l[i] == (T)(to * 40 + i));                 \
        shmem_barrier_all();                                                         \
        shmem_##N##_ibput(d, s, 2, 2, 2, 4, to); /* contiguous 8 */                  \
        shmem_barrier_all();                                                         \
        for (int i = 0; i < 8; i++) CHECK(d[i] == (T)(from * 40 + i));               \
        shmem_barrier_all();                                                         \
        shmem_free(s);                                                               \
        shmem_free(d);                                                               \
    }
SHMEM_TYPE_TABLE(TEST_RMA)

#define TEST_SIZED(BITS, BYTES)                                                      \
    static void sized_##BITS(shmem_ctx_t c)                                          \
    {                                                                                \
        unsigned char *d = shmem_calloc(8, BYTES), *s = shmem_malloc(8 * BYTES), l[8 * BYTES]; \
        for (int i = 0; i < 8 * BYTES; i++) s[i] = (unsigned char)(me + i);          \
        shmem_barrier_all();                                                         \
        int to = (me + 1) % n, from = (me + n - 1) % n;                              \
        shmem_ctx_put##BITS(c, d, s, 2, to);                                         \
        shmem_ctx_put##BITS##_nbi(c, d + 2 * BYTES, s + 2 * BYTES, 1, to);           \
        shmem_ctx_iput##BITS(c, d + 4 * BYTES, s, 2, 1, 2, to);                      \
        shmem_ctx_ibput##BITS(c, d + 3 * BYTES, s, 3, 1, 1, 1, to);                  \
        shmem_ibput##BITS(d + 7 * BYTES, s, 1, 1, 1, 1, to);                         \
        shmem_ctx_quiet(c);                                                          \
        shmem_barrier_all();                                                         \
        for (int i = 0; i < 3 * BYTES; i++) CHECK(d[i] == (unsigned char)(from + i)); \
        for (int i = 0; i < BYTES; i++) {                                            \
            CHECK(d[3 * BYTES + i] == (unsigned char)(from + i));                    \
            CHECK(d[4 * BYTES + i] == (unsigned char)(from + i));                    \
            CHECK(d[6 * BYTES + i] == (unsigned char)(from + BYTES + i));            \
            CHECK(d[7 * BYTES + i] == (unsigned char)(from + i));                    \
        }                                                                            \
        shmem_ctx_get##BITS(c, l, s, 2, to);                                         \
        shmem_ctx_get##BITS##_nbi(c, l + 2 * BYTES, s + 2 * BYTES, 2, to);           \
        for (int i = 0; i < 4 * BYTES; i++) CHECK(l[i] == (unsigned char)(to + i));  \
        shmem_ctx_iget##BITS(c, l, s, 1, 2, 2, to);                                  \
        shmem_ctx_ibget##BITS(c, l + 2 * BYTES, s, 1, 1, 2, 1, to);                  \
        shmem_ibget##BITS(l + 4 * BYTES, s, 1, 1, 1, 1, to);                         \
        for (int i = 0; i < BYTES; i++) {                                            \
            CHECK(l[i] == (unsigned char)(to + i));                                  \
            CHECK(l[BYTES + i] == (unsigned char)(to + 2 * BYTES + i));              \
            CHECK(l[2 * BYTES + i] == (unsigned char)(to + i));                      \
            CHECK(l[4 * BYTES + i] == (unsigned char)(to + i));                      \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(s);                                                               \
        shmem_free(d);                                                               \
    }
SHMEM_SIZE_TABLE(TEST_SIZED)

/* Standard AMOs on a context: everyone hits PE 0's counter. */
#define TEST_AMO(N, T, A, B, S, G) SHMI_WHEN_##A##_AMO(                               \
    static void amo_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *x = shmem_calloc(1, sizeof(T));                                           \
        shmem_barrier_all();                                                         \
        shmem_ctx_##N##_atomic_inc(c, x, 0);                                         \
        (void)shmem_ctx_##N##_atomic_fetch_inc(c, x, 0);                             \
        shmem_ctx_##N##_atomic_add(c, x, (T)2, 0);                                   \
        (void)shmem_ctx_##N##_atomic_fetch_add(c, x, (T)3, 0);                       \
        shmem_ctx_quiet(c);                                                          \
        shmem_barrier_all();                                                         \
        CHECK(shmem_ctx_##N##_atomic_fetch(c, x, 0) == (T)(7 * n));                  \
        shmem_barrier_all();                                                         \
        if (me == n - 1) {                                                           \
            CHECK(shmem_ctx_##N##_atomic_compare_swap(c, x, (T)(7 * n), (T)5, 0) == (T)(7 * n)); \
            CHECK(shmem_ctx_##N##_atomic_compare_swap(c, x, (T)1, (T)6, 0) == (T)5);  \
            CHECK(shmem_ctx_##N##_atomic_swap(c, x, (T)8, 0) == (T)5);               \
            shmem_ctx_##N##_atomic_set(c, x, (T)9, 0);                               \
            CHECK(shmem_ctx_##N##_atomic_fetch(c, x, 0) == (T)9);                    \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_AMO)

#define TEST_BIT(N, T, A, B, S, G) SHMI_WHEN_##B##_BIT(                               \
    static void bit_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *x = shmem_calloc(1, sizeof(T)), all = 0;                                  \
        shmem_barrier_all();                                                         \
        shmem_ctx_##N##_atomic_or(c, x, (T)((T)1 << (me % 32)), 0);                  \
        shmem_barrier_all();                                                         \
        for (int p = 0; p < n; p++) all |= (T)((T)1 << (p % 32));                    \
        CHECK(shmem_ctx_##N##_atomic_fetch(c, x, 0) == all);                         \
        shmem_barrier_all();                                                         \
        if (me == n - 1) {                                                           \
            CHECK(shmem_ctx_##N##_atomic_fetch_and(c, x, (T)1, 0) == all);           \
            CHECK(shmem_ctx_##N##_atomic_fetch_xor(c, x, (T)3, 0) == (T)1);          \
            shmem_ctx_##N##_atomic_xor(c, x, (T)2, 0);                               \
            shmem_ctx_##N##_atomic_and(c, x, (T)0, 0);                               \
            CHECK(shmem_ctx_##N##_atomic_fetch_or(c, x, (T)4, 0) == 0);              \
            CHECK(shmem_ctx_##N##_atomic_fetch(c, x, 0) == (T)4);                    \
        }                                                                            \
        shmem_barrier_all();                                                         \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_BIT)

#define TEST_EXT(N, T, A, B, S, G) SHMI_WHEN_##A##_EXTAMO(                            \
    static void ext_##N(shmem_ctx_t c)                                               \
    {                                                                                \
        T *x = shmem_calloc(1, sizeof(T));                                           \
        shmem_barrier_all();                                                         \
        if (me == 0) shmem_ctx_##N##_atomic_set(c, x, (T)3.0, n - 1);                \
        shmem_barrier_all();                                                         \
        CHECK(shmem_ctx_##N##_atomic_fetch(c, x, n - 1) == (T)3.0);                  \
        shmem_barrier_all();                                                         \
        if (me == 0) CHECK(shmem_ctx_##N##_atomic_swap(c, x, (T)4.0, n - 1) == (T)3.0); \
        shmem_barrier_all();                                                         \
        shmem_free(x);                                                               \
    })
SHMEM_TYPE_TABLE(TEST_EXT)

static void all_types(shmem_ctx_t c)
{
#define RUN(N, T, A, B, S, G) rma_##N(c);
    SHMEM_TYPE_TABLE(RUN)
#define RUN_SIZED(BITS, BYTES) sized_##BITS(c);
    SHMEM_SIZE_TABLE(RUN_SIZED)
#define RUN_AMO(N, T, A, B, S, G) SHMI_WHEN_##A##_AMO(amo_##N(c);)
    SHMEM_TYPE_TABLE(RUN_AMO)
#define RUN_BIT(N, T, A, B, S, G) SHMI_WHEN_##B##_BIT(bit_##N(c);)
    SHMEM_TYPE_TABLE(RUN_BIT)
#define RUN_EXT(N, T, A, B, S, G) SHMI_WHEN_##A##_EXTAMO(ext_##N(c);)
    SHMEM_TYPE_TABLE(RUN_EXT)
    char *m = shmem_calloc(16, 1), l[16];
    shmem_barrier_all();
    shmem_ctx_putmem(c, m, "context putmem!", 16, (me + 1) % n);
    shmem_ctx_putmem_nbi(c, m, "context putmem!", 4, (me + 1) % n);
    shmem_ctx_quiet(c);
    shmem_barrier_all();
    shmem_ctx_getmem(c, l, m, 8, (me + 1) % n);
    shmem_ctx_getmem_nbi(c, l + 8, m + 8, 8, (me + 1) % n);
    CHECK(!memcmp(l, "context putmem!", 16));
    shmem_barrier_all();
    shmem_free(m);
}

/* A context on a split team: PE numbers are team ranks. */
static void team_ctx(void)
{
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (n < 2) return;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd) == 0);
    static int got[64];
    if (odd != SHMEM_TEAM_INVALID) {
        shmem_ctx_t c;
        CHECK(shmem_team_create_ctx(odd, SHMEM_CTX_SERIALIZED, &c) == 0);
        shmem_team_t t;
        CHECK(shmem_ctx_get_team(c, &t) == 0 && t == odd);
        int r = shmem_team_my_pe(odd), sz = shmem_team_n_pes(odd);
        CHECK(r == me / 2 && sz == n / 2);
        shmem_ctx_int_p(c, &got[r], me, (r + 1) % sz); /* world PE 2*((r+1)%sz)+1 */
        shmem_ctx_int_atomic_add(c, &got[63], 1, 0);    /* team rank 0 = world PE 1 */
        int to[1] = { (r + 1) % sz };
        shmem_ctx_pe_quiet(c, to, 1);
        shmem_ctx_destroy(c);
    }
    shmem_barrier_all();
    if (odd != SHMEM_TEAM_INVALID) {
        int r = shmem_team_my_pe(odd), sz = shmem_team_n_pes(odd), from = (r + sz - 1) % sz;
        CHECKF(got[from] == 2 * from + 1, "got[%d]=%d", from, got[from]);
        if (r == 0) CHECK(got[63] == sz);
        shmem_team_destroy(odd);
    } else {
        for (int i = 0; i < 64; i++) CHECK(got[i] == 0);
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    lifecycle();
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c) == 0);
    all_types(c);
    shmem_ctx_destroy(c);
    all_types(SHMEM_CTX_DEFAULT);
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_SHARED, 0, &c) == 0);
    rma_int(c);
    amo_long(c);
    shmem_ctx_destroy(c);
    team_ctx();
    int pes[3] = { 0, n - 1, me };
    shmem_pe_quiet(pes, 3);
    shmem_pe_quiet(NULL, 0);
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, pes, 2);
    shmem_barrier_all();
    if (me == 0) printf("pe_ctx: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
