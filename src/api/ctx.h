/* ctx.h - communication contexts inside the library, and the helpers that
 * rma.c, amo.c, signal.c, wait.c and lock.c share.
 *
 * A context is a team plus a table from team PE numbers to world PE numbers
 * (NULL for the world team: no translation).  Every RMA/AMO entry point turns
 * (ctx, pe) into a world PE with shmi_ctx_pe: for SHMEM_CTX_DEFAULT that is
 * the plain range check, one compare more than before contexts existed.
 * Other contexts are checked (alive, PE in the team) on every call.  Context
 * structs are never returned to malloc: a destroyed one stays readable, marked
 * dead, so using or destroying it again is reported instead of corrupting
 * memory (it is reused only after many later destroys; see ctx.c). */
#ifndef SHMI_CTX_H
#define SHMI_CTX_H

#include "util/tls.h"
#include "core/state.h"

#include <shmem.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum { SHMI_CTX_LIVE = 0x63747821u, SHMI_CTX_DEAD = 0x64656164u };

struct shmem_ctx_s {
    uint32_t magic;            /* SHMI_CTX_LIVE while valid */
    int npes;                  /* team size (unused for the default context) */
    const int *world;          /* [npes] team PE -> world PE; NULL: identity */
    long options;
    shmem_team_t team;
    pthread_t owner;           /* creator: SHMEM_CTX_PRIVATE is destroyed by it only */
    struct shmem_ctx_s *next;  /* quarantine list of destroyed contexts */
};

/* Every context struct lives in one array (ctx.c), allocated at the first
 * shmem_ctx_create and never freed: a handle is valid only if it points at
 * an element of it, which two compares tell without reading *ctx.  So a
 * garbage handle ((shmem_ctx_t)0x1234) is reported like a garbage team
 * handle instead of crashing (issue 17). */
#define SHMI_CTX_MAX 65536
extern struct shmem_ctx_s *_Atomic shmi_ctx_pool;
static inline int shmi_ctx_in_pool(shmem_ctx_t ctx)
{
    uintptr_t pool = (uintptr_t)atomic_load_explicit(&shmi_ctx_pool, memory_order_acquire);
    uintptr_t off = (uintptr_t)ctx - pool;
    return pool && off < SHMI_CTX_MAX * sizeof *ctx && off % sizeof *ctx == 0;
}

_Noreturn void shmi_ctx_bad(const char *fn, shmem_ctx_t ctx, int pe);

/* World PE number for (ctx, pe), checked: library running, ctx alive, pe in
 * ctx's team.  The default context inline (a compare and a range check on
 * the put/get path, issue 13); any other out of line (ctx.c). */
int shmi_ctx_pe_other(const char *fn, shmem_ctx_t ctx, int pe);
static inline __attribute__((always_inline)) int shmi_ctx_pe(const char *fn, shmem_ctx_t ctx,
                                                             int pe)
{
    if (SHMI_LIKELY(ctx == SHMEM_CTX_DEFAULT)) {
        shmi_check_pe(fn, pe);
        return pe;
    }
    return shmi_ctx_pe_other(fn, ctx, pe);
}

/* Define the plain routine shmem_NAME(PARAMS) (on SHMEM_CTX_DEFAULT) and its
 * context form shmem_ctx_NAME(ctx, PARAMS); the body sees `ctx`. */
#define SHMI_UNPAREN(...) __VA_ARGS__
#define SHMI_PAIR(R, NAME, PARAMS, ...)                                                   \
    R shmem_ctx_##NAME(shmem_ctx_t ctx, SHMI_UNPAREN PARAMS) { __VA_ARGS__ }              \
    R shmem_##NAME(SHMI_UNPAREN PARAMS)                                                   \
    {                                                                                     \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                              \
        __VA_ARGS__                                                                       \
    }

/* Signedness and value bits of an integer type, sign-extended to 64 bits. */
#define SHMI_SIGNED(T) (!((T)-1 > (T)0))
#define SHMI_BITS(T, v) (SHMI_SIGNED(T) ? (uint64_t)(int64_t)(v) : (uint64_t)(v))

/* rma.c: the private side of a put or get being copied by this thread, for
 * the SIGSEGV handler installed at shmem_init (shmi_rma_fault_install): a
 * fault inside [p, p+n) while it is set ends the job with one line naming
 * the call and the bad address instead of a bare crash (issue 17); any
 * other fault goes to the previous handler. */
struct shmi_rma_guard {
    const char *fn; /* the call; NULL: no copy under way */
    const void *p;
    size_t n;
    int write;      /* the copy writes p (a get's dest), else reads it (a put's source) */
};
/* In thread-local storage itself, not a pointer to a copy on the stack: four
 * stores to arm, one to disarm (the put/get path, issue 13). */
extern SHMI_TLS struct shmi_rma_guard shmi_rma_guard;
static inline void shmi_rma_enter(const char *fn, const void *p, size_t n, int write)
{
    shmi_rma_guard.p = p;
    shmi_rma_guard.n = n;
    shmi_rma_guard.write = write;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the handler reads fn first */
    shmi_rma_guard.fn = fn;
    __asm__ volatile("" ::: "memory");
}
static inline void shmi_rma_leave(void)
{
    __asm__ volatile("" ::: "memory");
    shmi_rma_guard.fn = NULL;
}
void shmi_rma_fault_install(void);

/* init.c: join the job of unique ID id (text) as rank of nranks, or check
 * that symrun's PEs match; fn names the public call in messages. */
void shmi_init_uniqueid(const char *fn, const char *id, int rank, int nranks);
/* init.c: the ranks of MPI communicator *comm are the PEs (boot_mpi.c). */
void shmi_init_mpi_comm(const char *fn, const void *comm);

/* rma.c: n bytes (> 0) from local src into world PE wpe's copy of symmetric
 * dest (checked), by its route (tp.h); mode: enum shmi_tp_mode; ring: ring
 * a mapped peer's doorbell (0 when the caller rings it after more). */
void shmi_put_bytes(const char *fn, void *dest, const void *src, size_t n, int wpe, int mode,
                    int ring);
/* nelems * elem, or a fatal message naming fn when it overflows size_t.
 * Inline: on the put/get path it is one multiply and a flag test. */
static inline size_t shmi_bytes(const char *fn, size_t nelems, size_t elem)
{
    size_t n;
    if (__builtin_expect(shmi_mul_overflows(nelems, elem, &n), 0))
        shmi_fatal("%s: nelems=%zu elements of %zu bytes overflows size_t: a negative count "
                   "converted to size_t?", fn, nelems, elem);
    return n;
}

/* wait.c: block until our *ivar (size 1/2/4/8, symmetric) satisfies cmp
 * against value (bits as SHMI_BITS gives them); returns the value seen. */
uint64_t shmi_wait_until(const char *fn, const void *ivar, size_t size, int is_signed, int cmp,
                         uint64_t value);

#endif
