/* tp.h - the transport interface: how bytes reach a peer (issue 13).
 *
 * Every transport is one table of operations (struct shmi_tp_ops).  Which
 * one reaches a peer's memory is decided once, at shmem_init (and when the
 * GPU heap comes up), per PE and per memory kind, and kept in two arrays,
 * like NVSHMEM's per-PE transport selection:
 *
 *   via_host[pe]  the heap and globals of PE pe: NULL when they are mapped
 *                 into our address space (same node: plain loads and stores,
 *                 inline at the call site), else the network (UCX);
 *   via_dev[pe]   PE pe's GPU heap: the CUDA copy engines, or no route.
 *
 * shmi_tp_route() picks the entry for one operation: the GPU row when
 * either side is GPU memory (the CPU cannot load or store it), else the
 * host row.  Callers write the common case inline:
 *
 *     const struct shmi_tp_ops *via = shmi_tp_route(tp, dest, src, pe);
 *     if (SHMI_TP_DIRECT(via)) memcpy(shmi_tp_ptr(tp, dest, pe), src, n);
 *     else rc = via->put(tp, dest, src, n, pe, mode);
 *
 * so a one-node put costs two compares more than a memcpy, as before the
 * interface.  A build without UCX or CUDA has fewer rows in the table
 * (tp.c), not stubs: a PE no row reaches gets shmi_tp_none, whose
 * operations fail with a line saying why.
 *
 * Addresses: operations take OUR symmetric address for the peer's side
 * (already checked by the caller) and a local buffer for the other side;
 * each transport translates for itself.  Errors: 0 or a negative shmi_err;
 * the transport never stops the program: why() gives the line for the
 * caller's fatal message.
 *
 * Translation of mapped memory: for segment s (heap, globals), peer pe's copy
 * of address a is a + delta[s][pe], where delta is the peer mapping's base
 * minus ours (0 for ourselves).  Two compares and an add; no lookup
 * structure.  A PE on another node translates into an inaccessible
 * (PROT_NONE) reservation, so a path that dereferences without asking
 * faults at once instead of silently using our own copy. */
#ifndef SHMI_TP_H
#define SHMI_TP_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/boot.h"
#include "heap/heap.h"
#include "transport/wait.h"

#define SHMI_TP_MAX_SEGS 2

/* Atomic operations, as every transport numbers them. */
enum shmi_amo_op { SHMI_AMO_FETCH, SHMI_AMO_SET, SHMI_AMO_SWAP, SHMI_AMO_CSWAP,
                   SHMI_AMO_ADD, SHMI_AMO_AND, SHMI_AMO_OR, SHMI_AMO_XOR };

/* Completion of puts and gets. */
enum shmi_tp_mode {
    SHMI_TP_BLOCKING,  /* put: source reusable on return; get: data here */
    SHMI_TP_NBI,       /* started; complete at the next quiet */
    SHMI_TP_UNTRACKED  /* put that no quiet needs to complete: a flag whose
                          target waits for it anyway (barriers) */
};

struct shmi_tp;

struct shmi_tp_ops {
    const char *name;           /* "shm", "ucx", "cuda", "none" */
    int mapped;                 /* the peer's memory is mapped into our address space
                                   (CPU or GPU): shmem_ptr can give its address */
    /* Collective over every PE (the same rows in the same order): reach the
     * PEs this row is chosen for (tp->remote says which, for a network row).
     * NULL when there is nothing to start (cuda: dev_attach). */
    int (*init)(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg, char *err,
                size_t errlen);
    void (*fini)(struct shmi_tp *tp);
    /* n bytes from local src into pe's copy of symmetric dest. */
    int (*put)(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode);
    /* n bytes of pe's copy of symmetric src into local dest. */
    int (*get)(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe, int mode);
    /* 4- or 8-byte atomic on pe's copy of dest; *old (may be NULL for the
     * non-fetching ones) gets the previous value.  CSWAP: v new, c comparand. */
    int (*amo)(struct shmi_tp *tp, void *dest, size_t size, enum shmi_amo_op op, uint64_t v,
               uint64_t c, uint64_t *old, int pe);
    /* An aligned 8-byte store of w into pe's copy of flag, seen whole by the
     * target, ordered after this PE's earlier puts to pe; fire and forget. */
    int (*flag)(struct shmi_tp *tp, uint64_t *flag, uint64_t w, int pe);
    /* Order / complete every operation this PE issued through the transport. */
    int (*fence)(struct shmi_tp *tp);
    int (*quiet)(struct shmi_tp *tp);
    /* Let the transport move pending data (a waiting PE calls it). */
    void (*progress)(struct shmi_tp *tp);
    /* One line for a failed operation with pe (-1: no PE in particular):
     * "PE 3 on host 10.0.0.2: Connection reset by remote peer". */
    const char *(*why)(struct shmi_tp *tp, int pe, int rc, char *buf, size_t len);
    /* Optional (NULL: the caller loops over put/get): nblocks blocks of
     * width bytes, block b at dest + b*dstep and src + b*sstep; is_put says
     * which side is pe's (symmetric).  Complete on return. */
    int (*strided)(struct shmi_tp *tp, char *dest, size_t dstep, const char *src, size_t sstep,
                   size_t width, size_t nblocks, int pe, int is_put);
    /* Optional (NULL: nothing to order on a stream, the caller makes the
     * blocking call): enqueue the put / get on a CUDA stream, return at once. */
    int (*put_stream)(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe,
                      void *stream);
    int (*get_stream)(struct shmi_tp *tp, void *dest, const void *src, size_t n, int pe,
                      void *stream);
};

/* The rows of the table (tp.c fills it: a row exists only where the build
 * has its library) and the missing route. */
extern const struct shmi_tp_ops shmi_tp_shm, shmi_tp_ucx, shmi_tp_cuda, shmi_tp_none;

struct shmi_tp_seg {
    uintptr_t base;     /* our mapping */
    size_t size;
    intptr_t *delta;    /* [npes]; peer address = a + delta[pe] */
    void **peer;        /* [npes]; the peer's mapping in our address space, NULL
                           for remote PEs */
    void *none;         /* PROT_NONE reservation remote PEs translate into */
};

/* The GPU heap's segment (cuda.h): the same range on every PE, every peer's
 * copy at slots + pe * size in our GPU address space. */
struct shmi_tp_dev {
    uintptr_t base;     /* 0/0 while there is no GPU heap */
    size_t size;
    uintptr_t slots;
    size_t stride;      /* distance of two peers' copies in slots */
};

struct shmi_tp {
    int me, npes;
    int nseg;
    struct shmi_tp_seg seg[SHMI_TP_MAX_SEGS];
    struct shmi_tp_dev dev;
    /* [npes] each: the choice per PE and memory kind (see above).  via_host
     * is NULL while every PE is mapped (one node), so the local path tests
     * one pointer; via_dev is NULL while there is no GPU heap. */
    const struct shmi_tp_ops **via_host;
    const struct shmi_tp_ops **via_dev;
    /* Each transport in use once (quiet, fence, progress visit these). */
    const struct shmi_tp_ops *used[4];
    int nused;
    uint8_t *remote;    /* [npes]: 1 for a PE on another node; NULL on one node */
    int nremote;
    int *node;          /* [npes]: the lowest world PE of each PE's node; NULL on one node */
    struct shmi_bell *bell; /* ours; a peer's is at the same symmetric address */
    double net_timeout;     /* SHMEM_NET_TIMEOUT: a silent node is lost after it (0: never);
                             * set by the caller before shmi_tp_init */
};

/* Collective: exchange the segments' fds through the bootstrap and map every
 * node-local peer's segments (closing the fds afterwards: once every PE has
 * mapped, the memory lives exactly as long as the mappings); choose a
 * transport for every other PE and start it (bell: our doorbell, in the
 * first segment).  Segments must be given in the same order on every PE,
 * with equal sizes (checked).  Error: one line in err, negative code. */
int shmi_tp_init(struct shmi_tp *tp, shmi_boot_t *b, struct shmi_seg *segs, int nseg,
                 struct shmi_bell *bell, char *err, size_t errlen);
void shmi_tp_fini(struct shmi_tp *tp);
/* Set by the core: a network transport's connection to pe failed while the
 * job runs (the link between the nodes went down, or that node's PEs
 * stopped).  why: "PE 3 on host b: <the transport's reason>".  Called once,
 * a few seconds after the failure, from a thread waiting in the library
 * (waiting 1: the core knows for what) or else from the transport's own
 * thread (waiting 0); ends the job unless the core says the job is leaving
 * (peers that finalized disconnect at exit). */
extern void (*shmi_tp_lost_hook)(int pe, const char *why, int waiting);
/* The GPU heap is up (collective, every PE the same dev): route its memory
 * through the copy engines.  0, or SHMI_ENOMEM. */
int shmi_tp_dev_attach(struct shmi_tp *tp, const struct shmi_tp_dev *dev);
void shmi_tp_dev_detach(struct shmi_tp *tp);

/* Index of the segment containing [a, a+n) (n may be 0), or -1. */
static inline int shmi_tp_seg_of(const struct shmi_tp *tp, const void *a, size_t n)
{
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < tp->nseg; s++)
        if (x - tp->seg[s].base < tp->seg[s].size && n <= tp->seg[s].size - (x - tp->seg[s].base))
            return s;
    return -1;
}

/* Peer pe's copy of symmetric host address a, as a pointer we can load/store
 * when the route is direct, or NULL when a is not symmetric. */
static inline void *shmi_tp_ptr(const struct shmi_tp *tp, const void *a, int pe)
{
    uintptr_t x = (uintptr_t)a;
    for (int s = 0; s < tp->nseg; s++)
        if (x - tp->seg[s].base < tp->seg[s].size)
            return (void *)(x + (uintptr_t)tp->seg[s].delta[pe]);
    return NULL;
}

/* [a, a+1) is GPU heap memory (ours or, for a symmetric address, any PE's). */
static inline int shmi_tp_dev_has(const struct shmi_tp *tp, const void *a)
{
    return __builtin_expect((uintptr_t)a - tp->dev.base < tp->dev.size, 0);
}

/* Peer pe's copy of GPU symmetric address a, in our GPU address space. */
static inline void *shmi_tp_dev_ptr(const struct shmi_tp *tp, const void *a, int pe)
{
    uintptr_t x = (uintptr_t)a;
    return pe == tp->me ? (void *)x : (void *)(x - tp->dev.base + tp->dev.slots +
                                               (size_t)pe * tp->dev.stride);
}

/* a is symmetric: in a host segment or the GPU heap. */
static inline int shmi_tp_symmetric(const struct shmi_tp *tp, const void *a)
{
    return shmi_tp_seg_of(tp, a, 0) >= 0 || shmi_tp_dev_has(tp, a);
}

/* How an operation between symmetric address sym on PE pe and local buffer
 * local reaches pe: NULL for plain loads and stores (SHMI_TP_DIRECT), else
 * the transport to call.  local may be NULL (atomics, flags). */
static inline const struct shmi_tp_ops *shmi_tp_route(const struct shmi_tp *tp, const void *sym,
                                                      const void *local, int pe)
{
    if (__builtin_expect(tp->via_dev != NULL, 0) &&
        (shmi_tp_dev_has(tp, sym) || shmi_tp_dev_has(tp, local)))
        return tp->via_dev[pe];
    return __builtin_expect(tp->via_host != NULL, 0) ? tp->via_host[pe] : NULL;
}
#define SHMI_TP_DIRECT(via) __builtin_expect((via) == NULL, 1)

/* The atomic op on mapped memory p, as every PE of the node applies it
 * (seq_cst: a locked instruction on x86, also the fence before a doorbell
 * check, see shmi_ring_after_sc).  Inline: with op constant, one instruction. */
#define SHMI_TP_ATOMIC(W)                                                                  \
    static inline uint64_t shmi_tp_atomic##W(uint##W##_t *p, enum shmi_amo_op op,         \
                                             uint##W##_t v, uint##W##_t c)                  \
    {                                                                                       \
        switch (op) {                                                                       \
        case SHMI_AMO_FETCH: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                   \
        case SHMI_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); return 0;              \
        case SHMI_AMO_SWAP: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);             \
        case SHMI_AMO_CSWAP:                                                                \
            __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
            return c;                                                                       \
        case SHMI_AMO_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);               \
        case SHMI_AMO_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);               \
        case SHMI_AMO_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                 \
        default: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                         \
        }                                                                                   \
    }
SHMI_TP_ATOMIC(32)
SHMI_TP_ATOMIC(64)
static inline uint64_t shmi_tp_atomic(void *p, size_t size, enum shmi_amo_op op, uint64_t v,
                                      uint64_t c)
{
    return size == 4 ? shmi_tp_atomic32(p, op, (uint32_t)v, (uint32_t)c)
                     : shmi_tp_atomic64(p, op, v, c);
}

/* PE pe's memory is mapped here (same node): its heap and globals can be
 * loaded and stored through shmi_tp_ptr. */
static inline int shmi_tp_mapped(const struct shmi_tp *tp, int pe)
{
    return !tp->via_host || !tp->via_host[pe];
}

/* The doorbell of PE pe (a mapped one). */
static inline struct shmi_bell *shmi_tp_bell(const struct shmi_tp *tp, int pe)
{
    return (struct shmi_bell *)((char *)tp->bell + tp->seg[0].delta[pe]);
}

/* Every transport in use: complete / order what this PE issued.  0, or the
 * first error (*who: the transport that failed).  (Progress while waiting:
 * a network transport registers with the waits, wait.h.) */
int shmi_tp_quiet_all(struct shmi_tp *tp, const struct shmi_tp_ops **who);
int shmi_tp_fence_all(struct shmi_tp *tp, const struct shmi_tp_ops **who);
/* Inline while the mapped route is the only one (one node, no GPU heap):
 * its quiet is a full fence, its fence a release fence (shm.c), so a put +
 * quiet on one node makes no indirect call (issue 13). */
static inline int shmi_tp_quiet(struct shmi_tp *tp, const struct shmi_tp_ops **who)
{
    if (__builtin_expect(tp->nused <= 1, 1)) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return 0;
    }
    return shmi_tp_quiet_all(tp, who);
}
static inline int shmi_tp_fence(struct shmi_tp *tp, const struct shmi_tp_ops **who)
{
    if (__builtin_expect(tp->nused <= 1, 1)) {
        __atomic_thread_fence(__ATOMIC_RELEASE);
        return 0;
    }
    return shmi_tp_fence_all(tp, who);
}
/* The node of PE pe, as the lowest world PE on it. */
int shmi_tp_node(const struct shmi_tp *tp, int pe);
/* The transports in use, for messages and symheap-info: "shm+ucx". */
const char *shmi_tp_names(const struct shmi_tp *tp, char *buf, size_t len);

#endif
