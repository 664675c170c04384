/* sync.c - barriers, checked collectives, ordering, point-to-point waits.
 *
 * Barrier: dissemination (ceil(log2 n) rounds, any n).  In round r, PE i
 * writes the barrier's epoch into PE (i + 2^r) % n's flag r and waits until
 * its own flag r has reached the epoch.  Epochs only grow, so a partner that
 * already raced into the next barrier (epoch + 1) still satisfies ">= epoch";
 * flags never need resetting.
 *
 * Checked collectives: before the barrier each PE publishes a signature
 * (sequence number, operation, arguments, result) in its control block, slot
 * seq % 2; after it, every PE compares its own with PE 0's.  PE 0 cannot
 * overwrite that slot before everybody read it: that needs the next checked
 * collective's barrier, which waits for us.  Cost: one remote read. */
#include "api/state.h"

#include <shmem.h>

#include <stdio.h>
#include <string.h>

struct flag_wait {
    const uint64_t *flag;
    uint64_t want;
};

static int flag_ready(const void *arg)
{
    const struct flag_wait *w = arg;
    return __atomic_load_n(w->flag, __ATOMIC_ACQUIRE) >= w->want;
}

void shmi_barrier(void)
{
    uint64_t e = ++shmi_g.bar_epoch;
    int n = shmi_g.npes, me = shmi_g.me;
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        struct shmi_ctl *peer = shmi_ctl_of((me + dist) % n);
        __atomic_store_n(&peer->bar[r].epoch, e, __ATOMIC_RELEASE);
        shmi_ring(&peer->bell);
        struct flag_wait w = { &shmi_g.ctl->bar[r].epoch, e };
        if (!flag_ready(&w)) {
            struct shmi_wait_desc d = { "a barrier (barrier_all, sync or a collective)", NULL,
                                        -1, 0, e };
            shmi_wait_cur = &d;
            shmi_wait(&shmi_g.ctl->bell, flag_ready, &w);
        }
    }
}

static const char *op_name[SHMI_OP_COUNT] = {
    [SHMI_OP_NONE] = "(no checked collective yet)",
    [SHMI_OP_MALLOC] = "shmem_malloc", [SHMI_OP_CALLOC] = "shmem_calloc",
    [SHMI_OP_ALIGN] = "shmem_align", [SHMI_OP_REALLOC] = "shmem_realloc",
    [SHMI_OP_FREE] = "shmem_free", [SHMI_OP_HINTS] = "shmem_malloc_with_hints",
    [SHMI_OP_FINALIZE] = "shmem_finalize",
};

static void describe(const struct shmi_sig *s, char *buf, size_t len)
{
    const char *name = s->op < SHMI_OP_COUNT ? op_name[s->op] : "?";
    const char *off = shmi_g.user_base;
    switch (s->op) {
    case SHMI_OP_MALLOC:
        snprintf(buf, len, "%s(%lu)", name, (unsigned long)s->arg[0]);
        break;
    case SHMI_OP_CALLOC: case SHMI_OP_ALIGN: case SHMI_OP_HINTS:
        snprintf(buf, len, "%s(%lu, %lu)", name, (unsigned long)s->arg[0],
                 (unsigned long)s->arg[1]);
        break;
    case SHMI_OP_REALLOC:
        snprintf(buf, len, "%s(%p, %lu)", name, (void *)(off + s->arg[0]),
                 (unsigned long)s->arg[1]);
        break;
    case SHMI_OP_FREE:
        snprintf(buf, len, "%s(%p)", name, (void *)(off + s->arg[0]));
        break;
    default:
        snprintf(buf, len, "%s()", name);
    }
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, " [collective call #%lu]", (unsigned long)s->seq);
}

void shmi_barrier_checked(const char *fn, enum shmi_coll_op op, uint64_t a0, uint64_t a1,
                          uint64_t a2)
{
    uint64_t seq = ++shmi_g.coll_seq;
    struct shmi_sig *mine = &shmi_g.ctl->sig[seq & 1];
    *mine = (struct shmi_sig){ seq, op, 0, { a0, a1, a2 } };
    shmi_quiet();
    shmi_barrier();
    if (shmi_g.me == 0) return;
    struct shmi_sig theirs;
    memcpy(&theirs, &shmi_ctl_of(0)->sig[seq & 1], sizeof theirs);
    if (theirs.seq == mine->seq && theirs.op == mine->op &&
        !memcmp(theirs.arg, mine->arg, sizeof mine->arg))
        return;
    char a[160], b[160];
    describe(mine, a, sizeof a);
    describe(&theirs, b, sizeof b);
    if (theirs.seq != mine->seq) {
        shmi_fatal("%s: collective mismatch: this PE is in %s but PE 0 is not in the same "
                   "collective (its last checked one is %s): every PE must make the same "
                   "collective calls in the same order", fn, a, b);
    }
    shmi_fatal("%s: collective mismatch: this PE called %s, PE 0 called %s: every PE must "
               "call collectives with the same arguments%s", fn, a, b,
               op == SHMI_OP_FREE || op == SHMI_OP_REALLOC ? " (free the same pointer)" : "");
}

void shmi_quiet(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

void shmem_quiet(void)
{
    shmi_check_running("shmem_quiet");
    shmi_quiet();
}

void shmem_fence(void)
{
    shmi_check_running("shmem_fence");
    /* Stores to one PE are already ordered (TSO / release below). */
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

void shmem_barrier_all(void)
{
    shmi_check_running("shmem_barrier_all");
    shmi_quiet();
    shmi_barrier();
}

void shmem_sync_all(void)
{
    shmi_check_running("shmem_sync_all");
    shmi_barrier();
}

int shmem_team_sync(shmem_team_t team)
{
    shmi_check_running("shmem_team_sync");
    if (team != SHMEM_TEAM_WORLD && team != SHMEM_TEAM_SHARED) {
        if (team == SHMEM_TEAM_INVALID) return -1;
        shmi_fatal("shmem_team_sync: team=%p is not a valid team handle", (void *)team);
    }
    shmi_barrier();
    return 0;
}

/* ---- Point-to-point synchronization, generated from the type table ------- */

struct cmp_wait {
    const void *ivar;
    size_t size;
    int is_signed, cmp;
    uint64_t value;
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

static int cmp_ready(const void *arg)
{
    const struct cmp_wait *w = arg;
    uint64_t v = load_bits(w->ivar, w->size, w->is_signed), x = w->value;
    int lt = w->is_signed ? (int64_t)v < (int64_t)x : v < x;
    switch (w->cmp) {
    case SHMEM_CMP_EQ: return v == x;
    case SHMEM_CMP_NE: return v != x;
    case SHMEM_CMP_GT: return !lt && v != x;
    case SHMEM_CMP_GE: return !lt;
    case SHMEM_CMP_LT: return lt;
    default: return lt || v == x; /* LE */
    }
}

static void cmp_setup(const char *fn, struct cmp_wait *w, const void *ivar, size_t size,
                      int is_signed, int cmp, uint64_t value)
{
    shmi_check_running(fn);
    shmi_sym(fn, "ivar", ivar, size, shmi_g.me);
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmi_fatal("%s: cmp=%d is not a comparison: use SHMEM_CMP_EQ, _NE, _GT, _GE, _LT "
                   "or _LE", fn, cmp);
    if ((uintptr_t)ivar % size)
        shmi_fatal("%s: ivar=%p is not aligned to its %zu-byte type", fn, ivar, size);
    *w = (struct cmp_wait){ ivar, size, is_signed, cmp, value };
}

static void shmi_wait_until(const char *fn, const void *ivar, size_t size, int is_signed, int cmp,
                     uint64_t value)
{
    struct cmp_wait w;
    cmp_setup(fn, &w, ivar, size, is_signed, cmp, value);
    if (!cmp_ready(&w)) {
        struct shmi_wait_desc d = { fn, ivar, cmp, value, 0 };
        shmi_wait_cur = &d;
        shmi_wait(&shmi_g.ctl->bell, cmp_ready, &w);
    }
}

static int shmi_test(const char *fn, const void *ivar, size_t size, int is_signed, int cmp,
              uint64_t value)
{
    struct cmp_wait w;
    cmp_setup(fn, &w, ivar, size, is_signed, cmp, value);
    return cmp_ready(&w);
}

#define SHMI_SIGNED(T) (!((T)-1 > (T)0))
#define SHMI_BITS(T, v) (SHMI_SIGNED(T) ? (uint64_t)(int64_t)(v) : (uint64_t)(v))
#define SHMI_DEF_SYNC(N, T, A, B, S, G)                                                 \
    SHMI_WHEN_##S##_SYNC(                                                               \
    void shmem_##N##_wait_until(T *ivar, int cmp, T value)                              \
    { shmi_wait_until(__func__, ivar, sizeof(T), SHMI_SIGNED(T), cmp, SHMI_BITS(T, value)); } \
    int shmem_##N##_test(T *ivar, int cmp, T value)                                     \
    { return shmi_test(__func__, ivar, sizeof(T), SHMI_SIGNED(T), cmp, SHMI_BITS(T, value)); })
SHMEM_TYPE_TABLE(SHMI_DEF_SYNC)
