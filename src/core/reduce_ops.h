/* reduce_ops.h - the element-wise reduction operators, shared by the team
 * reductions (reduce.c) and the deprecated active-set *_to_all (deprecated.c).
 * In a function with `T *x` (accumulator) and `const T *y` (input), index i,
 * SHMI_EXPR_<op>(T) is x[i] OP y[i].  Integer sums and products wrap around:
 * they are computed in the unsigned type as wide as T (SHMI_ARITH), never
 * overflowing a signed type (undefined behaviour). */
#ifndef SHMI_API_REDUCE_OPS_H
#define SHMI_API_REDUCE_OPS_H

#define SHMI_ARITH(T)                                                                     \
    __typeof__(_Generic((T)0, char: 0u, signed char: 0u, unsigned char: 0u, short: 0u,    \
                        unsigned short: 0u, int: 0u, unsigned int: 0u, long: 0ul,         \
                        unsigned long: 0ul, long long: 0ull, unsigned long long: 0ull,    \
                        default: (T)0))

#define SHMI_EXPR_and(T) x[i] & y[i]
#define SHMI_EXPR_or(T) x[i] | y[i]
#define SHMI_EXPR_xor(T) x[i] ^ y[i]
#define SHMI_EXPR_max(T) y[i] > x[i] ? y[i] : x[i]
#define SHMI_EXPR_min(T) y[i] < x[i] ? y[i] : x[i]
#define SHMI_EXPR_sum(T) (T)((SHMI_ARITH(T))x[i] + (SHMI_ARITH(T))y[i])
#define SHMI_EXPR_prod(T) (T)((SHMI_ARITH(T))x[i] * (SHMI_ARITH(T))y[i])

#endif
