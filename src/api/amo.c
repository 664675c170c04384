/* amo.c - atomic memory operations, plain, on contexts and non-blocking: CPU
 * atomics on the peer's mapping of the shared line (the memfd page is the
 * same physical memory in every PE).  One size-based routine does every
 * operation on 4- and 8-byte values; typed bodies move their value's bits in
 * and out (float and double too).  A _nbi fetching AMO is the blocking one
 * storing its result into *fetch: it is complete when it returns, which
 * satisfies "complete at the next quiet".  A PE reached through a transport
 * (tp.h; another node) gets the same operations as its atomics (UCX's):
 * atomic with the CPU atomics of the PEs of its node, as the target applies
 * them with CPU atomics too.  GPU memory: refused by the copy-engine row. */
#include "api/ctx.h"
#include "core/mem_device.h" /* shmi_sym_any */

#include <string.h>

enum amo_op { AMO_FETCH = SHMI_AMO_FETCH, AMO_SET = SHMI_AMO_SET, AMO_SWAP = SHMI_AMO_SWAP,
              AMO_CSWAP = SHMI_AMO_CSWAP, AMO_ADD = SHMI_AMO_ADD, AMO_AND = SHMI_AMO_AND,
              AMO_OR = SHMI_AMO_OR, AMO_XOR = SHMI_AMO_XOR };

static void check_aligned(const char *fn, const void *dest, size_t size, int pe)
{
    if ((uintptr_t)dest % size)
        shmi_fatal("%s: dest=%p is not aligned to its %zu-byte type (pe=%d)", fn, dest, size, pe);
}

static uint64_t shmi_amo(const char *fn, shmem_ctx_t ctx, const void *dest, size_t size,
                         enum amo_op op, uint64_t v, uint64_t c, int pe)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, dest, NULL, wpe);
    if (SHMI_TP_DIRECT(via)) {
        void *p = shmi_sym(fn, "dest", dest, size, wpe);
        check_aligned(fn, dest, size, pe);
        uint64_t old = shmi_tp_atomic(p, size, (enum shmi_amo_op)op, v, c);
        if (op != AMO_FETCH) /* the atomic above is seq_cst */
            shmi_ring_data_after_sc(shmi_tp_bell(&shmi_g.tp, wpe), dest, size);
        return old;
    }
    shmi_sym_any(fn, "dest", dest, size, wpe);
    check_aligned(fn, dest, size, pe);
    return shmi_peer_amo(fn, "dest", via, (void *)dest, size, (enum shmi_amo_op)op, v, c, wpe);
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
