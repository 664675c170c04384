/* amo.c - atomic memory operations, plain, on contexts and non-blocking: CPU
 * atomics on the peer's mapping of the shared line (the memfd page is the
 * same physical memory in every PE).  One size-based routine does every
 * operation on 4- and 8-byte values; typed bodies move their value's bits in
 * and out (float and double too).  A _nbi fetching AMO is the blocking one
 * storing its result into *fetch: it is complete when it returns, which
 * satisfies "complete at the next quiet".  A PE on another node gets the same
 * operations as UCX atomics (net.c): atomic with the CPU atomics of the PEs
 * of its node, as the target applies them with CPU atomics too. */
#include "api/ctx.h"
#include "core/mem_device.h" /* GPU memory goes to the copy engines (issue 7) */
#include "transport/ucx.h"    /* enum shmi_ucx_amo */

#include <string.h>

enum amo_op { AMO_FETCH, AMO_SET, AMO_SWAP, AMO_CSWAP, AMO_ADD, AMO_AND, AMO_OR, AMO_XOR };
_Static_assert((int)AMO_XOR == (int)SHMI_UCX_XOR && (int)AMO_CSWAP == (int)SHMI_UCX_CSWAP,
               "amo.c's operations are numbered as ucx.h's");

#define AMO_APPLY(W)                                                                      \
    static uint64_t amo##W(uint##W##_t *p, enum amo_op op, uint##W##_t v, uint##W##_t c)  \
    {                                                                                     \
        switch (op) {                                                                     \
        case AMO_FETCH: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                      \
        case AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); return 0;                 \
        case AMO_SWAP: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                \
        case AMO_CSWAP:                                                                   \
            __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            return c;                                                                     \
        case AMO_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                  \
        case AMO_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                  \
        case AMO_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                    \
        default: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                       \
        }                                                                                 \
    }
AMO_APPLY(32)
AMO_APPLY(64)

static uint64_t shmi_amo(const char *fn, shmem_ctx_t ctx, const void *dest, size_t size,
                         enum amo_op op, uint64_t v, uint64_t c, int pe)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    if (shmi_gpu_has(dest)) shmi_gpu_refuse(fn, "dest", dest);
    void *p = shmi_sym(fn, "dest", dest, size, wpe);
    if ((uintptr_t)dest % size)
        shmi_fatal("%s: dest=%p is not aligned to its %zu-byte type (pe=%d)", fn, dest, size, pe);
    if (shmi_tp_remote(&shmi_g.tp, wpe)) /* another node: UCX atomics (net.c) */
        return shmi_net_amo(fn, (void *)dest, size, op, v, c, wpe);
    uint64_t old = size == 4 ? amo32(p, op, (uint32_t)v, (uint32_t)c) : amo64(p, op, v, c);
    if (op != AMO_FETCH) /* amo32/64 are seq_cst */
        shmi_ring_data_after_sc(&shmi_ctl_of(wpe)->bell, dest, size);
    return old;
}

static inline uint64_t bits_in(const void *v, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, v, size);
    return b;
}

static void *fetch_out(const char *fn, void *fetch)
{
    if (!fetch) shmi_fatal("%s: fetch is NULL: pass the address where the old value goes", fn);
    return fetch;
}

#define IN(x) bits_in(&(x), sizeof(x))
#define AMO(op, d, v, c) shmi_amo(__func__, ctx, d, sizeof *(d), op, v, c, pe)
/* The low bytes of the 64-bit result are the value. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "AMO value bits assume little-endian");
#define RET(T, expr) uint64_t r_ = (expr); T t_; memcpy(&t_, &r_, sizeof t_); return t_;
#define NBI(fetch, expr)                                                                  \
    void *f_ = fetch_out(__func__, fetch); uint64_t r_ = (expr); memcpy(f_, &r_, sizeof *(fetch));

#define SHMI_DEF_AMO(N, T, A, B, S, G)                                                    \
    SHMI_WHEN_##A##_EXTAMO(                                                               \
    SHMI_PAIR(T, N##_atomic_fetch, (const T *source, int pe), RET(T, AMO(AMO_FETCH, source, 0, 0))) \
    SHMI_PAIR(void, N##_atomic_set, (T *dest, T value, int pe), AMO(AMO_SET, dest, IN(value), 0);) \
    SHMI_PAIR(T, N##_atomic_swap, (T *dest, T value, int pe), RET(T, AMO(AMO_SWAP, dest, IN(value), 0))) \
    SHMI_PAIR(void, N##_atomic_fetch_nbi, (T *fetch, const T *source, int pe),            \
              NBI(fetch, AMO(AMO_FETCH, source, 0, 0)))                                   \
    SHMI_PAIR(void, N##_atomic_swap_nbi, (T *fetch, T *dest, T value, int pe),            \
              NBI(fetch, AMO(AMO_SWAP, dest, IN(value), 0))))                             \
    SHMI_WHEN_##A##_AMO(                                                                  \
    SHMI_PAIR(T, N##_atomic_compare_swap, (T *dest, T cond, T value, int pe),             \
              RET(T, AMO(AMO_CSWAP, dest, IN(value), IN(cond))))                          \
    SHMI_PAIR(T, N##_atomic_fetch_inc, (T *dest, int pe), RET(T, AMO(AMO_ADD, dest, 1, 0))) \
    SHMI_PAIR(void, N##_atomic_inc, (T *dest, int pe), AMO(AMO_ADD, dest, 1, 0);)         \
    SHMI_PAIR(T, N##_atomic_fetch_add, (T *dest, T value, int pe),                        \
              RET(T, AMO(AMO_ADD, dest, IN(value), 0)))                                   \
    SHMI_PAIR(void, N##_atomic_add, (T *dest, T value, int pe), AMO(AMO_ADD, dest, IN(value), 0);) \
    SHMI_PAIR(void, N##_atomic_compare_swap_nbi, (T *fetch, T *dest, T cond, T value, int pe), \
              NBI(fetch, AMO(AMO_CSWAP, dest, IN(value), IN(cond))))                      \
    SHMI_PAIR(void, N##_atomic_fetch_inc_nbi, (T *fetch, T *dest, int pe),                \
              NBI(fetch, AMO(AMO_ADD, dest, 1, 0)))                                       \
    SHMI_PAIR(void, N##_atomic_fetch_add_nbi, (T *fetch, T *dest, T value, int pe),       \
              NBI(fetch, AMO(AMO_ADD, dest, IN(value), 0))))                              \
    SHMI_WHEN_##B##_BIT(                                                                  \
    SHMI_PAIR(T, N##_atomic_fetch_and, (T *dest, T value, int pe), RET(T, AMO(AMO_AND, dest, IN(value), 0))) \
    SHMI_PAIR(void, N##_atomic_and, (T *dest, T value, int pe), AMO(AMO_AND, dest, IN(value), 0);) \
    SHMI_PAIR(T, N##_atomic_fetch_or, (T *dest, T value, int pe), RET(T, AMO(AMO_OR, dest, IN(value), 0))) \
    SHMI_PAIR(void, N##_atomic_or, (T *dest, T value, int pe), AMO(AMO_OR, dest, IN(value), 0);) \
    SHMI_PAIR(T, N##_atomic_fetch_xor, (T *dest, T value, int pe), RET(T, AMO(AMO_XOR, dest, IN(value), 0))) \
    SHMI_PAIR(void, N##_atomic_xor, (T *dest, T value, int pe), AMO(AMO_XOR, dest, IN(value), 0);) \
    SHMI_PAIR(void, N##_atomic_fetch_and_nbi, (T *fetch, T *dest, T value, int pe),       \
              NBI(fetch, AMO(AMO_AND, dest, IN(value), 0)))                               \
    SHMI_PAIR(void, N##_atomic_fetch_or_nbi, (T *fetch, T *dest, T value, int pe),        \
              NBI(fetch, AMO(AMO_OR, dest, IN(value), 0)))                                \
    SHMI_PAIR(void, N##_atomic_fetch_xor_nbi, (T *fetch, T *dest, T value, int pe),       \
              NBI(fetch, AMO(AMO_XOR, dest, IN(value), 0))))
SHMEM_TYPE_TABLE(SHMI_DEF_AMO)
