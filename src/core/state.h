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
#include "heap/mkind_cuda.h" /* struct shmi_cuda_info */
#include "transport/cuda.h"   /* struct shmi_cuda_seg */
#include "transport/tp.h"
#include "util/env.h"
#include "util/err.h"
#include "util/log.h"
#include "util/num.h" /* shmi_mul_overflows, for every file that counts bytes */

#include <shmemx.h> /* shmemx_gpu_state_t */

#define SHMI_BAR_ROUNDS 16 /* dissemination rounds: up to 65536 PEs */

/* Signature of a collective call, compared across PEs (see sync.c). */
struct shmi_sig {
    uint64_t seq;      /* collective sequence number, same on every PE */
    uint32_t op;       /* enum shmi_coll_op */
    uint32_t pad;
    uint64_t arg[3];   /* arguments that must match, and the result */
};

/* The collective ops that meet in a barrier, one list (issue 13): each op's
 * enum name (SHMI_OP_<name>), its public name (messages, the watchdog) and
 * the format of its signature's arguments in a collective-mismatch message
 * (ops.c: fmt_<format>).  The enum, the names and shmi_op_describe are
 * generated from it; a new op is one line here. */
#define SHMI_COLL_OPS(X)                                                                  \
    X(NONE, "(no checked collective yet)", none)                                          \
    /* the heap (api/mem.c): sizes; pointers as offsets from user_base */                 \
    X(MALLOC, "shmem_malloc", size)                                                       \
    X(CALLOC, "shmem_calloc", two)                                                        \
    X(ALIGN, "shmem_align", two)                                                          \
    X(REALLOC, "shmem_realloc", heap_ptr_size)                                            \
    X(FREE, "shmem_free", heap_ptr)                                                       \
    X(HINTS, "shmem_malloc_with_hints", two)                                              \
    X(FINALIZE, "shmem_finalize", none)                                                   \
    /* teams and team collectives (team.c, coll.c, reduce.c) */                           \
    X(TEAM_SPLIT, "shmem_team_split_strided", split)                                      \
    X(TEAM_SPLIT_2D, "shmem_team_split_2d", split_2d)                                     \
    X(TEAM_DESTROY, "shmem_team_destroy", destroy)                                        \
    X(BROADCAST, "shmem_broadcast", broadcast)                                            \
    X(COLLECT, "shmem_collect", collect)                                                  \
    X(FCOLLECT, "shmem_fcollect", per_pe)                                                 \
    X(ALLTOALL, "shmem_alltoall", per_pe)                                                 \
    X(ALLTOALLS, "shmem_alltoalls", alltoalls)                                            \
    X(REDUCE, "shmem_reduce", reduce)                                                     \
    X(SCAN, "shmem_scan", reduce)                                                         \
    /* GPU heap (mem_device.c, issue 7); args as the host ops, offsets from gpu.base */   \
    X(GPU_INIT, "GPU heap set-up (first GPU allocation)", name)                           \
    X(GPU_MALLOC, "GPU malloc", two)                                                      \
    X(GPU_CALLOC, "GPU calloc", two)                                                      \
    X(GPU_ALIGN, "GPU align", two)                                                        \
    X(GPU_REALLOC, "GPU realloc", gpu_ptr_size)                                           \
    X(GPU_FREE, "GPU free", gpu_ptr)                                                      \
    X(GPU_REGISTER, "nvshmemx_buffer_register_symmetric", size)                           \
    X(GPU_UNREGISTER, "nvshmemx_buffer_unregister_symmetric", gpu_ptr_size)               \
    /* shmem_barrier_all, shmem_sync_all, shmem_team_sync: one kind, checked             \
     * through the barrier's own flags (sync.c), no signature */                          \
    X(BARRIER, "a barrier (barrier_all, sync_all or team_sync)", bare)                    \
    /* central barrier: the members were not all in one kind of call */                  \
    X(MIXED, "another collective (each PE's call below)", none)

#define SHMI_OP_ENUM(E, NAME, FMT) SHMI_OP_##E,
enum shmi_coll_op { SHMI_COLL_OPS(SHMI_OP_ENUM) SHMI_OP_COUNT };
#undef SHMI_OP_ENUM

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
    /* small collectives: the member's data, by parity of seq; read by peers.
     * With a push broadcast (coll.c, issue 19) the root writes it instead. */
    _Alignas(64) unsigned char stage[2][SHMI_STAGE_BYTES];
    /* push broadcast: what a root pushed into stage, by parity of seq; w
     * (written last) = seq << 24 | op << 16 | the root's team rank, arg: its
     * signature's arguments, which the receiver compares with its own */
    _Alignas(64) struct shmi_push {
        uint64_t w;
        uint64_t arg[3];
    } push[2];
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
        int32_t pid;                     /* the PE's process (its state: stopped?) */
        int32_t pe1;                     /* 1 + the PE of a network op waited for, or 0 */
    } blocked;
    int32_t cpu;                         /* the one CPU this PE may run on, or -1 (init.c) */
    struct shmi_tsync team[SHMI_TEAM_MAX]; /* by team slot; 0 world, 1 shared */
};
#define SHMI_CTL_SIZE ((size_t)256 << 10) /* reserved at the heap's end */
_Static_assert(sizeof(struct shmi_ctl) <= SHMI_CTL_SIZE, "control block exceeds SHMI_CTL_SIZE");

/* One symmetric heap: the deterministic allocator (heap/alloc.c) over
 * [base, base + size), the same on every PE, and the memory kind behind it
 * (its operations: sheap_kind below).  Every allocation call takes the same
 * path for every heap (api/mem.c); the kind supplies what differs. */
struct shmi_sheap_kind;
struct shmi_sheap {
    char *base;                /* first byte the allocator hands out */
    size_t size;
    shmi_alloc_t *alloc;
    size_t zero_hwm;           /* allocator offsets >= this were never handed out */
    const struct shmi_sheap_kind *kind;
};

struct shmi_sheap_kind {
    const char *name;          /* "symmetric heap", "GPU symmetric heap" */
    const char *size_var;      /* the setting that sizes it: "SHMEM_SYMMETRIC_SIZE" */
    int cpu;                   /* the CPU can load and store it: debug guards, poison,
                                  self-test, and calloc's high-water mark apply */
    uint32_t op_malloc;        /* its checked op codes: MALLOC, CALLOC, ALIGN, REALLOC,
                                  FREE follow in this order (enum shmi_coll_op) */
    /* Collective, after every PE allocated [0, end) the same way: make that
     * range usable (GPU: back it with chunks).  NULL when always usable.
     * 0, or SHMI_ENOMEM after saying why (every PE then returns NULL). */
    int (*grow)(struct shmi_sheap *h, const char *fn, size_t end, size_t size);
    /* Clear / copy bytes of this heap's memory; 0 or a negative code. */
    int (*zero)(void *p, size_t n);
    int (*copy)(void *dst, const void *src, size_t n);
    const char *(*errstr)(void); /* why zero/copy failed */
};

/* The host heap's kind (state.c); the GPU heap's is in mem_device.h. */
extern const struct shmi_sheap_kind shmi_host_kind;

/* The heap holding address p, or NULL. */
static inline struct shmi_sheap *shmi_sheap_of(struct shmi_sheap *const *heaps, int n,
                                               const void *p)
{
    for (int i = 0; i < n; i++)
        if ((uintptr_t)p - (uintptr_t)heaps[i]->base < heaps[i]->size) return heaps[i];
    return NULL;
}

#define SHMI_GPU_MODULES 64
/* The GPU heap's device side (mem_device.c): the CUDA segment and what the
 * device API is told (shmemx_gpu_state_t, published to CUDA code). */
struct shmi_gpu_state {
    int status;                /* GPU_UNTRIED / GPU_UP / GPU_NONE (mem_device.c) */
    char why[600];             /* GPU_NONE: the reason */
    struct shmi_cuda_info info;
    struct shmi_cuda_seg seg;
    shmemx_gpu_state_t st;
    /* buffers of the program's own (nvshmemx_buffer_register_symmetric):
     * [gpu.size, seg.high) of the segment, offsets from gpu.size */
    shmi_alloc_t *reg;
    /* device addresses of the state in CUmodules/CUlibraries the program
     * loaded itself (nvshmemx_cumodule_init): published to like the units */
    uint64_t modules[SHMI_GPU_MODULES];
    int nmodules;
    /* this PE's device team table (shmi_gpu_team_set), copied to the GPU */
    shmemx_gpu_team_t teams[SHMEMX_GPU_TEAMS];
};

enum { SHMI_UNINIT = 0, SHMI_RUNNING = 1, SHMI_FINALIZED = 2 };

struct shmi_state {
    int phase;                 /* SHMI_UNINIT / RUNNING / FINALIZED */
    int leaving;               /* past finalize's checked barrier: peers may disconnect */
    int me, npes;
    int thread_level;
    struct shmi_env env;
    shmi_boot_t boot;
    struct shmi_seg heap, globals;
    struct shmi_tp tp;
    struct shmi_ctl *ctl;      /* ours, at the end of the heap segment */
    struct shmi_sheap host;    /* the symmetric heap (host memory) */
    struct shmi_sheap gpu;     /* the GPU heap: 0/0 while there is none */
    struct shmi_gpu_state dev; /* the GPU heap's device side (mem_device.c) */
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
static inline __attribute__((always_inline)) void *shmi_sym(const char *fn, const char *what,
                                                         const void *a, size_t n, int pe)
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

/* Our own copy of [a, a+n), to load and store with the CPU (waits): host
 * symmetric memory, checked; memory the CPU cannot reach (the GPU heap: its
 * route is not direct) is fatal, with the route's reason. */
_Noreturn void shmi_tp_fail_at(const char *fn, const char *what, const void *addr,
                               const struct shmi_tp_ops *via, int pe, int rc);
static inline void *shmi_sym_cpu(const char *fn, const char *what, const void *a, size_t n)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, a, NULL, shmi_g.me);
    if (!SHMI_TP_DIRECT(via)) shmi_tp_fail_at(fn, what, a, via, shmi_g.me, SHMI_ENOTSUP);
    return shmi_sym(fn, what, a, n, shmi_g.me);
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
    int pe1;                   /* 1 + the PE a network operation waits for; 0: none */
};
extern _Thread_local const struct shmi_wait_desc *shmi_wait_cur;
void shmi_watchdog_init(void);

/* Moving bytes to and from peers (peer.c), whatever the route: callers
 * handle the mapped case inline (shmi_tp_route gives NULL) and pass any
 * other route here.  Addresses on the peer's side are our symmetric ones,
 * already checked.  A failure is fatal: "fn: <the transport's why>". */
struct shmem_team_s;
/* Install the core's answer to a lost network connection (tp.h). */
void shmi_peer_init(void);
_Noreturn void shmi_tp_fail(const char *fn, const struct shmi_tp_ops *via, int pe, int rc);
/* The same naming the argument: "fn: dest=0x... (pe=1) is GPU memory, ..." */
_Noreturn void shmi_tp_fail_at(const char *fn, const char *what, const void *addr,
                               const struct shmi_tp_ops *via, int pe, int rc);
void shmi_peer_put(const char *fn, const struct shmi_tp_ops *via, void *dest, const void *src,
                   size_t n, int pe, int mode);
void shmi_peer_get(const char *fn, const struct shmi_tp_ops *via, void *dest, const void *src,
                   size_t n, int pe, int mode);
/* Returns the old value. */
uint64_t shmi_peer_amo(const char *fn, const char *what, const struct shmi_tp_ops *via,
                       void *dest, size_t size, enum shmi_amo_op op, uint64_t v, uint64_t c,
                       int pe);
/* n bytes of pe's copy of sym (our symmetric address) into dst, any route. */
void shmi_peer_read(const char *fn, void *dst, const void *sym, size_t n, int pe);
/* n bytes from src into pe's copy of sym, any route; mode (tp.h): BLOCKING
 * (src reusable on return, not yet delivered everywhere: shmi_quiet),
 * UNTRACKED for data that its reader waits for anyway. */
void shmi_peer_write(const char *fn, void *sym, const void *src, size_t n, int pe, int mode);
/* The atomic op on pe's copy of sym (size 4 or 8), any route; the old value. */
uint64_t shmi_peer_atomic(const char *fn, void *sym, size_t size, enum shmi_amo_op op, uint64_t v,
                          uint64_t c, int pe);
/* Complete / order what this PE issued, through every transport in use. */
void shmi_quiet(void);
void shmi_fence(void);
/* The node of world PE pe: the lowest world PE on it. */
static inline int shmi_node(int pe) { return shmi_tp_node(&shmi_g.tp, pe); }

/* Collectives (sync.c). */
void shmi_barrier(void);
/* Barrier that also checks every PE made the same collective call with the
 * same arguments (sig.arg); a mismatch is fatal, naming both calls. */
void shmi_barrier_checked(const char *fn, enum shmi_coll_op op, uint64_t a0, uint64_t a1,
                          uint64_t a2);

#endif
