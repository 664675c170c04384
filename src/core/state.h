/* state.h - the library's one global state and the checks every entry point
 * makes.  Included by core and the layers above it (debug, api, ext).
 *
 * Entry points check, in this order: initialized; PE number in range;
 * addresses symmetric and in bounds.  A failed check calls shmi_fatal with
 * one line naming the PE, the call, the values and the fix; the launcher then
 * ends every PE.  The checks are a few compares on the fast path. */
#ifndef SHMI_STATE_H
#define SHMI_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/boot.h"
#include "core/hooks.h"
#include "heap/alloc.h"
#include "heap/heap.h"
#include "transport/tp.h"
#include "util/env.h"
#include "util/log.h"
#include "util/num.h" /* shmi_mul_overflows, for every file that counts bytes */

#define SHMI_BAR_ROUNDS 16 /* dissemination rounds: up to 65536 PEs */

/* Signature of a collective call, compared across PEs (see sync.c). */
struct shmi_sig {
    uint64_t seq;      /* collective sequence number, same on every PE */
    uint32_t op;       /* enum shmi_coll_op */
    uint32_t pad;
    uint64_t arg[3];   /* arguments that must match, and the result */
};

enum shmi_coll_op {
    SHMI_OP_NONE, SHMI_OP_MALLOC, SHMI_OP_CALLOC, SHMI_OP_ALIGN, SHMI_OP_REALLOC,
    SHMI_OP_FREE, SHMI_OP_HINTS, SHMI_OP_FINALIZE,
    /* teams and team collectives (team.c, coll.c, reduce.c) */
    SHMI_OP_TEAM_SPLIT, SHMI_OP_TEAM_SPLIT_2D, SHMI_OP_TEAM_DESTROY, SHMI_OP_BROADCAST,
    SHMI_OP_COLLECT, SHMI_OP_FCOLLECT, SHMI_OP_ALLTOALL, SHMI_OP_ALLTOALLS, SHMI_OP_REDUCE,
    SHMI_OP_SCAN,
    /* GPU heap (mem_device.c, issue 7); args as the host ops, offsets from gpu.base */
    SHMI_OP_GPU_INIT, SHMI_OP_GPU_MALLOC, SHMI_OP_GPU_CALLOC, SHMI_OP_GPU_ALIGN,
    SHMI_OP_GPU_REALLOC, SHMI_OP_GPU_FREE,
    /* shmem_barrier_all, shmem_sync_all, shmem_team_sync: one kind, checked
     * through the barrier's own flags (sync.c), no signature */
    SHMI_OP_BARRIER,
    SHMI_OP_MIXED, /* central barrier: the members were not all in one kind of call */
    SHMI_OP_COUNT
};

#define SHMI_TEAM_MAX 128  /* teams alive at once on a PE, world and shared included */
#define SHMI_PUB_WORDS 4   /* words a member publishes per team collective */
#define SHMI_STAGE_BYTES 256 /* data a member stages per small team collective (coll.c) */

/* One team's synchronization state on one PE: a slot of the control block
 * (see team.h).  Each written-by-others field has its own cache line. */
struct shmi_tsync {
    struct {
        _Alignas(64) uint64_t epoch;  /* written by the round's partner */
        uint64_t arg[2][3];  /* round 0: the partner's signature arguments, by epoch
                                parity, in the flag's line (sync.c: neighbour check) */
    } bar[SHMI_BAR_ROUNDS];
    _Alignas(64) struct shmi_sig sig[2];          /* by parity of seq; read by peers */
    struct shmi_cur {     /* its barriers, by epoch parity: for error messages only */
        uint64_t w;       /* (epoch << 16) | op */
        uint64_t site;    /* the program's call site (return address), or 0 */
        uint64_t exe;     /* load bias of its executable, to read site in another PE */
    } cur[2];
    _Alignas(64) uint64_t pub[2][SHMI_PUB_WORDS]; /* by parity of seq; read by peers */
    _Alignas(64) uint64_t arrive;  /* central barrier: arrivals (on team rank 0) */
    _Alignas(64) uint64_t release; /* central barrier: epoch released (by the last one) */
    _Alignas(64) uint64_t ready;   /* teams spanning nodes: the collective (seq) whose data
                                      this node's leader has fetched (coll.c broadcast) */
    /* small collectives: the member's data, by parity of seq; read by peers */
    _Alignas(64) unsigned char stage[2][SHMI_STAGE_BYTES];
};

/* Per-PE control block at the start of the symmetric heap: peers reach it with
 * shmi_tp_ptr like any symmetric object.  Each written-by-others field has its
 * own cache line. */
struct shmi_ctl {
    struct shmi_bell bell;
    _Alignas(64) struct shmi_blocked {   /* what this PE sleeps in (watchdog) */
        uint32_t active;                 /* threads of this PE asleep in a wait */
        uint32_t gen;                    /* seqlock over cmp..what: odd while written */
        int32_t cmp;                     /* comparison, or -1 */
        uint64_t addr, want, seq;        /* waited-on address, value, collective # */
        double since;                    /* CLOCK_MONOTONIC seconds */
        char what[48];                   /* e.g. "shmem_barrier_all" */
        uint32_t claimed;                /* PE 0's: a watchdog report is printed */
    } blocked;
    struct shmi_tsync team[SHMI_TEAM_MAX]; /* by team slot; 0 world, 1 shared */
};
#define SHMI_CTL_SIZE ((size_t)256 << 10) /* reserved at the heap's end */
_Static_assert(sizeof(struct shmi_ctl) <= SHMI_CTL_SIZE, "control block exceeds SHMI_CTL_SIZE");

enum { SHMI_UNINIT = 0, SHMI_RUNNING = 1, SHMI_FINALIZED = 2 };

struct shmi_state {
    int phase;                 /* SHMI_UNINIT / RUNNING / FINALIZED */
    int me, npes;
    int thread_level;
    struct shmi_env env;
    shmi_boot_t boot;
    struct shmi_seg heap, globals;
    struct shmi_tp tp;
    shmi_alloc_t *alloc;
    struct shmi_ctl *ctl;      /* ours, = heap.base */
    char *user_base;           /* first byte the allocator hands out */
    size_t user_size;
    size_t zero_hwm;           /* allocator offsets >= this were never handed out */
    struct {                   /* GPU heap (mem_device.h): [base, base+size) */
        uintptr_t base;        /* is GPU memory; 0/0 while there is none */
        size_t size;
    } gpu;
};
extern struct shmi_state shmi_g;

_Noreturn void shmi_not_running(const char *fn);
_Noreturn void shmi_bad_pe(const char *fn, int pe);
_Noreturn void shmi_bad_addr(const char *fn, const char *what, const void *addr, size_t n,
                             int pe);

#define SHMI_LIKELY(x) __builtin_expect(!!(x), 1)

static inline void shmi_check_running(const char *fn)
{
    if (!SHMI_LIKELY(shmi_g.phase == SHMI_RUNNING)) shmi_not_running(fn);
}

static inline void shmi_check_pe(const char *fn, int pe)
{
    shmi_check_running(fn);
    if (!SHMI_LIKELY((unsigned)pe < (unsigned)shmi_g.npes)) shmi_bad_pe(fn, pe);
}

/* Peer pe's copy of the n bytes at symmetric address a (checked). */
static inline void *shmi_sym(const char *fn, const char *what, const void *a, size_t n, int pe)
{
    const struct shmi_tp *tp = &shmi_g.tp;
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < tp->nseg; s++) {
        uintptr_t off = x - tp->seg[s].base;
        if (off < tp->seg[s].size && n <= tp->seg[s].size - off)
            return (void *)(x + (uintptr_t)tp->seg[s].delta[pe]);
    }
    shmi_bad_addr(fn, what, a, n, pe);
}

/* Control block of PE pe. */
static inline struct shmi_ctl *shmi_ctl_of(int pe)
{
    return (struct shmi_ctl *)((char *)shmi_g.ctl + shmi_g.tp.seg[0].delta[pe]);
}

/* What the calling thread is about to wait for: set before shmi_wait so the
 * watchdog can say it (watchdog.c).  Cheap: one thread-local store. */
struct shmi_wait_desc {
    const char *what;          /* public call name */
    const void *addr;          /* waited-on symmetric address, or NULL */
    int cmp;                   /* SHMEM_CMP_*, or -1 */
    uint64_t want, seq;        /* value waited for; barrier/collective number */
};
extern _Thread_local const struct shmi_wait_desc *shmi_wait_cur;
void shmi_watchdog_init(void);

/* PEs on other nodes (net.c): called once shmi_tp_remote(&shmi_g.tp, pe)
 * said so; addresses are our symmetric ones, already checked.  A failure is
 * fatal, naming fn, the PE and its host. */
struct shmem_team_s;
_Noreturn void shmi_net_fail(const char *fn, int pe, int rc);
void shmi_net_put(const char *fn, void *dest, const void *src, size_t n, int pe, int nbi);
void shmi_net_get(const char *fn, void *dest, const void *src, size_t n, int pe, int nbi);
/* op: amo.c's enum (FETCH, SET, SWAP, CSWAP, ADD, AND, OR, XOR); returns the old value. */
uint64_t shmi_net_amo(const char *fn, void *dest, size_t size, int op, uint64_t v, uint64_t c,
                      int pe);
void shmi_net_quiet(void);
void shmi_net_fence(void);
/* n bytes of pe's copy of sym (our symmetric address) into dst, local or not. */
void shmi_peer_read(const char *fn, void *dst, const void *sym, size_t n, int pe);
/* n bytes from src into pe's copy of sym, local or not; on another node a
 * blocking put (src reusable on return, not yet delivered: shmi_net_quiet). */
void shmi_peer_write(const char *fn, void *sym, const void *src, size_t n, int pe);
/* Barrier flag w into pe's copy of flag (sync.c). */
void shmi_net_flag(uint64_t *flag, uint64_t w, int pe);
/* The node of world PE pe: the lowest world PE on it. */
int shmi_net_node(int pe);
#define SHMI_NET (__builtin_expect(shmi_g.tp.remote != NULL, 0)) /* the job spans nodes */

/* Collectives (sync.c). */
void shmi_barrier(void);
/* Barrier that also checks every PE made the same collective call with the
 * same arguments (sig.arg); a mismatch is fatal, naming both calls. */
void shmi_barrier_checked(const char *fn, enum shmi_coll_op op, uint64_t a0, uint64_t a1,
                          uint64_t a2);
void shmi_quiet(void);

#endif
