/* rma.c - puts and gets, plain and on contexts.  On one node a put is a
 * memcpy into the peer's mapping of the heap (or globals), a get a memcpy out
 * of it; both complete before returning, so the _nbi forms are the same
 * routines and quiet only orders.  A PE on another node (shmi_tp_remote) goes
 * to the network (net.c): there _nbi only starts the operation, and the
 * next quiet completes it.  After a put we ring the peer's doorbell (a
 * load, plus a system call only when the peer sleeps in a wait).  Typed
 * families are generated from SHMEM_TYPE_TABLE; every body is one call to a
 * size-based routine taking the context (SHMEM_CTX_DEFAULT for the plain
 * names), which turns the PE number into a world PE (ctx.h). */
#include "api/ctx.h"

#include "core/mem_device.h" /* GPU memory goes to the copy engines (issue 7) */

#include <string.h>

static size_t bytes(const char *fn, size_t nelems, size_t elem)
{
    if (shmi_mul_overflows(nelems, elem, NULL))
        shmi_fatal("%s: nelems=%zu elements of %zu bytes overflows size_t: a negative count "
                   "converted to size_t?", fn, nelems, elem);
    return nelems * elem;
}

/* Returns the bytes stored through our mapping of wpe's memory (0 when
 * nothing, or when the network carried them): the caller then rings wpe. */
static size_t put_raw(const char *fn, void *dest, const void *src, size_t nelems, size_t elem,
                      int wpe, int nbi)
{
    size_t n = bytes(fn, nelems, elem);
    if (n == 0) return 0;
    if (shmi_gpu_has(dest) || shmi_gpu_has(src)) {
        shmi_gpu_put(fn, dest, src, n, wpe);
        return n;
    }
    void *d = shmi_sym(fn, "dest", dest, n, wpe);
    if (shmi_tp_remote(&shmi_g.tp, wpe)) {
        shmi_net_put(fn, dest, src, n, wpe, nbi);
        return 0;
    }
    if (wpe == shmi_g.me) memmove(d, src, n);
    else memcpy(d, src, n);
    return n;
}

/* For put-with-signal (signal.c); puts here inline put_raw. */
size_t shmi_put_raw(const char *fn, void *dest, const void *src, size_t nelems, size_t elem,
                    int wpe)
{
    return put_raw(fn, dest, src, nelems, elem, wpe, 0);
}

static void put(const char *fn, shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                size_t elem, int pe, int nbi)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    if (put_raw(fn, dest, src, nelems, elem, wpe, nbi)) shmi_ring(&shmi_ctl_of(wpe)->bell);
}

static void get(const char *fn, shmem_ctx_t ctx, void *dest, const void *src, size_t nelems,
                size_t elem, int pe, int nbi)
{
    int wpe = shmi_ctx_pe(fn, ctx, pe);
    size_t n = bytes(fn, nelems, elem);
    if (n == 0) return;
    if (shmi_gpu_has(src) || shmi_gpu_has(dest)) {
        shmi_gpu_get(fn, dest, src, n, wpe);
        return;
    }
    const void *s = shmi_sym(fn, "source", src, n, wpe);
    if (shmi_tp_remote(&shmi_g.tp, wpe)) shmi_net_get(fn, dest, src, n, wpe, nbi);
    else if (wpe == shmi_g.me) memmove(dest, s, n);
    else memcpy(dest, s, n);
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
    size_t span = bytes(fn, bytes(fn, nblocks - 1, sym_stride) + bsize, elem);
    if (shmi_gpu_has(dest) || shmi_gpu_has(src)) {
        shmi_gpu_blocks(fn, dest, src, (size_t)dst * elem, (size_t)sst * elem, bsize * elem,
                        nblocks, wpe, is_put);
        return;
    }
    char *sym = shmi_sym(fn, is_put ? "dest" : "source", is_put ? dest : src, span, wpe);
    size_t n = bsize * elem, dstep = (size_t)dst * elem, sstep = (size_t)sst * elem;
    if (shmi_tp_remote(&shmi_g.tp, wpe)) { /* one operation per block, then complete all */
        for (size_t b = 0; b < nblocks; b++)
            (is_put ? shmi_net_put : shmi_net_get)(fn, dest + dstep * b, src + sstep * b, n, wpe, 1);
        shmi_net_quiet(); /* blocking: sources reusable, fetched data here */
        return;
    }
    char *d = is_put ? sym : dest;
    const char *s = is_put ? src : sym;
    for (size_t b = 0; b < nblocks; b++) memcpy(d + dstep * b, s + sstep * b, n);
    if (is_put) shmi_ring(&shmi_ctl_of(wpe)->bell);
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
              put(__func__, ctx, dest, &value, 1, sizeof(T), pe, 0);)                     \
    SHMI_PAIR(T, N##_g, (const T *source, int pe),                                        \
              T v; get(__func__, ctx, &v, source, 1, sizeof(T), pe, 0); return v;)        \
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
