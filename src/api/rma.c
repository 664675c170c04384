/* rma.c - puts and gets, plain and on contexts.  To a mapped peer (the
 * route of tp.h is direct) a put is a memcpy into the peer's mapping of the
 * heap (or globals), a get a memcpy out of it; both complete before
 * returning, so the _nbi forms are the same routines and quiet only orders.
 * Any other route (the network for a PE of another node, the copy engines
 * for GPU memory) goes through its transport: there _nbi only starts the
 * operation, and the next quiet completes it.  After a put we ring the
 * peer's doorbell (a load, plus a system call only when the peer sleeps in
 * a wait).  Typed
 * families are generated from SHMEM_TYPE_TABLE; every body is one call to a
 * size-based routine taking the context (SHMEM_CTX_DEFAULT for the plain
 * names), which turns the PE number into a world PE (ctx.h). */
#include "api/ctx.h"
#include "core/mem_device.h" /* shmi_sym_any */
#include "util/sigchain.h"

#include <errno.h>
#include <signal.h>
#include <string.h>


/* ---- Bad private pointers (issue 17) --------------------------------------
 * NULL with a non-zero count is checked before the copy (one compare).  Any
 * other bad private pointer faults inside the copy: while a put or get
 * copies, shmi_rma_guard names the call and its private range, and the
 * SIGSEGV handler installed at shmem_init turns a fault inside that range
 * into symheap's one line.  Every other fault (the program's own, lazy
 * arrays' in the symmetric heap, ext/dist) goes to the previous handler, or
 * takes the default action, as if this handler were not there. */
SHMI_TLS struct shmi_rma_guard shmi_rma_guard;
static struct sigaction segv_prev;
static int segv_installed;

static _Noreturn void null_buffer(const char *fn, const char *what, size_t n)
{
    shmi_fatal("%s: %s is NULL with %zu bytes to %s: pass a buffer of this PE that holds "
               "them", fn, what, n, !strcmp(what, "dest") ? "write" : "read");
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    struct shmi_rma_guard *g = &shmi_rma_guard;
    const char *fn = g->fn;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uintptr_t a = (uintptr_t)si->si_addr, p = (uintptr_t)g->p;
    if (fn && si->si_code > 0 && a - p < g->n && !shmi_tp_symmetric(&shmi_g.tp, si->si_addr)) {
        g->fn = NULL;
        /* Synchronous, inside a memcpy of ours: no lock of the program is
         * held, so the ordinary fatal path (message, launcher) is safe. */
        shmi_fatal("%s: %s=%p (%zu bytes) cannot be %s: address %p %s (SIGSEGV): pass a "
                   "valid buffer of this PE (a freed, unmapped or wild pointer?)", fn,
                   g->write ? "dest" : "source", g->p, g->n, g->write ? "written" : "read",
                   si->si_addr, si->si_code == SEGV_ACCERR ? "is not accessible that way"
                                                           : "is not mapped");
    }
    shmi_sig_chain(&segv_prev, sig, si, uc);
}

void shmi_rma_fault_install(void)
{
    if (segv_installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, NULL, &segv_prev) == 0 && sigaction(SIGSEGV, &sa, NULL) == 0)
        segv_installed = 1;
}

/* The mapped case inline: a memcpy into or out of the peer's mapping (the
 * put then rings the peer's doorbell: a load, plus a system call only when
 * the peer sleeps in a wait); any other route (tp.h) through its transport,
 * after the same bounds check. */
/* Always inline: put() and put-with-signal get their own copy, as put_raw
 * was before the transport table (one call less on the 8-byte path). */
/* guard 0: src is the library's own (a _p's value), it cannot fault, so the
 * fault guard is not armed (an 8-byte _p is one store). */
static inline __attribute__((always_inline)) void put_bytes(const char *fn, void *dest,
                                                            const void *src, size_t n,
                                                            int wpe, int mode, int ring,
                                                            int guard)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, dest, src, wpe);
    if (SHMI_TP_DIRECT(via)) {
        void *d = shmi_sym(fn, "dest", dest, n, wpe);
        if (guard) shmi_rma_enter(fn, src, n, 0);
        if (wpe == shmi_g.me) memmove(d, src, n);
        else memcpy(d, src, n);
        if (guard) shmi_rma_leave();
        if (ring) shmi_ring_data(shmi_tp_bell(&shmi_g.tp, wpe), dest, n);
        return;
    }
    shmi_sym_any(fn, "dest", dest, n, wpe);
    shmi_peer_put(fn, via, dest, src, n, wpe, mode);
}

/* For put-with-signal (signal.c); puts here inline put_bytes. */
void shmi_put_bytes(const char *fn, void *dest, const void *src, size_t n, int wpe, int mode,
                    int ring)
{
    put_bytes(fn, dest, src, n, wpe, mode, ring, 1);
}

static void put(const char *fn, shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                size_t elem, int pe, int nbi)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    size_t n = shmi_bytes(fn, nelems, elem);
    if (n && !src) null_buffer(fn, "source", n);
    if (n) put_bytes(fn, dest, src, n, wpe, nbi ? SHMI_TP_NBI : SHMI_TP_BLOCKING, 1, 1);
}

/* shmem_TYPE_p: n (the type's size) bytes of the library's own value. */
static inline __attribute__((always_inline)) void put_value(const char *fn, shmem_ctx_t ctx,
                                                            void *dest, const void *value,
                                                            size_t n, int pe)
{
    put_bytes(fn, dest, value, n, shmi_ctx_pe(fn, ctx, pe), SHMI_TP_BLOCKING, 1, 0);
}

/* guard 0: dest is the library's own (a _g's result), see put_bytes. */
static inline __attribute__((always_inline)) void get_bytes(const char *fn, void *dest,
                                                            const void *src, size_t n,
                                                            int wpe, int nbi, int guard)
{
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, src, dest, wpe);
    if (SHMI_TP_DIRECT(via)) {
        const void *s = shmi_sym(fn, "source", src, n, wpe);
        if (guard) shmi_rma_enter(fn, dest, n, 1);
        if (wpe == shmi_g.me) memmove(dest, s, n);
        else memcpy(dest, s, n);
        if (guard) shmi_rma_leave();
        return;
    }
    shmi_sym_any(fn, "source", src, n, wpe);
    shmi_peer_get(fn, via, dest, src, n, wpe, nbi ? SHMI_TP_NBI : SHMI_TP_BLOCKING);
}

static inline __attribute__((always_inline)) void get(const char *fn, shmem_ctx_t ctx, void *dest,
                                                      const void *src, size_t nelems,
                                                      size_t elem, int pe, int nbi)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    size_t n = shmi_bytes(fn, nelems, elem);
    if (n == 0) return;
    if (!dest) null_buffer(fn, "dest", n);
    get_bytes(fn, dest, src, n, wpe, nbi, 1);
}

/* Block-strided: block b (bsize elements) goes from source + b*sst elements
 * to dest + b*dst elements; strides >= bsize, so blocks never overlap (not
 * checked for a single block, where strides do not matter).  iput/iget are
 * bsize 1.  The whole span on the symmetric side is checked once. */
static void blocks(const char *fn, shmem_ctx_t ctx, char *dest, const char *src, ptrdiff_t dst,
                   ptrdiff_t sst, size_t bsize, size_t nblocks, size_t elem, int pe, int is_put)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    if (nblocks == 0 || bsize == 0) return;
    if (bsize > (size_t)PTRDIFF_MAX ||
        (nblocks > 1 && (dst < (ptrdiff_t)bsize || sst < (ptrdiff_t)bsize)))
        shmi_fatal("%s: strides dst=%td sst=%td must be >= %s%zu", fn, dst, sst,
                   bsize > 1 ? "the block size bsize=" : "", bsize);
    size_t sym_stride = (size_t)(is_put ? dst : sst);
    size_t span = shmi_bytes(fn, shmi_bytes(fn, nblocks - 1, sym_stride) + bsize, elem);
    size_t n = bsize * elem, dstep = (size_t)dst * elem, sstep = (size_t)sst * elem;
    const char *what = is_put ? "dest" : "source";
    const void *symside = is_put ? (const void *)dest : src, *local = is_put ? src : dest;
    if (!local) null_buffer(fn, is_put ? "source" : "dest", n);
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, symside, local, wpe);
    if (SHMI_TP_DIRECT(via)) {
        char *sym = shmi_sym(fn, what, symside, span, wpe);
        char *d = is_put ? sym : dest;
        const char *s = is_put ? src : sym;
        /* the private side's whole span, for the fault handler */
        size_t lspan = (nblocks - 1) * (is_put ? sstep : dstep) + n;
        shmi_rma_enter(fn, local, lspan, !is_put);
        for (size_t b = 0; b < nblocks; b++) memcpy(d + dstep * b, s + sstep * b, n);
        shmi_rma_leave();
        if (is_put) shmi_ring_data(shmi_tp_bell(&shmi_g.tp, wpe), symside, span);
        return;
    }
    shmi_sym_any(fn, what, symside, span, wpe);
    if (via->strided) { /* one call for every block (the copy engines: a 2D copy) */
        int rc = via->strided(&shmi_g.tp, dest, dstep, src, sstep, n, nblocks, wpe, is_put);
        if (rc) shmi_tp_fail(fn, via, wpe, rc);
        return;
    }
    for (size_t b = 0; b < nblocks; b++) /* one operation per block, then complete all */
        (is_put ? shmi_peer_put : shmi_peer_get)(fn, via, dest + dstep * b, src + sstep * b, n,
                                                 wpe, SHMI_TP_NBI);
    shmi_quiet(); /* blocking: sources reusable, fetched data here */
}

#define RMA_ARGS (void *dest, const void *source, size_t nelems, int pe)
SHMI_PAIR(void, putmem, RMA_ARGS, put(__func__, ctx, dest, source, nelems, 1, pe, 0);)
SHMI_PAIR(void, getmem, RMA_ARGS, get(__func__, ctx, dest, source, nelems, 1, pe, 0);)
SHMI_PAIR(void, putmem_nbi, RMA_ARGS, put(__func__, ctx, dest, source, nelems, 1, pe, 1);)
SHMI_PAIR(void, getmem_nbi, RMA_ARGS, get(__func__, ctx, dest, source, nelems, 1, pe, 1);)

#define BLOCKS(T, bsize, nblocks, is_put)                                                 \
    blocks(__func__, ctx, (char *)dest, (const char *)source, dst, sst, bsize, nblocks,   \
           sizeof(T), pe, is_put);
#define SHMI_DEF_RMA(N, T, A, B, S, G)                                                    \
    SHMI_PAIR(void, N##_put, (T *dest, const T *source, size_t nelems, int pe),           \
              put(__func__, ctx, dest, source, nelems, sizeof(T), pe, 0);)                \
    SHMI_PAIR(void, N##_get, (T *dest, const T *source, size_t nelems, int pe),           \
              get(__func__, ctx, dest, source, nelems, sizeof(T), pe, 0);)                \
    SHMI_PAIR(void, N##_put_nbi, (T *dest, const T *source, size_t nelems, int pe),       \
              put(__func__, ctx, dest, source, nelems, sizeof(T), pe, 1);)                \
    SHMI_PAIR(void, N##_get_nbi, (T *dest, const T *source, size_t nelems, int pe),       \
              get(__func__, ctx, dest, source, nelems, sizeof(T), pe, 1);)                \
    SHMI_PAIR(void, N##_p, (T *dest, T value, int pe),                                    \
              put_value(__func__, ctx, dest, &value, sizeof(T), pe);)                     \
    SHMI_PAIR(T, N##_g, (const T *source, int pe),                                        \
              T v; get_bytes(__func__, &v, source, sizeof(T), shmi_ctx_pe(__func__, ctx, pe), \
                             0, 0); return v;)                                            \
    SHMI_PAIR(void, N##_iput, (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                               size_t nelems, int pe), BLOCKS(T, 1, nelems, 1))           \
    SHMI_PAIR(void, N##_iget, (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                               size_t nelems, int pe), BLOCKS(T, 1, nelems, 0))           \
    SHMI_PAIR(void, N##_ibput, (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                size_t bsize, size_t nblocks, int pe),                    \
              BLOCKS(T, bsize, nblocks, 1))                                               \
    SHMI_PAIR(void, N##_ibget, (T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                size_t bsize, size_t nblocks, int pe),                    \
              BLOCKS(T, bsize, nblocks, 0))
SHMEM_TYPE_TABLE(SHMI_DEF_RMA)
SHMEMX_FP16_TYPE_ROWS(SHMI_DEF_RMA) /* half, bfloat16 (shmemx_fp16.h) */

/* Sized forms: an element of BYTES bytes (the T of BLOCKS is a char array). */
#define SHMI_DEF_SIZED(BITS, BYTES)                                                       \
    SHMI_PAIR(void, put##BITS, RMA_ARGS, put(__func__, ctx, dest, source, nelems, BYTES, pe, 0);) \
    SHMI_PAIR(void, get##BITS, RMA_ARGS, get(__func__, ctx, dest, source, nelems, BYTES, pe, 0);) \
    SHMI_PAIR(void, put##BITS##_nbi, RMA_ARGS,                                            \
              put(__func__, ctx, dest, source, nelems, BYTES, pe, 1);)                    \
    SHMI_PAIR(void, get##BITS##_nbi, RMA_ARGS,                                            \
              get(__func__, ctx, dest, source, nelems, BYTES, pe, 1);)                    \
    SHMI_PAIR(void, iput##BITS, (void *dest, const void *source, ptrdiff_t dst,           \
                                 ptrdiff_t sst, size_t nelems, int pe),                   \
              BLOCKS(char[BYTES], 1, nelems, 1))                                          \
    SHMI_PAIR(void, iget##BITS, (void *dest, const void *source, ptrdiff_t dst,           \
                                 ptrdiff_t sst, size_t nelems, int pe),                   \
              BLOCKS(char[BYTES], 1, nelems, 0))                                          \
    SHMI_PAIR(void, ibput##BITS, (void *dest, const void *source, ptrdiff_t dst,          \
                                  ptrdiff_t sst, size_t bsize, size_t nblocks, int pe),   \
              BLOCKS(char[BYTES], bsize, nblocks, 1))                                     \
    SHMI_PAIR(void, ibget##BITS, (void *dest, const void *source, ptrdiff_t dst,          \
                                  ptrdiff_t sst, size_t bsize, size_t nblocks, int pe),   \
              BLOCKS(char[BYTES], bsize, nblocks, 0))
SHMEM_SIZE_TABLE(SHMI_DEF_SIZED)
