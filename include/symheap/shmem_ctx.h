/* shmem_ctx.h - communication contexts, block-strided RMA, non-blocking AMOs,
 * signals, multi-element waits and tests, distributed locks.  Part of
 * shmem.h; include shmem.h, not this file.
 *
 * Every RMA and AMO routine has a shmem_ctx_ form taking the context first;
 * the plain form is the same routine on SHMEM_CTX_DEFAULT.  PE numbers given
 * to a ctx_ routine are relative to the context's team.  On a PE of this node
 * every operation is complete when it returns, so _nbi forms complete at once
 * and shmem_ctx_quiet/fence only order; on a PE of another node an _nbi form
 * only starts the transfer and shmem_ctx_quiet completes it.  All routines
 * here are thread safe under
 * SHMEM_THREAD_MULTIPLE, except that one context created with
 * SHMEM_CTX_SERIALIZED or SHMEM_CTX_PRIVATE must be used as its option says. */
#ifndef SHMEM_CTX_H
#define SHMEM_CTX_H

/* ---- Contexts --------------------------------------------------------------- */
#define SHMEM_CTX_SERIALIZED (1L << 0) /* not used by two threads at once */
#define SHMEM_CTX_PRIVATE (1L << 1)    /* used (and destroyed) by its creator thread only */
#define SHMEM_CTX_NOSTORE (1L << 2)    /* quiet/fence need not order plain stores */
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* Not collective.  0 and a valid *ctx on success; nonzero and
 * SHMEM_CTX_INVALID in *ctx when no context can be made now (the library
 * stays usable).  Unknown option bits are an error.  The context belongs to
 * the world team (shmem_ctx_create) or to team (PE numbers then count within
 * the team); team == SHMEM_TEAM_INVALID gives nonzero. */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
/* Quiet, then free.  SHMEM_CTX_INVALID: nothing.  Destroying twice, or
 * destroying SHMEM_CTX_DEFAULT, is an error. */
void shmem_ctx_destroy(shmem_ctx_t ctx);
/* SHMEM_TEAM_WORLD for the default and shmem_ctx_create contexts; nonzero
 * and SHMEM_TEAM_INVALID for SHMEM_CTX_INVALID. */
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
/* Complete (quiet) or order (fence) this context's operations;
 * SHMEM_CTX_INVALID: nothing. */
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_ctx_fence(shmem_ctx_t ctx);
/* Quiet towards the npes PEs of target_pes only (ctx team numbering);
 * npes == 0: returns at once and target_pes is ignored. */
void shmem_pe_quiet(const int *target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* Sessions are performance hints; accepted and ignored (the spec allows it). */
#define SHMEM_CTX_SESSION_BATCH (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;
void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* SHMI_BOTH(R, NAME, params...): the plain routine shmem_NAME(params) and its
 * context form shmem_ctx_NAME(ctx, params). */
#define SHMI_BOTH(R, NAME, ...) R shmem_##NAME(__VA_ARGS__); R shmem_ctx_##NAME(shmem_ctx_t ctx, __VA_ARGS__);

/* ---- Context forms of RMA, and block-strided RMA ----------------------------
 * ibput/ibget copy nblocks blocks of bsize elements; block i goes from
 * source + i*sst to dest + i*dst (strides in elements, each >= bsize). */
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);

#define SHMI_DECL_CTX_RMA(N, T, A, B, S, G)                                             \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe);                                                \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                 int pe);                                                \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                      \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                          \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems, int pe);                     \
    SHMI_BOTH(void, N##_ibput, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,     \
              size_t bsize, size_t nblocks, int pe)                                      \
    SHMI_BOTH(void, N##_ibget, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,     \
              size_t bsize, size_t nblocks, int pe)
SHMEM_TYPE_TABLE(SHMI_DECL_CTX_RMA)

#define SHMI_DECL_CTX_SIZED(BITS, BYTES)                                                \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe);                                                    \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                             int pe);                                                    \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,        \
                                   size_t nelems, int pe);                               \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,        \
                                   size_t nelems, int pe);                               \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                     \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, \
                              ptrdiff_t sst, size_t nelems, int pe);                     \
    SHMI_BOTH(void, ibput##BITS, void *dest, const void *source, ptrdiff_t dst,            \
              ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)                       \
    SHMI_BOTH(void, ibget##BITS, void *dest, const void *source, ptrdiff_t dst,            \
              ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)
SHMEM_SIZE_TABLE(SHMI_DECL_CTX_SIZED)

/* ---- Context forms of AMOs, and non-blocking fetching AMOs ------------------
 * A _nbi AMO stores the fetched value into *fetch (local memory); it is
 * complete, like every operation here, when it returns. */
#define SHMI_DECL_CTX_AMO(N, T, A, B, S, G)                                             \
    SHMI_WHEN_##A##_EXTAMO(                                                              \
        T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);        \
        void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);      \
        T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);        \
        SHMI_BOTH(void, N##_atomic_fetch_nbi, T *fetch, const T *source, int pe)         \
        SHMI_BOTH(void, N##_atomic_swap_nbi, T *fetch, T *dest, T value, int pe))        \
    SHMI_WHEN_##A##_AMO(                                                                 \
        T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, \
                                              int pe);                                   \
        T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);            \
        void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);               \
        T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);   \
        void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);      \
        SHMI_BOTH(void, N##_atomic_compare_swap_nbi, T *fetch, T *dest, T cond, T value, \
                  int pe)                                                                \
        SHMI_BOTH(void, N##_atomic_fetch_inc_nbi, T *fetch, T *dest, int pe)             \
        SHMI_BOTH(void, N##_atomic_fetch_add_nbi, T *fetch, T *dest, T value, int pe))   \
    SHMI_WHEN_##B##_BIT(                                                                 \
        T shmem_ctx_##N##_atomic_fetch_and(shmem_ctx_t ctx, T *dest, T value, int pe);   \
        void shmem_ctx_##N##_atomic_and(shmem_ctx_t ctx, T *dest, T value, int pe);      \
        T shmem_ctx_##N##_atomic_fetch_or(shmem_ctx_t ctx, T *dest, T value, int pe);    \
        void shmem_ctx_##N##_atomic_or(shmem_ctx_t ctx, T *dest, T value, int pe);       \
        T shmem_ctx_##N##_atomic_fetch_xor(shmem_ctx_t ctx, T *dest, T value, int pe);   \
        void shmem_ctx_##N##_atomic_xor(shmem_ctx_t ctx, T *dest, T value, int pe);      \
        SHMI_BOTH(void, N##_atomic_fetch_and_nbi, T *fetch, T *dest, T value, int pe)    \
        SHMI_BOTH(void, N##_atomic_fetch_or_nbi, T *fetch, T *dest, T value, int pe)     \
        SHMI_BOTH(void, N##_atomic_fetch_xor_nbi, T *fetch, T *dest, T value, int pe))
SHMEM_TYPE_TABLE(SHMI_DECL_CTX_AMO)

/* ---- Signals -------------------------------------------------------------------
 * The signal word is a symmetric uint64_t.  put_signal copies the data, then
 * updates pe's *sig_addr atomically (SHMEM_SIGNAL_SET: store, _ADD: add) with
 * release order: a PE that sees the signal sees the data.  sig_addr must not
 * overlap dest.  The waiter is woken even when asleep in a wait. */
#define SHMEM_SIGNAL_SET 1
#define SHMEM_SIGNAL_ADD 2
#define SHMI_SIGNAL_ARGS uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
SHMI_BOTH(void, putmem_signal, void *dest, const void *source, size_t nelems, SHMI_SIGNAL_ARGS)
SHMI_BOTH(void, putmem_signal_nbi, void *dest, const void *source, size_t nelems,
          SHMI_SIGNAL_ARGS)
#define SHMI_DECL_SIGNAL(N, T, A, B, S, G)                                                \
    SHMI_BOTH(void, N##_put_signal, T *dest, const T *source, size_t nelems, SHMI_SIGNAL_ARGS) \
    SHMI_BOTH(void, N##_put_signal_nbi, T *dest, const T *source, size_t nelems,           \
              SHMI_SIGNAL_ARGS)
SHMEM_TYPE_TABLE(SHMI_DECL_SIGNAL)
#define SHMI_DECL_SIZED_SIGNAL(BITS, BYTES)                                               \
    SHMI_BOTH(void, put##BITS##_signal, void *dest, const void *source, size_t nelems,     \
              SHMI_SIGNAL_ARGS)                                                          \
    SHMI_BOTH(void, put##BITS##_signal_nbi, void *dest, const void *source, size_t nelems, \
              SHMI_SIGNAL_ARGS)
SHMEM_SIZE_TABLE(SHMI_DECL_SIZED_SIGNAL)
/* Atomic read of our own signal word. */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
/* Atomically add to / store into pe's signal word (and wake its waiters). */
SHMI_BOTH(void, signal_add, uint64_t *sig_addr, uint64_t signal, int pe)
SHMI_BOTH(void, signal_set, uint64_t *sig_addr, uint64_t signal, int pe)
/* Block until our *sig_addr satisfies cmp against cmp_value; return the value
 * that satisfied it. */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- Multi-element waits and tests ----------------------------------------------
 * Types: the SYNC rows, i.e. the standard AMO types of the 1.6 spec plus short
 * and unsigned short (which 1.6 keeps, deprecated, for wait_until and test;
 * other implementations offer the multi-element forms on them too).
 * Over ivars[0..nelems), a symmetric array on this PE.  status (optional, may
 * be NULL) excludes element i when status[i] != 0.  _vector forms compare
 * ivars[i] with cmp_values[i].  Empty set: wait_*_all returns at once,
 * _any returns SIZE_MAX, _some returns 0; test_all returns 1.  _any returns
 * an index (rotating start, so every ready index is eventually returned);
 * _some writes the ready indices to indices[] and returns their count.
 * test_any gives SIZE_MAX and test_some 0 when nothing is ready. */
#define SHMI_DECL_WAITS(N, T, A, B, S, G) SHMI_WHEN_##S##_SYNC(                                 \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,     \
                                    T cmp_value);                                        \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,   \
                                      T cmp_value);                                      \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,            \
                                       const int *status, int cmp, T cmp_value);         \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,      \
                                           int cmp, const T *cmp_values);                \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,    \
                                             int cmp, const T *cmp_values);              \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,     \
                                              const int *status, int cmp,                \
                                              const T *cmp_values);                      \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                             T cmp_value);                                               \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                T cmp_value);                                            \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                  \
                                 const int *status, int cmp, T cmp_value);               \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                    const T *cmp_values);                                \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                       const T *cmp_values);                             \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,           \
                                        const int *status, int cmp,                      \
                                        const T *cmp_values);)
SHMEM_TYPE_TABLE(SHMI_DECL_WAITS)

/* ---- Distributed locks ------------------------------------------------------------
 * lock: a symmetric long, 0 on every PE before first use, touched only by
 * these calls afterwards.  First come, first served.  Not reentrant: setting
 * a lock this PE holds, or clearing one it does not hold, is an error.
 * Threads of one PE must not contend for the same lock (spec); clear_lock
 * quiets the default context first.  test_lock: 0 when it took the lock,
 * 1 when the lock was held. */
void shmem_set_lock(long *lock);
int shmem_test_lock(long *lock);
void shmem_clear_lock(long *lock);

#endif
