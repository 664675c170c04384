/* shmem_generic.h - the C11 _Generic interfaces of shmem.h (include shmem.h,
 * not this file).  Cases come from SHMEM_TYPE_TABLE rows marked GEN.
 *
 * RMA, AMO and signal generics take an optional context first, as the spec
 * writes them: shmem_put(dest, source, n, pe) and shmem_put(ctx, dest,
 * source, n, pe).  A _Generic on the first argument picks: shmem_ctx_t ->
 * the context routines, selected by the second argument's type; anything
 * else -> the plain routines, selected by the first argument's type.  Both
 * branches are type-checked but only the chosen one is used, and no argument
 * is evaluated twice.  A type an operation lacks is a compile error naming
 * shmi_no_such_type. */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

/* ---- Case lists: SHMI_GEN_<op> for the plain routine, SHMI_GEN_ctx_<op> for its
 * context form.  Column filters as in shmem.h. */
#define SHMI_GC_RMA(G, T, F) SHMI_WHEN_##G##_GEN(T *: F,)
#define SHMI_GC_EXT(A, G, T, F) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_EXTAMO(T *: F,))
#define SHMI_GC_STD(A, G, T, F) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_AMO(T *: F,))
#define SHMI_GC_BIT(B, G, T, F) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##B##_BIT(T *: F,))
#define SHMI_GC_SYNC(S, G, T, F) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##S##_SYNC(T *: F,))

#define SHMI_GEN_put(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_put)
#define SHMI_GEN_get(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_get)
#define SHMI_GEN_put_nbi(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_put_nbi)
#define SHMI_GEN_get_nbi(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_get_nbi)
#define SHMI_GEN_p(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_p)
#define SHMI_GEN_g(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(const T *: shmem_##N##_g, T *: shmem_##N##_g,)
#define SHMI_GEN_iput(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_iput)
#define SHMI_GEN_iget(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_iget)
#define SHMI_GEN_ibput(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_ibput)
#define SHMI_GEN_ibget(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_ibget)
#define SHMI_GEN_put_signal(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_put_signal)
#define SHMI_GEN_put_signal_nbi(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_##N##_put_signal_nbi)
#define SHMI_GEN_ctx_put(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_put)
#define SHMI_GEN_ctx_get(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_get)
#define SHMI_GEN_ctx_put_nbi(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_put_nbi)
#define SHMI_GEN_ctx_get_nbi(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_get_nbi)
#define SHMI_GEN_ctx_p(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_p)
#define SHMI_GEN_ctx_g(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(const T *: shmem_ctx_##N##_g, T *: shmem_ctx_##N##_g,)
#define SHMI_GEN_ctx_iput(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_iput)
#define SHMI_GEN_ctx_iget(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_iget)
#define SHMI_GEN_ctx_ibput(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_ibput)
#define SHMI_GEN_ctx_ibget(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_ibget)
#define SHMI_GEN_ctx_put_signal(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_put_signal)
#define SHMI_GEN_ctx_put_signal_nbi(N, T, A, B, S, G) SHMI_GC_RMA(G, T, shmem_ctx_##N##_put_signal_nbi)

#define SHMI_GEN_atomic_fetch(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_EXTAMO(const T *: shmem_##N##_atomic_fetch, T *: shmem_##N##_atomic_fetch,))
#define SHMI_GEN_atomic_set(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_##N##_atomic_set)
#define SHMI_GEN_atomic_swap(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_##N##_atomic_swap)
#define SHMI_GEN_atomic_fetch_nbi(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_##N##_atomic_fetch_nbi)
#define SHMI_GEN_atomic_swap_nbi(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_##N##_atomic_swap_nbi)
#define SHMI_GEN_atomic_compare_swap(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_compare_swap)
#define SHMI_GEN_atomic_fetch_inc(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_fetch_inc)
#define SHMI_GEN_atomic_inc(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_inc)
#define SHMI_GEN_atomic_fetch_add(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_fetch_add)
#define SHMI_GEN_atomic_add(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_add)
#define SHMI_GEN_atomic_compare_swap_nbi(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_compare_swap_nbi)
#define SHMI_GEN_atomic_fetch_inc_nbi(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_fetch_inc_nbi)
#define SHMI_GEN_atomic_fetch_add_nbi(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_##N##_atomic_fetch_add_nbi)
#define SHMI_GEN_atomic_fetch_and(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_fetch_and)
#define SHMI_GEN_atomic_and(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_and)
#define SHMI_GEN_atomic_fetch_or(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_fetch_or)
#define SHMI_GEN_atomic_or(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_or)
#define SHMI_GEN_atomic_fetch_xor(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_fetch_xor)
#define SHMI_GEN_atomic_xor(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_xor)
#define SHMI_GEN_atomic_fetch_and_nbi(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_fetch_and_nbi)
#define SHMI_GEN_atomic_fetch_or_nbi(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_fetch_or_nbi)
#define SHMI_GEN_atomic_fetch_xor_nbi(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_##N##_atomic_fetch_xor_nbi)
#define SHMI_GEN_ctx_atomic_fetch(N, T, A, B, S, G) SHMI_WHEN_##G##_GEN(SHMI_WHEN_##A##_EXTAMO(const T *: shmem_ctx_##N##_atomic_fetch, T *: shmem_ctx_##N##_atomic_fetch,))
#define SHMI_GEN_ctx_atomic_set(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_ctx_##N##_atomic_set)
#define SHMI_GEN_ctx_atomic_swap(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_ctx_##N##_atomic_swap)
#define SHMI_GEN_ctx_atomic_fetch_nbi(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_ctx_##N##_atomic_fetch_nbi)
#define SHMI_GEN_ctx_atomic_swap_nbi(N, T, A, B, S, G) SHMI_GC_EXT(A, G, T, shmem_ctx_##N##_atomic_swap_nbi)
#define SHMI_GEN_ctx_atomic_compare_swap(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_compare_swap)
#define SHMI_GEN_ctx_atomic_fetch_inc(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_fetch_inc)
#define SHMI_GEN_ctx_atomic_inc(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_inc)
#define SHMI_GEN_ctx_atomic_fetch_add(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_fetch_add)
#define SHMI_GEN_ctx_atomic_add(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_add)
#define SHMI_GEN_ctx_atomic_compare_swap_nbi(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_compare_swap_nbi)
#define SHMI_GEN_ctx_atomic_fetch_inc_nbi(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_fetch_inc_nbi)
#define SHMI_GEN_ctx_atomic_fetch_add_nbi(N, T, A, B, S, G) SHMI_GC_STD(A, G, T, shmem_ctx_##N##_atomic_fetch_add_nbi)
#define SHMI_GEN_ctx_atomic_fetch_and(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_fetch_and)
#define SHMI_GEN_ctx_atomic_and(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_and)
#define SHMI_GEN_ctx_atomic_fetch_or(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_fetch_or)
#define SHMI_GEN_ctx_atomic_or(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_or)
#define SHMI_GEN_ctx_atomic_fetch_xor(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_fetch_xor)
#define SHMI_GEN_ctx_atomic_xor(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_xor)
#define SHMI_GEN_ctx_atomic_fetch_and_nbi(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_fetch_and_nbi)
#define SHMI_GEN_ctx_atomic_fetch_or_nbi(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_fetch_or_nbi)
#define SHMI_GEN_ctx_atomic_fetch_xor_nbi(N, T, A, B, S, G) SHMI_GC_BIT(B, G, T, shmem_ctx_##N##_atomic_fetch_xor_nbi)

#define SHMI_GEN_wait_until(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until)
#define SHMI_GEN_test(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test)
#define SHMI_GEN_wait_until_all(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until_all)
#define SHMI_GEN_wait_until_any(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until_any)
#define SHMI_GEN_wait_until_some(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until_some)
#define SHMI_GEN_wait_until_all_vector(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until_all_vector)
#define SHMI_GEN_wait_until_any_vector(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until_any_vector)
#define SHMI_GEN_wait_until_some_vector(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_wait_until_some_vector)
#define SHMI_GEN_test_all(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test_all)
#define SHMI_GEN_test_any(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test_any)
#define SHMI_GEN_test_some(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test_some)
#define SHMI_GEN_test_all_vector(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test_all_vector)
#define SHMI_GEN_test_any_vector(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test_any_vector)
#define SHMI_GEN_test_some_vector(N, T, A, B, S, G) SHMI_GC_SYNC(S, G, T, shmem_##N##_test_some_vector)

/* ---- Selection --------------------------------------------------------------- */
void shmi_no_such_type(void);
#define SHMI_GEN_CASES(op) SHMEM_TYPE_TABLE(SHMI_GEN_##op)
/* The routine for op picked by x's pointer type. */
#define SHMI_GENERIC(op, x) _Generic((x), SHMI_GEN_CASES(op) default: shmi_no_such_type)
/* The bitwise AMO types include int32_t and int64_t (spec table "Bitwise AMO
 * Types"), but those rows are NOGEN and alias int/long (or long long), whose
 * rows have no bitwise AMOs, so no case above matches them: add them here.
 * No duplicate case is possible, since int, long and long long have BIT NONE. */
#define SHMI_GENERIC_BIT(op, x)                                                   \
    _Generic((x), SHMI_GEN_CASES(op) int32_t *: shmem_int32_##op,                \
             int64_t *: shmem_int64_##op, default: shmi_no_such_type)
#define SHMI_GENERIC_CTX_BIT(op, x)                                               \
    _Generic((x), SHMI_GEN_CASES(ctx_##op) int32_t *: shmem_ctx_int32_##op,      \
             int64_t *: shmem_ctx_int64_##op, default: shmi_no_such_type)
#define SHMI_ARG1(a, ...) a
/* Optional context first: a is the first argument, the rest follow. */
#define SHMI_CTXGEN(op, a, ...)                                                   \
    _Generic((a), shmem_ctx_t: SHMI_GENERIC(ctx_##op, SHMI_ARG1(__VA_ARGS__, 0)), \
             default: SHMI_GENERIC(op, a))
#define SHMI_CTXGEN_BIT(op, a, ...)                                               \
    _Generic((a), shmem_ctx_t: SHMI_GENERIC_CTX_BIT(op, SHMI_ARG1(__VA_ARGS__, 0)), \
             default: SHMI_GENERIC_BIT(op, a))
#define SHMI_CTXCALL(op, ...) SHMI_CTXGEN(op, __VA_ARGS__)(__VA_ARGS__)
#define SHMI_CTXCALL_BIT(op, ...) SHMI_CTXGEN_BIT(op, __VA_ARGS__)(__VA_ARGS__)

/* ---- RMA and signals ----------------------------------------------------------- */
#define shmem_put(...) SHMI_CTXCALL(put, __VA_ARGS__)
#define shmem_get(...) SHMI_CTXCALL(get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMI_CTXCALL(put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMI_CTXCALL(get_nbi, __VA_ARGS__)
#define shmem_p(...) SHMI_CTXCALL(p, __VA_ARGS__)
#define shmem_g(...) SHMI_CTXCALL(g, __VA_ARGS__)
#define shmem_iput(...) SHMI_CTXCALL(iput, __VA_ARGS__)
#define shmem_iget(...) SHMI_CTXCALL(iget, __VA_ARGS__)
#define shmem_ibput(...) SHMI_CTXCALL(ibput, __VA_ARGS__)
#define shmem_ibget(...) SHMI_CTXCALL(ibget, __VA_ARGS__)
#define shmem_put_signal(...) SHMI_CTXCALL(put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMI_CTXCALL(put_signal_nbi, __VA_ARGS__)
/* shmem_signal_add/_set are also plain C routines (no ctx); the macro name is
 * not expanded again inside its own expansion, so it calls that routine. */
#define shmem_signal_add(...)                                                     \
    _Generic((SHMI_ARG1(__VA_ARGS__, 0)), shmem_ctx_t: shmem_ctx_signal_add,      \
             default: shmem_signal_add)(__VA_ARGS__)
#define shmem_signal_set(...)                                                     \
    _Generic((SHMI_ARG1(__VA_ARGS__, 0)), shmem_ctx_t: shmem_ctx_signal_set,      \
             default: shmem_signal_set)(__VA_ARGS__)

/* ---- AMOs ------------------------------------------------------------------------ */
#define shmem_atomic_fetch(...) SHMI_CTXCALL(atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) SHMI_CTXCALL(atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMI_CTXCALL(atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMI_CTXCALL(atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMI_CTXCALL(atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMI_CTXCALL(atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMI_CTXCALL(atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SHMI_CTXCALL(atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMI_CTXCALL_BIT(atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...) SHMI_CTXCALL_BIT(atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMI_CTXCALL_BIT(atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...) SHMI_CTXCALL_BIT(atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMI_CTXCALL_BIT(atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMI_CTXCALL_BIT(atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SHMI_CTXCALL(atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMI_CTXCALL(atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) SHMI_CTXCALL(atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMI_CTXCALL(atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMI_CTXCALL(atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMI_CTXCALL_BIT(atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMI_CTXCALL_BIT(atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMI_CTXCALL_BIT(atomic_fetch_xor_nbi, __VA_ARGS__)

/* ---- Point-to-point synchronization (no context) ----------------------------------- */
#define shmem_wait_until(v, ...) SHMI_GENERIC(wait_until, v)(v, __VA_ARGS__)
#define shmem_test(v, ...) SHMI_GENERIC(test, v)(v, __VA_ARGS__)
#define shmem_wait_until_all(v, ...) SHMI_GENERIC(wait_until_all, v)(v, __VA_ARGS__)
#define shmem_wait_until_any(v, ...) SHMI_GENERIC(wait_until_any, v)(v, __VA_ARGS__)
#define shmem_wait_until_some(v, ...) SHMI_GENERIC(wait_until_some, v)(v, __VA_ARGS__)
#define shmem_wait_until_all_vector(v, ...) SHMI_GENERIC(wait_until_all_vector, v)(v, __VA_ARGS__)
#define shmem_wait_until_any_vector(v, ...) SHMI_GENERIC(wait_until_any_vector, v)(v, __VA_ARGS__)
#define shmem_wait_until_some_vector(v, ...) SHMI_GENERIC(wait_until_some_vector, v)(v, __VA_ARGS__)
#define shmem_test_all(v, ...) SHMI_GENERIC(test_all, v)(v, __VA_ARGS__)
#define shmem_test_any(v, ...) SHMI_GENERIC(test_any, v)(v, __VA_ARGS__)
#define shmem_test_some(v, ...) SHMI_GENERIC(test_some, v)(v, __VA_ARGS__)
#define shmem_test_all_vector(v, ...) SHMI_GENERIC(test_all_vector, v)(v, __VA_ARGS__)
#define shmem_test_any_vector(v, ...) SHMI_GENERIC(test_any_vector, v)(v, __VA_ARGS__)
#define shmem_test_some_vector(v, ...) SHMI_GENERIC(test_some_vector, v)(v, __VA_ARGS__)
#endif

#endif
