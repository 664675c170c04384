/* wait.c - point-to-point synchronization: wait_until and test, their
 * _all/_any/_some and _vector forms, generated from the type table (rows
 * with SYNC: the spec's standard AMO types plus short and unsigned short).
 *
 * One descriptor (struct p2p) covers every form: the array, its element size
 * and signedness, the status mask and either one comparison value or a
 * vector.  Waits hand a ready-callback to shmi_wait (spin, yield, then futex
 * sleep on our doorbell, which every put/AMO/signal to us rings).  Loads are
 * acquire loads, so data written before the update that satisfied the
 * condition is visible when a wait returns.
 *
 * Semantics worth knowing: wait_until_all waits for the elements one after
 * the other (an element once seen satisfied is not re-checked, as in other
 * implementations); _any starts its scan at a rotating index, so a series of
 * calls returns every ready element eventually (spec); a test that keeps
 * failing yields the CPU now and then, because programs poll tests in tight
 * loops and with more PEs than cores the spinning PE would starve the one it
 * waits for.  wait_until and test on one element take a short path. */
#include "util/tls.h"
#include "api/ctx.h"

#include <sched.h>
#include <shmemx.h> /* shmemx_wait_stats */

struct p2p_out {
    size_t next;       /* wait_all: first element not yet seen satisfied */
    size_t found;      /* _any: index, _some: count */
    uint64_t seen;     /* the value that satisfied the last check */
};

struct p2p {
    const char *ivars;
    size_t nelems, size;
    int is_signed, cmp;
    const int *status;     /* NULL: every element */
    uint64_t value;        /* scalar forms */
    const void *values;    /* _vector forms: cmp_values[nelems] */
    int is_vector;
    size_t *indices;       /* _some forms */
    struct p2p_out *out;
};

static uint64_t load_bits(const void *p, size_t size, int is_signed)
{
    switch (size) {
    case 1: { uint8_t v = __atomic_load_n((const uint8_t *)p, __ATOMIC_ACQUIRE);
              return is_signed ? (uint64_t)(int64_t)(int8_t)v : v; }
    case 2: { uint16_t v = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
              return is_signed ? (uint64_t)(int64_t)(int16_t)v : v; }
    case 4: { uint32_t v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
              return is_signed ? (uint64_t)(int64_t)(int32_t)v : v; }
    default: return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

static int compare(int cmp, int is_signed, uint64_t v, uint64_t x)
{
    int lt = is_signed ? (int64_t)v < (int64_t)x : v < x;
    switch (cmp) {
    case SHMEM_CMP_EQ: return v == x;
    case SHMEM_CMP_NE: return v != x;
    case SHMEM_CMP_GT: return !lt && v != x;
    case SHMEM_CMP_GE: return !lt;
    case SHMEM_CMP_LT: return lt;
    default: return lt || v == x; /* LE */
    }
}

static int in_set(const struct p2p *w, size_t i) { return !w->status || !w->status[i]; }

/* Element i satisfies the condition (its value goes to out->seen). */
static int elem_ok(const struct p2p *w, size_t i)
{
    uint64_t v = load_bits(w->ivars + i * w->size, w->size, w->is_signed);
    uint64_t x = w->is_vector ? load_bits((const char *)w->values + i * w->size, w->size,
                                       w->is_signed) : w->value;
    w->out->seen = v;
    return compare(w->cmp, w->is_signed, v, x);
}

static int set_empty(const struct p2p *w)
{
    for (size_t i = 0; i < w->nelems; i++)
        if (in_set(w, i)) return 0;
    return 1;
}

static int ready_all(const void *arg)
{
    const struct p2p *w = arg;
    size_t i = w->out->next;
    while (i < w->nelems && (!in_set(w, i) || elem_ok(w, i))) i++;
    w->out->next = i;
    return i == w->nelems;
}

static int ready_any(const void *arg)
{
    static SHMI_TLS size_t rotate;
    const struct p2p *w = arg;
    size_t start = rotate++ % w->nelems;
    for (size_t k = 0; k < w->nelems; k++) {
        size_t i = (start + k) % w->nelems;
        if (in_set(w, i) && elem_ok(w, i)) {
            w->out->found = i;
            return 1;
        }
    }
    return 0;
}

static int ready_some(const void *arg)
{
    const struct p2p *w = arg;
    size_t n = 0;
    for (size_t i = 0; i < w->nelems; i++)
        if (in_set(w, i) && elem_ok(w, i)) w->indices[n++] = i;
    w->out->found = n;
    return n > 0;
}

/* Checks shared by every form; results will go to *out. */
static void setup(const char *fn, struct p2p *w, struct p2p_out *out, int need_indices)
{
    shmi_check_running(fn);
    if (w->cmp < SHMEM_CMP_EQ || w->cmp > SHMEM_CMP_LE)
        shmi_fatal("%s: cmp=%d is not a comparison: use SHMEM_CMP_EQ, _NE, _GT, _GE, _LT "
                   "or _LE", fn, w->cmp);
    *out = (struct p2p_out){ 0, SIZE_MAX, 0 };
    w->out = out;
    if (w->nelems == 0) return;
    if (shmi_mul_overflows(w->nelems, w->size, NULL))
        shmi_fatal("%s: nelems=%zu overflows size_t: a negative count converted to size_t?",
                   fn, w->nelems);
    shmi_sym_cpu(fn, "ivars", w->ivars, w->nelems * w->size);
    if ((uintptr_t)w->ivars % w->size)
        shmi_fatal("%s: ivars=%p is not aligned to its %zu-byte type", fn, (void *)w->ivars,
                   w->size);
    if (need_indices && !w->indices)
        shmi_fatal("%s: indices is NULL: pass an array of nelems=%zu size_t", fn, w->nelems);
    if (w->is_vector && !w->values)
        shmi_fatal("%s: cmp_values is NULL: pass an array of nelems=%zu values", fn, w->nelems);
}

/* Sleep-capable wait; tells the watchdog what we wait for (first element). */
static void block(const char *fn, struct p2p *w, int (*ready)(const void *))
{
    struct shmi_wait_desc d = { fn, w->ivars, w->cmp, w->is_vector ? 0 : w->value, 0, 0 };
    shmi_wait_cur = &d;
    shmi_wait_data(&shmi_g.ctl->bell, w->ivars, w->nelems * w->size, ready, w);
}

static void wait_all(const char *fn, struct p2p *w)
{
    struct p2p_out out;
    setup(fn, w, &out, 0);
    if (!ready_all(w)) block(fn, w, ready_all);
}

static size_t wait_any(const char *fn, struct p2p *w)
{
    struct p2p_out out;
    setup(fn, w, &out, 0);
    if (set_empty(w)) return SIZE_MAX;
    if (!ready_any(w)) block(fn, w, ready_any);
    return out.found;
}

static size_t wait_some(const char *fn, struct p2p *w)
{
    struct p2p_out out;
    setup(fn, w, &out, 1);
    if (set_empty(w)) return 0;
    if (!ready_some(w)) block(fn, w, ready_some);
    return out.found;
}

/* Yield on every 128th failed test of this thread (see top).  Success does
 * not touch the thread-local counter: in a shared library that costs a call. */
static int tested(int ok)
{
    static SHMI_TLS unsigned misses;
    if (!ok && ++misses % 128 == 0) sched_yield();
    return ok;
}

static int test_all(const char *fn, struct p2p *w)
{
    struct p2p_out out;
    setup(fn, w, &out, 0);
    return tested(ready_all(w));
}

static size_t test_any(const char *fn, struct p2p *w)
{
    struct p2p_out out;
    setup(fn, w, &out, 0);
    return tested(w->nelems && ready_any(w)) ? out.found : SIZE_MAX;
}

static size_t test_some(const char *fn, struct p2p *w)
{
    struct p2p_out out;
    setup(fn, w, &out, 1);
    tested(w->nelems && ready_some(w));
    return w->nelems ? out.found : 0;
}

/* ---- Single element (wait_until, test, signal_wait_until): a short path
 * for the common case that the condition already holds. */
static void check_one(const char *fn, const void *ivar, size_t size, int cmp)
{
    shmi_check_running(fn);
    if (!SHMI_LIKELY(cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE))
        shmi_fatal("%s: cmp=%d is not a comparison: use SHMEM_CMP_EQ, _NE, _GT, _GE, _LT "
                   "or _LE", fn, cmp);
    shmi_sym(fn, "ivar", ivar, size, shmi_g.me);
    if ((uintptr_t)ivar % size)
        shmi_fatal("%s: ivar=%p is not aligned to its %zu-byte type", fn, ivar, size);
}

uint64_t shmi_wait_until(const char *fn, const void *ivar, size_t size, int is_signed, int cmp,
                         uint64_t value)
{
    check_one(fn, ivar, size, cmp);
    uint64_t v = load_bits(ivar, size, is_signed);
    if (compare(cmp, is_signed, v, value)) return v;
    struct p2p w = { ivar, 1, size, is_signed, cmp, NULL, value, NULL, 0, NULL, NULL };
    struct p2p_out out;
    setup(fn, &w, &out, 0);
    block(fn, &w, ready_all);
    return out.seen;
}

static int test_one(const char *fn, const void *ivar, size_t size, int is_signed, int cmp,
                    uint64_t value)
{
    check_one(fn, ivar, size, cmp);
    return tested(compare(cmp, is_signed, load_bits(ivar, size, is_signed), value));
}

/* ---- Typed entry points -------------------------------------------------------- */

#define P2P(T, iv, n, idx, st, c, v, vs, isvec)                                           \
    (&(struct p2p){ (const char *)(iv), (n), sizeof(T), SHMI_SIGNED(T), (c), (st),        \
                    SHMI_BITS(T, v), (vs), (isvec), (idx), NULL })
#define SCALAR(T, idx) P2P(T, ivars, nelems, idx, status, cmp, cmp_value, NULL, 0)
#define VECTOR(T, idx) P2P(T, ivars, nelems, idx, status, cmp, 0, cmp_values, 1)

#define SHMI_DEF_SYNC(N, T, A, B, S, G) SHMI_WHEN_##S##_SYNC(                              \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                            \
    { shmi_wait_until(__func__, ivar, sizeof(T), SHMI_SIGNED(T), cmp, SHMI_BITS(T, cmp_value)); } \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                   \
    { return test_one(__func__, ivar, sizeof(T), SHMI_SIGNED(T), cmp, SHMI_BITS(T, cmp_value)); })
SHMEM_TYPE_TABLE(SHMI_DEF_SYNC)

#define SHMI_DEF_WAITS(N, T, A, B, S, G) SHMI_WHEN_##S##_SYNC(                             \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,   \
                                    T cmp_value)                                          \
    { wait_all(__func__, SCALAR(T, NULL)); }                                              \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, \
                                      T cmp_value)                                        \
    { return wait_any(__func__, SCALAR(T, NULL)); }                                       \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,          \
                                       const int *status, int cmp, T cmp_value)           \
    { return wait_some(__func__, SCALAR(T, indices)); }                                   \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,    \
                                           int cmp, const T *cmp_values)                  \
    { wait_all(__func__, VECTOR(T, NULL)); }                                              \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,  \
                                             int cmp, const T *cmp_values)                \
    { return wait_any(__func__, VECTOR(T, NULL)); }                                       \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,   \
                                              const int *status, int cmp,                 \
                                              const T *cmp_values)                        \
    { return wait_some(__func__, VECTOR(T, indices)); }                                   \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,         \
                             T cmp_value)                                                 \
    { return test_all(__func__, SCALAR(T, NULL)); }                                       \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,      \
                                T cmp_value)                                              \
    { return test_any(__func__, SCALAR(T, NULL)); }                                       \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,                \
                                 const int *status, int cmp, T cmp_value)                 \
    { return test_some(__func__, SCALAR(T, indices)); }                                   \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                    const T *cmp_values)                                  \
    { return test_all(__func__, VECTOR(T, NULL)); }                                       \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,        \
                                       int cmp, const T *cmp_values)                      \
    { return test_any(__func__, VECTOR(T, NULL)); }                                       \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,         \
                                        const int *status, int cmp,                       \
                                        const T *cmp_values)                              \
    { return test_some(__func__, VECTOR(T, indices)); })
SHMEM_TYPE_TABLE(SHMI_DEF_WAITS)

/* ---- Doorbell counters (shmemx_debug.h) ------------------------------------------ */

int shmemx_wait_stats(int pe, shmemx_wait_stats_t *stats)
{
    if (shmi_g.phase != SHMI_RUNNING || !stats || pe < 0 || pe >= shmi_g.npes ||
        !shmi_tp_mapped(&shmi_g.tp, pe))
        return -1;
    struct shmi_bell *b = &shmi_ctl_of(pe)->bell;
    stats->data_wakes = __atomic_load_n(&b->wakes_data, __ATOMIC_RELAXED);
    stats->sync_wakes = __atomic_load_n(&b->wakes_sync, __ATOMIC_RELAXED);
    stats->other_wakes = __atomic_load_n(&b->wakes_all, __ATOMIC_RELAXED);
    stats->data_checks = __atomic_load_n(&b->checks_data, __ATOMIC_RELAXED);
    /* sleepers a ring can wake: barrier/collective and catch-all ones, and
     * data waits with an armed slot (armed after they counted themselves
     * in, disarmed by the writer that wakes them; transport/wait.c) */
    unsigned n = __atomic_load_n(&b->sync, __ATOMIC_ACQUIRE);
    stats->sleeping_sync = n;
    n += __atomic_load_n(&b->any, __ATOMIC_ACQUIRE);
    for (int i = 0; i < SHMI_BELL_SLOTS; i++) n += !!__atomic_load_n(&b->slot[i].hi, __ATOMIC_ACQUIRE);
    stats->sleeping = n;
    return 0;
}
