/* shmem_generic.h - the C11 _Generic interfaces of shmem.h (include shmem.h,
 * not this file).  Cases come from SHEMEM_TYPE_TABLE rows marked GEN. */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H
/* ---- C11 generic interfaces ------------------------------------------------- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define SHMI_GEN_CASES(op) SHMEM_TYPE_TABLE(SHMI_GEN_##op)
#define SHMI_GEN_put(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_put,)
#define SHMI_GEN_get(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_get,)
#define SHMI_GEN_put_nbi(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_put_nbi,)
#define SHMI_GEN_get_nbi(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_get_nbi,)
#define SHMI_GEN_p(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_p,)
#define SHMI_GEN_g(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(const T *: shmem_##N##_g, T *: shmem_##N##_g,)
#define SHMI_GEN_iput(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_iput,)
#define SHMI_GEN_iget(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_iget,)
#define SHMI_GEN_broadcast(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(T *: shmem_##N##_broadcast,)
#define SHMI_GEN_wait_until(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##S##_SYNC(T *: shmem_##N##_wait_until,))
#define SHMI_GEN_test(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##S##_SYNC(T *: shmem_##N##_test,))
#define SHMI_GEN_atomic_fetch(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_EXTAMO(const T *: shmem_##N##_atomic_fetch, T *: shmem_##N##_atomic_fetch,))
#define SHMI_GEN_atomic_set(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_EXTAMO(T *: shmem_##N##_atomic_set,))
#define SHMI_GEN_atomic_swap(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_EXTAMO(T *: shmem_##N##_atomic_swap,))
#define SHMI_GEN_atomic_compare_swap(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_AMO(T *: shmem_##N##_atomic_compare_swap,))
#define SHMI_GEN_atomic_fetch_inc(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_AMO(T *: shmem_##N##_atomic_fetch_inc,))
#define SHMI_GEN_atomic_inc(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_AMO(T *: shmem_##N##_atomic_inc,))
#define SHMI_GEN_atomic_fetch_add(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_AMO(T *: shmem_##N##_atomic_fetch_add,))
#define SHMI_GEN_atomic_add(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_AMO(T *: shmem_##N##_atomic_add,))
#define SHMI_GEN_atomic_fetch_and(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: shmem_##N##_atomic_fetch_and,))
#define SHMI_GEN_atomic_and(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: shmem_##N##_atomic_and,))
#define SHMI_GEN_atomic_fetch_or(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: shmem_##N##_atomic_fetch_or,))
#define SHMI_GEN_atomic_or(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: shmem_##N##_atomic_or,))
#define SHMI_GEN_atomic_fetch_xor(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: shmem_##N##_atomic_fetch_xor,))
#define SHMI_GEN_atomic_xor(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: shmem_##N##_atomic_xor,))
/* The first argument's pointer type picks the routine; an unsupported type is
 * a compile error naming shmi_no_such_type. */
void shmi_no_such_type(void);
#define SHMI_GENERIC(op, x) _Generic((x), SHMI_GEN_CASES(op) default: shmi_no_such_type)
/* The bitwise AMO types include int32_t and int64_t (spec table "Bitwise AMO
 * Types"), but those rows are NOGEN and alias int/long (or long long), whose
 * rows have no bitwise AMOs, so no case above matches them: add them here.
 * No duplicate case is possible, since int, long and long long have BIT NONE. */
#define SHMI_GENERIC_BIT(op, x)                                                   \
    _Generic((x), SHMI_GEN_CASES(op) int32_t *: shmem_int32_##op,                \
             int64_t *: shmem_int64_##op, default: shmi_no_such_type)
#define shmem_put(d, ...) SHMI_GENERIC(put, d)(d, __VA_ARGS__)
#define shmem_get(d, ...) SHMI_GENERIC(get, d)(d, __VA_ARGS__)
#define shmem_put_nbi(d, ...) SHMI_GENERIC(put_nbi, d)(d, __VA_ARGS__)
#define shmem_get_nbi(d, ...) SHMI_GENERIC(get_nbi, d)(d, __VA_ARGS__)
#define shmem_p(d, ...) SHMI_GENERIC(p, d)(d, __VA_ARGS__)
#define shmem_g(s, ...) SHMI_GENERIC(g, s)(s, __VA_ARGS__)
#define shmem_iput(d, ...) SHMI_GENERIC(iput, d)(d, __VA_ARGS__)
#define shmem_iget(d, ...) SHMI_GENERIC(iget, d)(d, __VA_ARGS__)
#define shmem_broadcast(team, d, ...) SHMI_GENERIC(broadcast, d)(team, d, __VA_ARGS__)
#define shmem_wait_until(v, ...) SHMI_GENERIC(wait_until, v)(v, __VA_ARGS__)
#define shmem_test(v, ...) SHMI_GENERIC(test, v)(v, __VA_ARGS__)
#define shmem_atomic_fetch(s, ...) SHMI_GENERIC(atomic_fetch, s)(s, __VA_ARGS__)
#define shmem_atomic_set(d, ...) SHMI_GENERIC(atomic_set, d)(d, __VA_ARGS__)
#define shmem_atomic_swap(d, ...) SHMI_GENERIC(atomic_swap, d)(d, __VA_ARGS__)
#define shmem_atomic_compare_swap(d, ...) SHMI_GENERIC(atomic_compare_swap, d)(d, __VA_ARGS__)
#define shmem_atomic_fetch_inc(d, ...) SHMI_GENERIC(atomic_fetch_inc, d)(d, __VA_ARGS__)
#define shmem_atomic_inc(d, ...) SHMI_GENERIC(atomic_inc, d)(d, __VA_ARGS__)
#define shmem_atomic_fetch_add(d, ...) SHMI_GENERIC(atomic_fetch_add, d)(d, __VA_ARGS__)
#define shmem_atomic_add(d, ...) SHMI_GENERIC(atomic_add, d)(d, __VA_ARGS__)
#define shmem_atomic_fetch_and(d, ...) SHMI_GENERIC_BIT(atomic_fetch_and, d)(d, __VA_ARGS__)
#define shmem_atomic_and(d, ...) SHMI_GENERIC_BIT(atomic_and, d)(d, __VA_ARGS__)
#define shmem_atomic_fetch_or(d, ...) SHMI_GENERIC_BIT(atomic_fetch_or, d)(d, __VA_ARGS__)
#define shmem_atomic_or(d, ...) SHMI_GENERIC_BIT(atomic_or, d)(d, __VA_ARGS__)
#define shmem_atomic_fetch_xor(d, ...) SHMI_GENERIC_BIT(atomic_fetch_xor, d)(d, __VA_ARGS__)
#define shmem_atomic_xor(d, ...) SHMI_GENERIC_BIT(atomic_xor, d)(d, __VA_ARGS__)
#endif

#endif
