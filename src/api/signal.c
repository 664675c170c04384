/* signal.c - put-with-signal, signal add/set/fetch, signal_wait_until.
 *
 * Ordering: the data is copied first (memcpy into the peer's mapping), then
 * the signal word is updated with a release store (SET) or a release atomic
 * add (ADD), then the peer's doorbell is rung.  A waiter's acquire load that
 * sees the new signal therefore sees the data (C11 release/acquire; on x86
 * the stores are ordered anyway, and glibc's non-temporal memcpy path ends
 * with sfence).  The doorbell makes a waiter asleep on its futex check again.
 * The _nbi forms are the same: complete on return.  To a PE on another node:
 * the data goes first (UCX put), then a worker fence, then the signal as a
 * UCX atomic (swap for SET, add for ADD), so the target sees the data once
 * it sees the signal. */
#include "api/ctx.h"
#include "core/mem_device.h" /* GPU memory goes to the copy engines (issue 7) */
#include "transport/ucx.h"    /* SHMI_UCX_SET, _ADD */

static void check_op(const char *fn, int sig_op)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmi_fatal("%s: sig_op=%d is not a signal operator: use SHMEM_SIGNAL_SET (%d) or "
                   "SHMEM_SIGNAL_ADD (%d)", fn, sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
}

/* World PE wpe's copy of the signal word (checked: symmetric, 8-aligned). */
static uint64_t *sig_word(const char *fn, const uint64_t *sig_addr, int wpe)
{
    if (shmi_gpu_has(sig_addr)) shmi_gpu_refuse(fn, "sig_addr", sig_addr);
    uint64_t *s = shmi_sym(fn, "sig_addr", sig_addr, sizeof *sig_addr, wpe);
    if ((uintptr_t)sig_addr % sizeof *sig_addr)
        shmi_fatal("%s: sig_addr=%p is not 8-byte aligned: use a uint64_t object", fn,
                   (void *)sig_addr);
    return s;
}

static void update(const char *fn, uint64_t *sig_addr, uint64_t signal, int sig_op, int wpe)
{
    uint64_t *s = sig_word(fn, sig_addr, wpe);
    if (shmi_tp_remote(&shmi_g.tp, wpe)) { /* another node: fence, then a UCX atomic */
        shmi_net_fence();
        shmi_net_amo(fn, sig_addr, sizeof *sig_addr,
                     sig_op == SHMEM_SIGNAL_SET ? SHMI_UCX_SET : SHMI_UCX_ADD, signal, 0, wpe);
        return;
    }
    if (sig_op == SHMEM_SIGNAL_SET) __atomic_store_n(s, signal, __ATOMIC_RELEASE);
    else __atomic_fetch_add(s, signal, __ATOMIC_RELEASE);
    shmi_ring(&shmi_ctl_of(wpe)->bell);
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
    shmi_put_raw(fn, dest, source, nelems, elem, wpe);
    update(fn, sig_addr, signal, sig_op, wpe);
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
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_ADD, shmi_ctx_pe(__func__, SHMEM_CTX_DEFAULT, pe));
}

void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_ADD, shmi_ctx_pe(__func__, ctx, pe));
}

void (shmem_signal_set)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_SET, shmi_ctx_pe(__func__, SHMEM_CTX_DEFAULT, pe));
}

void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    update(__func__, sig_addr, signal, SHMEM_SIGNAL_SET, shmi_ctx_pe(__func__, ctx, pe));
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    shmi_check_running(__func__);
    return __atomic_load_n(sig_word(__func__, sig_addr, shmi_g.me), __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    shmi_check_running(__func__);
    sig_word(__func__, sig_addr, shmi_g.me);
    return shmi_wait_until(__func__, sig_addr, sizeof *sig_addr, 0, cmp, cmp_value);
}
