/* signal.c - put-with-signal, signal add/set/fetch, signal_wait_until.
 *
 * Ordering: the data is copied first (memcpy into the peer's mapping), then
 * the signal word is updated with a release store (SET) or a release atomic
 * add (ADD), then the peer's doorbell is rung.  A waiter's acquire load that
 * sees the new signal therefore sees the data (C11 release/acquire; on x86
 * the stores are ordered anyway, and glibc's non-temporal memcpy path ends
 * with sfence).  The doorbell makes a waiter asleep on its futex check again.
 * The _nbi forms are the same: complete on return.  Through a transport
 * (tp.h; a PE on another node): the data goes first, then a fence, then the
 * signal as the transport's atomic (swap for SET, add for ADD), so the
 * target sees the data once it sees the signal. */
#include "api/ctx.h"
#include "core/mem_device.h" /* shmi_sym_any */

static void check_op(const char *fn, int sig_op)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmi_fatal("%s: sig_op=%d is not a signal operator: use SHMEM_SIGNAL_SET (%d) or "
                   "SHMEM_SIGNAL_ADD (%d)", fn, sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
}

/* The signal word must be a uint64_t: 8-byte aligned. */
static void check_word(const char *fn, const uint64_t *sig_addr)
{
    if ((uintptr_t)sig_addr % sizeof *sig_addr)
        shmi_fatal("%s: sig_addr=%p is not 8-byte aligned: use a uint64_t object", fn,
                   (void *)sig_addr);
}

/* Our own signal word, for the CPU to read (checked: symmetric host memory,
 * 8-aligned). */
static uint64_t *own_word(const char *fn, const uint64_t *sig_addr)
{
    uint64_t *s = shmi_sym_cpu(fn, "sig_addr", sig_addr, sizeof *sig_addr);
    check_word(fn, sig_addr);
    return s;
}

/* data, n: bytes put with the signal (for the doorbell: a waiter on them is
 * woken too), or NULL, 0. */
static void update(const char *fn, uint64_t *sig_addr, uint64_t signal, int sig_op, int wpe,
                   const void *data, size_t n)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, sig_addr, NULL, wpe);
    if (SHMI_TP_DIRECT(via)) {
        uint64_t *s = shmi_sym(fn, "sig_addr", sig_addr, sizeof *sig_addr, wpe);
        check_word(fn, sig_addr);
        if (sig_op == SHMEM_SIGNAL_SET) __atomic_store_n(s, signal, __ATOMIC_RELEASE);
        else __atomic_fetch_add(s, signal, __ATOMIC_RELEASE);
        /* one ring for the span of data and signal (usually adjacent) */
        uintptr_t lo = (uintptr_t)sig_addr, hi = lo + sizeof *sig_addr;
        if (n && (uintptr_t)data < lo) lo = (uintptr_t)data;
        if (n && (uintptr_t)data + n > hi) hi = (uintptr_t)data + n;
        shmi_ring_data(shmi_tp_bell(&shmi_g.tp, wpe), (const void *)lo, hi - lo);
        return;
    }
    shmi_sym_any(fn, "sig_addr", sig_addr, sizeof *sig_addr, wpe);
    check_word(fn, sig_addr);
    shmi_fence(); /* the data first: the signal is ordered after it */
    shmi_peer_amo(fn, "sig_addr", via, sig_addr, sizeof *sig_addr,
                  sig_op == SHMEM_SIGNAL_SET ? SHMI_AMO_SET : SHMI_AMO_ADD, signal, 0, wpe);
}

static void put_signal(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                       size_t nelems, size_t elem, uint64_t *sig_addr, uint64_t signal,
                       int sig_op, int pe)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    check_op(fn, sig_op);
    uintptr_t d = (uintptr_t)dest, s = (uintptr_t)sig_addr;
    if (nelems && !shmi_mul_overflows(nelems, elem, NULL) && s + sizeof *sig_addr > d && s < d + nelems * elem)
        shmi_fatal("%s: sig_addr=%p overlaps dest=%p (%zu elements of %zu bytes): the signal "
                   "word must lie outside the data", fn, (void *)sig_addr, dest, nelems, elem);
    size_t n = nelems ? shmi_bytes(fn, nelems, elem) : 0;
    if (n) shmi_put_bytes(fn, dest, source, n, wpe, SHMI_TP_BLOCKING, 0);
    update(fn, sig_addr, signal, sig_op, wpe, dest, n);
}

#define SIG_PARAMS uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
#define PUT_SIGNAL(elem) put_signal(__func__, ctx, dest, source, nelems, elem, sig_addr, signal, \
                                    sig_op, pe);
SHMI_PAIR(void, putmem_signal, (void *dest, const void *source, size_t nelems, SIG_PARAMS),
          PUT_SIGNAL(1))
SHMI_PAIR(void, putmem_signal_nbi, (void *dest, const void *source, size_t nelems, SIG_PARAMS),
          PUT_SIGNAL(1))

#define SHMI_DEF_SIGNAL(N, T, A, B, S, G)                                                 \
    SHMI_PAIR(void, N##_put_signal, (T *dest, const T *source, size_t nelems, SIG_PARAMS), \
              PUT_SIGNAL(sizeof(T)))                                                      \
    SHMI_PAIR(void, N##_put_signal_nbi,                                                   \
              (T *dest, const T *source, size_t nelems, SIG_PARAMS), PUT_SIGNAL(sizeof(T)))
SHMEM_TYPE_TABLE(SHMI_DEF_SIGNAL)
SHMEMX_FP16_TYPE_ROWS(SHMI_DEF_SIGNAL)

#define SHMI_DEF_SIZED_SIGNAL(BITS, BYTES)                                                \
    SHMI_PAIR(void, put##BITS##_signal,                                                   \
              (void *dest, const void *source, size_t nelems, SIG_PARAMS), PUT_SIGNAL(BYTES)) \
    SHMI_PAIR(void, put##BITS##_signal_nbi,                                               \
              (void *dest, const void *source, size_t nelems, SIG_PARAMS), PUT_SIGNAL(BYTES))
SHMEM_SIZE_TABLE(SHMI_DEF_SIZED_SIGNAL)

/* shmem_signal_add/_set are also C11 generic macros (ctx first or not) in
 * shmem_generic.h: the parentheses keep the macros from expanding here. */
void (shmem_signal_add)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_ADD, shmi_ctx_pe(__func__, SHMEM_CTX_DEFAULT, pe),
           NULL, 0);
}

void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_ADD, shmi_ctx_pe(__func__, ctx, pe),
           NULL, 0);
}

void (shmem_signal_set)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_SET, shmi_ctx_pe(__func__, SHMEM_CTX_DEFAULT, pe),
           NULL, 0);
}

void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_SET, shmi_ctx_pe(__func__, ctx, pe),
           NULL, 0);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    shmi_check_running(__func__);
    return __atomic_load_n(own_word(__func__, sig_addr), __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    shmi_check_running(__func__);
    own_word(__func__, sig_addr);
    return shmi_wait_until(__func__, sig_addr, sizeof *sig_addr, 0, cmp, cmp_value);
}
