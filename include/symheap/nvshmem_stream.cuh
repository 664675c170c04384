/* nvshmem_stream.cuh - included by nvshmem_device.cuh (CUDA code only): the
 * rest of NVSHMEM's point-to-point API for kernels and streams, generated
 * from the type tables of shmem.h.
 *
 * In kernels:
 *   nvshmem_TYPENAME_wait_until_all/any/some, test_all/any/some and their
 *   _vector forms (__host__ __device__: on the host they are shmem.h's);
 *   nvshmemx_TYPENAME_iput/iget_warp/_block and the sized iputBITS/igetBITS
 *   forms (the group's threads share the elements); the typed
 *   put_signal_nbi_warp/_block forms.
 * On streams (host calls, enqueued on the stream, return at once):
 *   contiguous put/get (typed, sized, mem, _nbi) go to the copy engines
 *   (shmemx_putmem_on_stream: a peer's mapping of the GPU heap);
 *   p, iput/iget, signal_op, put_signal (data by copy engine, then the
 *   signal by a one-thread kernel, so a waiter that sees the signal sees the
 *   data), wait_until(_all, _all_vector) and signal_wait_until launch one
 *   small kernel on the stream (NVSHMEM does the same); g_on_stream returns
 *   the value, so it waits for the stream.  nbi forms are the blocking ones:
 *   stream order already makes them complete before the next operation.
 * Inside CUDA graph capture everything but g_on_stream is captured; p's
 * value travels as a kernel argument, so nothing points at the caller's
 * stack. */
#ifndef SYMHEAP_NVSHMEM_STREAM_CUH
#define SYMHEAP_NVSHMEM_STREAM_CUH

#include <stdint.h>

/* ---- Multi-element waits and tests in kernels ---------------------------------------------- */
/* Element i counts unless status[i] is non-zero; VEC compares with vs[i], else with v. */
template <typename T, bool VEC>
SHMI_DEV bool shmi_d_sat(T *ivars, size_t i, const int *status, int cmp, T v, const T *vs)
{
    return (!status || !status[i]) && shmi_d_cmp(*(volatile T *)&ivars[i], cmp, VEC ? vs[i] : v);
}
template <typename T>
SHMI_DEV size_t shmi_d_active(const char *fn, T *ivars, size_t n, const int *status)
{
    size_t a = 0;
    for (size_t i = 0; i < n; i++) a += !status || !status[i];
    if (n) {
        shmi_d_check(fn, ivars, shmi_dstate.me);
        shmi_d_check(fn, ivars + (n - 1), shmi_dstate.me);
    }
    return a;
}
template <typename T, bool VEC>
SHMI_DEV int shmi_d_test_all(T *ivars, size_t n, const int *status, int cmp, T v, const T *vs)
{
    for (size_t i = 0; i < n; i++)
        if ((!status || !status[i]) && !shmi_d_sat<T, VEC>(ivars, i, status, cmp, v, vs)) return 0;
    __threadfence();
    return 1;
}
template <typename T, bool VEC>
SHMI_DEV size_t shmi_d_test_any(T *ivars, size_t n, const int *status, int cmp, T v, const T *vs)
{
    for (size_t i = 0; i < n; i++)
        if (shmi_d_sat<T, VEC>(ivars, i, status, cmp, v, vs)) {
            __threadfence();
            return i;
        }
    return SIZE_MAX;
}
template <typename T, bool VEC>
SHMI_DEV size_t shmi_d_test_some(T *ivars, size_t n, size_t *indices, const int *status, int cmp,
                                 T v, const T *vs)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (shmi_d_sat<T, VEC>(ivars, i, status, cmp, v, vs)) indices[k++] = i;
    if (k) __threadfence();
    return k;
}
template <typename T, bool VEC>
SHMI_DEV void shmi_d_wait_all(const char *fn, T *ivars, size_t n, const int *status, int cmp, T v,
                              const T *vs)
{
    shmi_d_active(fn, ivars, n, status);
    while (!shmi_d_test_all<T, VEC>(ivars, n, status, cmp, v, vs)) {
    }
}
template <typename T, bool VEC>
SHMI_DEV size_t shmi_d_wait_any(const char *fn, T *ivars, size_t n, const int *status, int cmp,
                                T v, const T *vs)
{
    if (!shmi_d_active(fn, ivars, n, status)) return SIZE_MAX; /* nothing to wait for */
    size_t r;
    while ((r = shmi_d_test_any<T, VEC>(ivars, n, status, cmp, v, vs)) == SIZE_MAX) {
    }
    return r;
}
template <typename T, bool VEC>
SHMI_DEV size_t shmi_d_wait_some(const char *fn, T *ivars, size_t n, size_t *indices,
                                 const int *status, int cmp, T v, const T *vs)
{
    if (!shmi_d_active(fn, ivars, n, status)) return 0;
    size_t k;
    while (!(k = shmi_d_test_some<T, VEC>(ivars, n, indices, status, cmp, v, vs))) {
    }
    return k;
}

#define SHMI_DV_WAITS(N, T, A, B, S, G)                                                            \
    SHMI_WHEN_##S##_SYNC(                                                                          \
    SHMI_HD void nvshmem_##N##_wait_until_all(T *ivars, size_t n, const int *status, int cmp, T v) \
    { SHMI_ON_DEVICE(shmi_d_wait_all<T, false>("nvshmem_" #N "_wait_until_all", ivars, n, status, \
                                               cmp, v, (const T *)0);)                             \
      SHMI_ON_HOST(shmem_##N##_wait_until_all(ivars, n, status, nvshmemi_cmp(cmp), v);) }          \
    SHMI_HD size_t nvshmem_##N##_wait_until_any(T *ivars, size_t n, const int *status, int cmp,    \
                                                T v)                                               \
    { SHMI_ON_DEVICE(return shmi_d_wait_any<T, false>("nvshmem_" #N "_wait_until_any", ivars, n,  \
                                                      status, cmp, v, (const T *)0);)              \
      SHMI_ON_HOST(return shmem_##N##_wait_until_any(ivars, n, status, nvshmemi_cmp(cmp), v);) }   \
    SHMI_HD size_t nvshmem_##N##_wait_until_some(T *ivars, size_t n, size_t *idx,                  \
                                                 const int *status, int cmp, T v)                  \
    { SHMI_ON_DEVICE(return shmi_d_wait_some<T, false>("nvshmem_" #N "_wait_until_some", ivars, n, \
                                                       idx, status, cmp, v, (const T *)0);)        \
      SHMI_ON_HOST(return shmem_##N##_wait_until_some(ivars, n, idx, status, nvshmemi_cmp(cmp),    \
                                                      v);) }                                       \
    SHMI_HD void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t n, const int *status,        \
                                                     int cmp, T *vs)                               \
    { SHMI_ON_DEVICE(shmi_d_wait_all<T, true>("nvshmem_" #N "_wait_until_all_vector", ivars, n,   \
                                              status, cmp, (T)0, vs);)                             \
      SHMI_ON_HOST(shmem_##N##_wait_until_all_vector(ivars, n, status, nvshmemi_cmp(cmp), vs);) }  \
    SHMI_HD size_t nvshmem_##N##_wait_until_any_vector(T *ivars, size_t n, const int *status,      \
                                                       int cmp, T *vs)                             \
    { SHMI_ON_DEVICE(return shmi_d_wait_any<T, true>("nvshmem_" #N "_wait_until_any_vector",      \
                                                     ivars, n, status, cmp, (T)0, vs);)            \
      SHMI_ON_HOST(return shmem_##N##_wait_until_any_vector(ivars, n, status, nvshmemi_cmp(cmp),   \
                                                            vs);) }                                \
    SHMI_HD size_t nvshmem_##N##_wait_until_some_vector(T *ivars, size_t n, size_t *idx,           \
                                                        const int *status, int cmp, T *vs)         \
    { SHMI_ON_DEVICE(return shmi_d_wait_some<T, true>("nvshmem_" #N "_wait_until_some_vector",    \
                                                      ivars, n, idx, status, cmp, (T)0, vs);)      \
      SHMI_ON_HOST(return shmem_##N##_wait_until_some_vector(ivars, n, idx, status,                \
                                                             nvshmemi_cmp(cmp), vs);) }            \
    SHMI_HD int nvshmem_##N##_test_all(T *ivars, size_t n, const int *status, int cmp, T v)        \
    { SHMI_ON_DEVICE(shmi_d_active("nvshmem_" #N "_test_all", ivars, n, status);                   \
                     return shmi_d_test_all<T, false>(ivars, n, status, cmp, v, (const T *)0);)    \
      SHMI_ON_HOST(return shmem_##N##_test_all(ivars, n, status, nvshmemi_cmp(cmp), v);) }         \
    SHMI_HD size_t nvshmem_##N##_test_any(T *ivars, size_t n, const int *status, int cmp, T v)     \
    { SHMI_ON_DEVICE(shmi_d_active("nvshmem_" #N "_test_any", ivars, n, status);                   \
                     return shmi_d_test_any<T, false>(ivars, n, status, cmp, v, (const T *)0);)    \
      SHMI_ON_HOST(return shmem_##N##_test_any(ivars, n, status, nvshmemi_cmp(cmp), v);) }         \
    SHMI_HD size_t nvshmem_##N##_test_some(T *ivars, size_t n, size_t *idx, const int *status,     \
                                           int cmp, T v)                                           \
    { SHMI_ON_DEVICE(shmi_d_active("nvshmem_" #N "_test_some", ivars, n, status);                  \
                     return shmi_d_test_some<T, false>(ivars, n, idx, status, cmp, v,              \
                                                       (const T *)0);)                             \
      SHMI_ON_HOST(return shmem_##N##_test_some(ivars, n, idx, status, nvshmemi_cmp(cmp), v);) }   \
    SHMI_HD int nvshmem_##N##_test_all_vector(T *ivars, size_t n, const int *status, int cmp,      \
                                              T *vs)                                               \
    { SHMI_ON_DEVICE(shmi_d_active("nvshmem_" #N "_test_all_vector", ivars, n, status);            \
                     return shmi_d_test_all<T, true>(ivars, n, status, cmp, (T)0, vs);)            \
      SHMI_ON_HOST(return shmem_##N##_test_all_vector(ivars, n, status, nvshmemi_cmp(cmp), vs);) } \
    SHMI_HD size_t nvshmem_##N##_test_any_vector(T *ivars, size_t n, const int *status, int cmp,   \
                                                 T *vs)                                            \
    { SHMI_ON_DEVICE(shmi_d_active("nvshmem_" #N "_test_any_vector", ivars, n, status);            \
                     return shmi_d_test_any<T, true>(ivars, n, status, cmp, (T)0, vs);)            \
      SHMI_ON_HOST(return shmem_##N##_test_any_vector(ivars, n, status, nvshmemi_cmp(cmp), vs);) } \
    SHMI_HD size_t nvshmem_##N##_test_some_vector(T *ivars, size_t n, size_t *idx,                 \
                                                  const int *status, int cmp, T *vs)               \
    { SHMI_ON_DEVICE(shmi_d_active("nvshmem_" #N "_test_some_vector", ivars, n, status);           \
                     return shmi_d_test_some<T, true>(ivars, n, idx, status, cmp, (T)0, vs);)      \
      SHMI_ON_HOST(return shmem_##N##_test_some_vector(ivars, n, idx, status, nvshmemi_cmp(cmp),   \
                                                       vs);) })
NVSHMEM_TYPE_TABLE(SHMI_DV_WAITS)
#undef SHMI_DV_WAITS

/* ---- Strided RMA and put-with-signal by thread groups ------------------------------------------ */
/* Element i (elem bytes) of the group's share: thread tid takes i = tid, tid + nth, ... */
SHMI_DEV void shmi_d_strided_g(const char *fn, char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elem, int pe, int is_put, unsigned tid,
                               unsigned nth)
{
    if (!nelems) return;
    if (is_put) d = shmi_d_peer(fn, d, pe);
    else s = shmi_d_peer(fn, s, pe);
    for (size_t i = tid; i < nelems; i += nth)
        for (size_t b = 0; b < elem; b++) d[(size_t)dst * i * elem + b] = s[(size_t)sst * i * elem + b];
}

#define SHMI_DV_STRIDED_G(NAME, ELEM, SUFFIX, GROUP, T)                                            \
    SHMI_DEV void nvshmemx_##NAME##_iput##SUFFIX(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,   \
                                                  size_t n, int pe)                                \
    { GROUP(shmi_d_strided_g("nvshmemx_" #NAME "_iput" #SUFFIX, (char *)d, (const char *)s, dst,  \
                             sst, n, ELEM, pe, 1, tid, nth)) }                                     \
    SHMI_DEV void nvshmemx_##NAME##_iget##SUFFIX(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,   \
                                                  size_t n, int pe)                                \
    { GROUP(shmi_d_strided_g("nvshmemx_" #NAME "_iget" #SUFFIX, (char *)d, (const char *)s, dst,  \
                             sst, n, ELEM, pe, 0, tid, nth)) }
#define SHMI_DV_GROUP_RMA(N, T, A, B, S, G)                                                        \
    SHMI_DV_DEVONLY(N,                                                                             \
    SHMI_DV_STRIDED_G(N, sizeof(T), _warp, SHMI_GROUP_WARP, T)                                     \
    SHMI_DV_STRIDED_G(N, sizeof(T), _block, SHMI_GROUP_BLOCK, T)                                   \
    SHMI_DEV void nvshmemx_##N##_put_signal_nbi_warp(T *d, const T *s, size_t n, uint64_t *sig,    \
                                                     uint64_t signal, int sig_op, int pe)          \
    { nvshmemx_putmem_signal_warp(d, s, n * sizeof(T), sig, signal, sig_op, pe); }                 \
    SHMI_DEV void nvshmemx_##N##_put_signal_nbi_block(T *d, const T *s, size_t n, uint64_t *sig,   \
                                                      uint64_t signal, int sig_op, int pe)         \
    { nvshmemx_putmem_signal_block(d, s, n * sizeof(T), sig, signal, sig_op, pe); })
NVSHMEM_TYPE_TABLE(SHMI_DV_GROUP_RMA)
#undef SHMI_DV_GROUP_RMA

/* Sized: nvshmemx_iput32_warp (void pointers, the names' "iput32" spelled by hand) */
#define SHMI_DV_SIZED_G(BITS, BYTES)                                                               \
    SHMI_DEV void nvshmemx_iput##BITS##_warp(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, \
                                             size_t n, int pe)                                     \
    { SHMI_GROUP_WARP(shmi_d_strided_g("nvshmemx_iput" #BITS "_warp", (char *)d, (const char *)s,  \
                                       dst, sst, n, BYTES, pe, 1, tid, nth)) }                     \
    SHMI_DEV void nvshmemx_iput##BITS##_block(void *d, const void *s, ptrdiff_t dst,               \
                                              ptrdiff_t sst, size_t n, int pe)                     \
    { SHMI_GROUP_BLOCK(shmi_d_strided_g("nvshmemx_iput" #BITS "_block", (char *)d,                 \
                                        (const char *)s, dst, sst, n, BYTES, pe, 1, tid, nth)) }   \
    SHMI_DEV void nvshmemx_iget##BITS##_warp(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, \
                                             size_t n, int pe)                                     \
    { SHMI_GROUP_WARP(shmi_d_strided_g("nvshmemx_iget" #BITS "_warp", (char *)d, (const char *)s,  \
                                       dst, sst, n, BYTES, pe, 0, tid, nth)) }                     \
    SHMI_DEV void nvshmemx_iget##BITS##_block(void *d, const void *s, ptrdiff_t dst,               \
                                              ptrdiff_t sst, size_t n, int pe)                     \
    { SHMI_GROUP_BLOCK(shmi_d_strided_g("nvshmemx_iget" #BITS "_block", (char *)d,                 \
                                        (const char *)s, dst, sst, n, BYTES, pe, 0, tid, nth)) }   \
    SHMI_DEV void nvshmemx_put##BITS##_nbi_warp(void *d, const void *s, size_t n, int pe)          \
    { nvshmemx_put##BITS##_warp(d, s, n, pe); }                                                    \
    SHMI_DEV void nvshmemx_put##BITS##_nbi_block(void *d, const void *s, size_t n, int pe)         \
    { nvshmemx_put##BITS##_block(d, s, n, pe); }                                                   \
    SHMI_DEV void nvshmemx_get##BITS##_nbi_warp(void *d, const void *s, size_t n, int pe)          \
    { nvshmemx_get##BITS##_warp(d, s, n, pe); }                                                    \
    SHMI_DEV void nvshmemx_get##BITS##_nbi_block(void *d, const void *s, size_t n, int pe)         \
    { nvshmemx_get##BITS##_block(d, s, n, pe); }                                                   \
    SHMI_DEV void nvshmemx_put##BITS##_signal_warp(void *d, const void *s, size_t n, uint64_t *sig, \
                                                   uint64_t signal, int sig_op, int pe)            \
    { nvshmemx_putmem_signal_warp(d, s, n * BYTES, sig, signal, sig_op, pe); }                     \
    SHMI_DEV void nvshmemx_put##BITS##_signal_block(void *d, const void *s, size_t n,              \
                                                    uint64_t *sig, uint64_t signal, int sig_op,    \
                                                    int pe)                                        \
    { nvshmemx_putmem_signal_block(d, s, n * BYTES, sig, signal, sig_op, pe); }                    \
    SHMI_DEV void nvshmemx_put##BITS##_signal_nbi_warp(void *d, const void *s, size_t n,           \
                                                       uint64_t *sig, uint64_t signal, int sig_op, \
                                                       int pe)                                     \
    { nvshmemx_putmem_signal_warp(d, s, n * BYTES, sig, signal, sig_op, pe); }                     \
    SHMI_DEV void nvshmemx_put##BITS##_signal_nbi_block(void *d, const void *s, size_t n,          \
                                                        uint64_t *sig, uint64_t signal,            \
                                                        int sig_op, int pe)                        \
    { nvshmemx_putmem_signal_block(d, s, n * BYTES, sig, signal, sig_op, pe); }
SHMEM_SIZE_TABLE(SHMI_DV_SIZED_G)
#undef SHMI_DV_SIZED_G
/* nvshmemx_put6_signal(_nbi)_warp/_block: NVSHMEM's size list for these four
 * reads 8, 6, 32, 64, 128 (16 misspelt), so NVSHMEM has put6 where put16 was
 * meant, and it moves nelems * (6 / 8) = 0 bytes: only the signal.  The same
 * here, so that programs run unchanged; a warning says to use put16. */
#define SHMI_DV_PUT6(SUFFIX)                                                                       \
    __attribute__((deprecated("NVSHMEM's misspelt put16: moves no data (nelems * (6 / 8) bytes), " \
                              "only the signal; use nvshmemx_put16_signal" #SUFFIX)))             \
    SHMI_DEV void nvshmemx_put6_signal##SUFFIX(void *d, const void *s, size_t n, uint64_t *sig,   \
                                               uint64_t signal, int sig_op, int pe)                \
    { nvshmemx_putmem_signal##SUFFIX(d, s, n * (6 / 8), sig, signal, sig_op, pe); }
SHMI_DV_PUT6(_warp)
SHMI_DV_PUT6(_block)
SHMI_DV_PUT6(_nbi_warp)
SHMI_DV_PUT6(_nbi_block)
#undef SHMI_DV_PUT6

/* ---- On streams ---------------------------------------------------------------------------------- */
#define SHMI_SK_THREADS 256
/* Kernels name their family in device messages (a host string cannot be
 * read on the device); the host side names the exact call. */
template <typename T> static __global__ void shmi_k_p(T *d, T v, int pe)
{
    *(volatile T *)shmi_d_peer("nvshmemx_TYPENAME_p_on_stream", d, pe) = v;
}
static __global__ void shmi_k_strided(char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst,
                                      size_t n, size_t elem, int pe, int is_put)
{
    shmi_d_strided_g(is_put ? "nvshmemx_iput_on_stream" : "nvshmemx_iget_on_stream", d, s, dst,
                     sst, n, elem, pe, is_put, threadIdx.x, blockDim.x);
}
static __global__ void shmi_k_signal(uint64_t *sig, uint64_t signal, int sig_op, int pe)
{
    shmi_d_fence(); /* what the stream wrote before (the copy engine's data) first */
    shmi_d_signal(sig, signal, sig_op, pe);
}
template <typename T, bool VEC>
static __global__ void shmi_k_wait(T *ivars, size_t n, const int *status, int cmp, T v, const T *vs)
{
    shmi_d_wait_all<T, VEC>("nvshmemx_wait_until_on_stream", ivars, n, status, cmp, v, vs);
}

/* Every on-stream call checks its launch: one line naming the call, then exit, as the
 * host API stops on misuse. */
static inline void shmi_h_launch_ok(const char *fn)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "[pe %d] symheap error: %s: launching its kernel failed: %s\n",
                shmem_my_pe(), fn, cudaGetErrorString(e));
        exit(1);
    }
}
static inline void shmi_h_signal_on_stream(const char *fn, uint64_t *sig, uint64_t signal,
                                           int sig_op, int pe, cudaStream_t st)
{
    if (sig_op != NVSHMEM_SIGNAL_SET && sig_op != NVSHMEM_SIGNAL_ADD) nvshmemi_bad_sig_op(fn, sig_op);
    shmi_k_signal<<<1, 1, 0, st>>>(sig, signal, sig_op, pe);
    shmi_h_launch_ok(fn);
}
static inline void shmi_h_strided_on_stream(const char *fn, void *d, const void *s, ptrdiff_t dst,
                                            ptrdiff_t sst, size_t n, size_t elem, int pe,
                                            int is_put, cudaStream_t st)
{
    if (!n) return;
    shmi_k_strided<<<1, SHMI_SK_THREADS, 0, st>>>((char *)d, (const char *)s, dst, sst, n, elem,
                                                  pe, is_put);
    shmi_h_launch_ok(fn);
}

static inline void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                int pe, cudaStream_t st)
{ shmi_h_signal_on_stream("nvshmemx_signal_op_on_stream", sig_addr, signal, sig_op, pe, st); }
static inline void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp,
                                                        uint64_t cmp_value, cudaStream_t st)
{
    shmi_k_wait<uint64_t, false><<<1, 1, 0, st>>>(sig_addr, 1, (const int *)0, cmp, cmp_value,
                                                  (const uint64_t *)0);
    shmi_h_launch_ok("nvshmemx_signal_wait_until_on_stream");
}
static inline void nvshmemx_putmem_nbi_on_stream(void *d, const void *s, size_t bytes, int pe,
                                                 cudaStream_t st)
{ shmemx_putmem_on_stream(d, s, bytes, pe, st); }
static inline void nvshmemx_getmem_nbi_on_stream(void *d, const void *s, size_t bytes, int pe,
                                                 cudaStream_t st)
{ shmemx_getmem_on_stream(d, s, bytes, pe, st); }
static inline void nvshmemx_putmem_signal_on_stream(void *d, const void *s, size_t bytes,
                                                    uint64_t *sig, uint64_t signal, int sig_op,
                                                    int pe, cudaStream_t st)
{
    shmemx_putmem_on_stream(d, s, bytes, pe, st);
    shmi_h_signal_on_stream("nvshmemx_putmem_signal_on_stream", sig, signal, sig_op, pe, st);
}
static inline void nvshmemx_putmem_signal_nbi_on_stream(void *d, const void *s, size_t bytes,
                                                        uint64_t *sig, uint64_t signal,
                                                        int sig_op, int pe, cudaStream_t st)
{ nvshmemx_putmem_signal_on_stream(d, s, bytes, sig, signal, sig_op, pe, st); }

#define SHMI_SK_SIZED(BITS, BYTES)                                                                 \
    static inline void nvshmemx_put##BITS##_on_stream(void *d, const void *s, size_t n, int pe,    \
                                                      cudaStream_t st)                             \
    { shmemx_putmem_on_stream(d, s, n * BYTES, pe, st); }                                          \
    static inline void nvshmemx_get##BITS##_on_stream(void *d, const void *s, size_t n, int pe,    \
                                                      cudaStream_t st)                             \
    { shmemx_getmem_on_stream(d, s, n * BYTES, pe, st); }                                          \
    static inline void nvshmemx_put##BITS##_nbi_on_stream(void *d, const void *s, size_t n,        \
                                                          int pe, cudaStream_t st)                 \
    { shmemx_putmem_on_stream(d, s, n * BYTES, pe, st); }                                          \
    static inline void nvshmemx_get##BITS##_nbi_on_stream(void *d, const void *s, size_t n,        \
                                                          int pe, cudaStream_t st)                 \
    { shmemx_getmem_on_stream(d, s, n * BYTES, pe, st); }                                          \
    static inline void nvshmemx_iput##BITS##_on_stream(void *d, const void *s, ptrdiff_t dst,      \
                                                       ptrdiff_t sst, size_t n, int pe,            \
                                                       cudaStream_t st)                            \
    { shmi_h_strided_on_stream("nvshmemx_iput" #BITS "_on_stream", d, s, dst, sst, n, BYTES, pe,  \
                               1, st); }                                                           \
    static inline void nvshmemx_iget##BITS##_on_stream(void *d, const void *s, ptrdiff_t dst,      \
                                                       ptrdiff_t sst, size_t n, int pe,            \
                                                       cudaStream_t st)                            \
    { shmi_h_strided_on_stream("nvshmemx_iget" #BITS "_on_stream", d, s, dst, sst, n, BYTES, pe,  \
                               0, st); }                                                           \
    static inline void nvshmemx_put##BITS##_signal_on_stream(void *d, const void *s, size_t n,     \
                                                             uint64_t *sig, uint64_t signal,       \
                                                             int sig_op, int pe, cudaStream_t st)  \
    { nvshmemx_putmem_signal_on_stream(d, s, n * BYTES, sig, signal, sig_op, pe, st); }            \
    static inline void nvshmemx_put##BITS##_signal_nbi_on_stream(void *d, const void *s, size_t n, \
                                                                 uint64_t *sig, uint64_t signal,   \
                                                                 int sig_op, int pe,               \
                                                                 cudaStream_t st)                  \
    { nvshmemx_putmem_signal_on_stream(d, s, n * BYTES, sig, signal, sig_op, pe, st); }
SHMEM_SIZE_TABLE(SHMI_SK_SIZED)
#undef SHMI_SK_SIZED

#define SHMI_SK_TYPED(N, T, A, B, S, G)                                                            \
    SHMI_DV_DEVONLY(N,                                                                             \
    static inline void nvshmemx_##N##_put_on_stream(T *d, const T *s, size_t n, int pe,            \
                                                    cudaStream_t st)                               \
    { shmemx_putmem_on_stream(d, s, n * sizeof(T), pe, st); }                                      \
    static inline void nvshmemx_##N##_get_on_stream(T *d, const T *s, size_t n, int pe,            \
                                                    cudaStream_t st)                               \
    { shmemx_getmem_on_stream(d, s, n * sizeof(T), pe, st); }                                      \
    static inline void nvshmemx_##N##_put_nbi_on_stream(T *d, const T *s, size_t n, int pe,        \
                                                        cudaStream_t st)                           \
    { shmemx_putmem_on_stream(d, s, n * sizeof(T), pe, st); }                                      \
    static inline void nvshmemx_##N##_get_nbi_on_stream(T *d, const T *s, size_t n, int pe,        \
                                                        cudaStream_t st)                           \
    { shmemx_getmem_on_stream(d, s, n * sizeof(T), pe, st); }                                      \
    static inline void nvshmemx_##N##_p_on_stream(T *d, const T v, int pe, cudaStream_t st)        \
    {                                                                                              \
        shmi_k_p<T><<<1, 1, 0, st>>>(d, v, pe);                                                    \
        shmi_h_launch_ok("nvshmemx_" #N "_p_on_stream");                                           \
    }                                                                                              \
    static inline T nvshmemx_##N##_g_on_stream(const T *s, int pe, cudaStream_t st)                \
    {                                                                                              \
        T v;                                                                                       \
        shmemx_getmem_on_stream(&v, s, sizeof(T), pe, st);                                         \
        if (cudaStreamSynchronize(st) != cudaSuccess) shmi_h_launch_ok("nvshmemx_" #N "_g_on_stream"); \
        return v;                                                                                  \
    }                                                                                              \
    static inline void nvshmemx_##N##_iput_on_stream(T *d, const T *s, ptrdiff_t dst,              \
                                                     ptrdiff_t sst, size_t n, int pe,              \
                                                     cudaStream_t st)                              \
    { shmi_h_strided_on_stream("nvshmemx_" #N "_iput_on_stream", d, s, dst, sst, n, sizeof(T),    \
                               pe, 1, st); }                                                       \
    static inline void nvshmemx_##N##_iget_on_stream(T *d, const T *s, ptrdiff_t dst,              \
                                                     ptrdiff_t sst, size_t n, int pe,              \
                                                     cudaStream_t st)                              \
    { shmi_h_strided_on_stream("nvshmemx_" #N "_iget_on_stream", d, s, dst, sst, n, sizeof(T),    \
                               pe, 0, st); }                                                       \
    static inline void nvshmemx_##N##_put_signal_on_stream(T *d, const T *s, size_t n,             \
                                                           uint64_t *sig, uint64_t signal,         \
                                                           int sig_op, int pe, cudaStream_t st)    \
    { nvshmemx_putmem_signal_on_stream(d, s, n * sizeof(T), sig, signal, sig_op, pe, st); }        \
    static inline void nvshmemx_##N##_put_signal_nbi_on_stream(T *d, const T *s, size_t n,         \
                                                               uint64_t *sig, uint64_t signal,     \
                                                               int sig_op, int pe,                 \
                                                               cudaStream_t st)                    \
    { nvshmemx_putmem_signal_on_stream(d, s, n * sizeof(T), sig, signal, sig_op, pe, st); }        \
    SHMI_WHEN_##S##_SYNC(                                                                          \
    static inline void nvshmemx_##N##_wait_until_on_stream(T *ivar, int cmp, T v, cudaStream_t st) \
    {                                                                                              \
        shmi_k_wait<T, false><<<1, 1, 0, st>>>(ivar, 1, (const int *)0, cmp, v, (const T *)0);     \
        shmi_h_launch_ok("nvshmemx_" #N "_wait_until_on_stream");                                  \
    }                                                                                              \
    static inline void nvshmemx_##N##_wait_until_all_on_stream(T *ivars, size_t n,                 \
                                                               const int *status, int cmp, T v,    \
                                                               cudaStream_t st)                    \
    {                                                                                              \
        shmi_k_wait<T, false><<<1, 1, 0, st>>>(ivars, n, status, cmp, v, (const T *)0);           \
        shmi_h_launch_ok("nvshmemx_" #N "_wait_until_all_on_stream");                              \
    }                                                                                              \
    static inline void nvshmemx_##N##_wait_until_all_vector_on_stream(                             \
        T *ivars, size_t n, const int *status, int cmp, T *vs, cudaStream_t st)                    \
    {                                                                                              \
        shmi_k_wait<T, true><<<1, 1, 0, st>>>(ivars, n, status, cmp, (T)0, vs);                    \
        shmi_h_launch_ok("nvshmemx_" #N "_wait_until_all_vector_on_stream");                       \
    }))
NVSHMEM_TYPE_TABLE(SHMI_SK_TYPED)
#undef SHMI_SK_TYPED

#endif /* SYMHEAP_NVSHMEM_STREAM_CUH */
