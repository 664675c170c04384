/* pe_signal.c - put-with-signal (typed per SHMEM_TYPE_TABLE, sized, mem; plain,
 * _nbi, on contexts; SET and ADD), signal_add/set/fetch, signal_wait_until's
 * return value, and ordering: a consumer that sees the signal must see all
 * the data, checked over many rounds with a buffer large enough for memcpy's
 * non-temporal path; several producers signalling one PE with ADD. */
#include "pe_test.h"
#include <stdlib.h>
#include <string.h>

static int me, n;
static uint64_t sig, ack;

/* Ring: each PE sends 6 elements to the next PE, four ways; the signal
 * counts the arrivals (ADD) or names the round (SET). */
#define TEST_TYPED(N, T, A, B, S, G)                                                 \
    static void typed_##N(shmem_ctx_t c)                                             \
    {                                                                                \
        T *d = shmem_calloc(24, sizeof(T)), s[24];                                   \
        for (int i = 0; i < 24; i++) s[i] = (T)(me * 30 + i);                        \
        int to = (me + 1) % n, from = (me + n - 1) % n;                              \
        sig = 0;                                                                     \
        shmem_barrier_all();                                                         \
        shmem_##N##_put_signal(d, s, 6, &sig, 1, SHMEM_SIGNAL_ADD, to);              \
        shmem_##N##_put_signal_nbi(d + 6, s + 6, 6, &sig, 1, SHMEM_SIGNAL_ADD, to);  \
        shmem_ctx_##N##_put_signal(c, d + 12, s + 12, 6, &sig, 1, SHMEM_SIGNAL_ADD, to); \
        shmem_ctx_##N##_put_signal_nbi(c, d + 18, s + 18, 6, &sig, 1, SHMEM_SIGNAL_ADD, to); \
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 4) == 4);                  \
        for (int i = 0; i < 24; i++) CHECK(d[i] == (T)(from * 30 + i));              \
        shmem_barrier_all();                                                         \
        shmem_##N##_put_signal(d, s, 1, &sig, 77, SHMEM_SIGNAL_SET, to);             \
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_NE, 4) == 77);                 \
        shmem_barrier_all();                                                         \
        shmem_free(d);                                                               \
    }
SHMEM_TYPE_TABLE(TEST_TYPED)

static void sized_and_mem(shmem_ctx_t c)
{
    unsigned char *d = shmem_calloc(256, 1), s[256];
    for (int i = 0; i < 256; i++) s[i] = (unsigned char)(me * 7 + i);
    int to = (me + 1) % n, from = (me + n - 1) % n;
    sig = 0;
    shmem_barrier_all();
    /* 8+16+32+64+128 bits = 31 bytes per sized family; 4 families: 124 bytes */
    size_t off = 0;
#define SIZED(BITS, BYTES)                                                             \
    shmem_put##BITS##_signal(d + off, s + off, 1, &sig, 1, SHMEM_SIGNAL_ADD, to);      \
    off += BYTES;                                                                      \
    shmem_put##BITS##_signal_nbi(d + off, s + off, 1, &sig, 1, SHMEM_SIGNAL_ADD, to);  \
    off += BYTES;                                                                      \
    shmem_ctx_put##BITS##_signal(c, d + off, s + off, 1, &sig, 1, SHMEM_SIGNAL_ADD, to); \
    off += BYTES;                                                                      \
    shmem_ctx_put##BITS##_signal_nbi(c, d + off, s + off, 1, &sig, 1, SHMEM_SIGNAL_ADD, to); \
    off += BYTES;
    SHMEM_SIZE_TABLE(SIZED)
    shmem_putmem_signal(d + off, s + off, 10, &sig, 1, SHMEM_SIGNAL_ADD, to);
    shmem_putmem_signal_nbi(d + off + 10, s + off + 10, 10, &sig, 1, SHMEM_SIGNAL_ADD, to);
    shmem_ctx_putmem_signal(c, d + off + 20, s + off + 20, 10, &sig, 1, SHMEM_SIGNAL_ADD, to);
    shmem_ctx_putmem_signal_nbi(c, d + off + 30, s + off + 30, 10, &sig, 1, SHMEM_SIGNAL_ADD, to);
    off += 40;
    shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 24);
    CHECK(shmem_signal_fetch(&sig) == 24);
    for (size_t i = 0; i < off; i++) CHECK(d[i] == (unsigned char)(from * 7 + (int)i));
    shmem_barrier_all();
    shmem_free(d);
}

/* signal_add/_set (plain and ctx), signal_fetch, wait_until's return value. */
static void add_set(shmem_ctx_t c)
{
    sig = 0;
    shmem_barrier_all();
    shmem_signal_add(&sig, 2, 0);
    shmem_ctx_signal_add(c, &sig, 3, 0);
    if (me == 0) {
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_GE, (uint64_t)(5 * n)) == (uint64_t)(5 * n));
        CHECK(shmem_signal_fetch(&sig) == (uint64_t)(5 * n));
    }
    shmem_barrier_all();
    if (me == n - 1) shmem_signal_set(&sig, 1000, 0);
    if (me == 0) CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_GT, 999) == 1000);
    shmem_barrier_all();
    if (me == 0) shmem_ctx_signal_set(c, &sig, 3, n - 1);
    if (me == n - 1) CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 3) == 3);
    shmem_barrier_all();
}

/* Many rounds: PE p sends round r's buffer (every byte = r) to p+1 with SET r;
 * the receiver checks every byte, then acks with ADD so the sender may reuse. */
static void ordering(size_t bytes, int rounds)
{
    unsigned char *d = shmem_malloc(bytes), *s = malloc(bytes);
    CHECK(d && s);
    int to = (me + 1) % n, from = (me + n - 1) % n;
    sig = ack = 0;
    shmem_barrier_all();
    for (int r = 1; r <= rounds; r++) {
        memset(s, r & 0xff, bytes);
        if (r > 1) shmem_signal_wait_until(&ack, SHMEM_CMP_GE, (uint64_t)(r - 1));
        if (r % 2) shmem_putmem_signal(d, s, bytes, &sig, (uint64_t)r, SHMEM_SIGNAL_SET, to);
        else shmem_putmem_signal_nbi(d, s, bytes, &sig, (uint64_t)r, SHMEM_SIGNAL_SET, to);
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)r);
        for (size_t i = 0; i < bytes; i += 61)
            CHECKF(d[i] == (r & 0xff), "round %d byte %zu is %d", r, i, d[i]);
        CHECK(d[bytes - 1] == (r & 0xff));
        shmem_signal_add(&ack, 1, from);
    }
    shmem_barrier_all();
    free(s);
    shmem_free(d);
}

/* Every PE sends its block to PE 0 and adds 1: PE 0 waits for n. */
static void many_producers(void)
{
    enum { B = 4096 };
    long *d = shmem_calloc((size_t)n * B, sizeof(long)), s[B];
    for (int i = 0; i < B; i++) s[i] = me * 100000L + i;
    sig = 0;
    shmem_barrier_all();
    shmem_long_put_signal_nbi(d + (size_t)me * B, s, B, &sig, 1, SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)n) == (uint64_t)n);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < B; i += 97) CHECK(d[(size_t)p * B + i] == p * 100000L + i);
    }
    shmem_barrier_all();
    shmem_free(d);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    n = shmem_n_pes();
    shmem_ctx_t c;
    CHECK(shmem_ctx_create(0, &c) == 0);
#define RUN(N, T, A, B, S, G) typed_##N(c);
    SHMEM_TYPE_TABLE(RUN)
    sized_and_mem(c);
    add_set(c);
    add_set(SHMEM_CTX_DEFAULT);
    ordering(64, 2000);
    ordering((size_t)4 << 20, 20);
    many_producers();
    shmem_ctx_destroy(c);
    if (me == 0) printf("pe_signal: ok with %d PEs\n", n);
    shmem_finalize();
    return 0;
}
