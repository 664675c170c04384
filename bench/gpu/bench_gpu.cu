/* bench_gpu.cu - GPU benchmarks (issue 7), one source for two libraries:
 * built against symheap (bench_gpu, started by symrun) and, with
 * -DBENCH_NVSHMEM, against NVIDIA's NVSHMEM (bench_nvshmem, which forks its
 * PEs itself and bootstraps them with a unique ID; see run_compare.sh).  The
 * kernels use only NVSHMEM API names, so both builds run the same code.
 *
 * PE 0 measures, PE 1 (or PE 0 itself with one PE) is the target; every
 * line is bench/common.h's "bench <impl>.<name> <pes> <metric> <median> <unit>":
 *   put_block / put_warp / put_thread / get_block   device RMA bandwidth, GB/s
 *                     (bytes moved / time; a grid of blocks, each group its slice)
 *   local_copy        the same grid copying between two local buffers (kernel)
 *   memcpy_d2d        cudaMemcpyAsync between two local buffers (copy engine)
 *   put_on_stream     nvshmemx_putmem_on_stream (copy engine into the peer)
 *   p_lat / g_lat     one thread: p + quiet, or a dependent g, per operation, us
 *   pingpong          p + wait_until round trip / 2 between PE 0 and 1, us
 *   barrier           nvshmem_barrier_all in a one-thread kernel, us per barrier
 *   malloc_free       nvshmem_malloc(1 MiB) + nvshmem_free from the host, us
 *
 * Collectives on NVSHMEM_TEAM_WORLD (issue 14), every PE taking part, int32
 * data (sum for the reductions), one line per collective, form and size:
 *   <coll>_<form> <size> <us per collective>
 * coll: barrier, broadcast (root 0), fcollect, alltoall, reduce,
 * reducescatter; form: thread (a 1-thread kernel calls nvshmem_...), warp (a
 * 32-thread kernel, nvshmemx_..._warp), block (one block of COLL_THREADS,
 * nvshmemx_..._block), stream (nvshmemx_..._on_stream, one call per op).  The
 * size is the per-PE block, nelems * 4 bytes: broadcast's message, each PE's
 * fcollect contribution, alltoall's block per pair, reduce's array,
 * reducescatter's result (its source is npes times that).  The device forms
 * run `it` collectives back to back in one kernel, `it` agreed by all PEs;
 * the kernels of a row are queued without host synchronization, so only
 * the first (a warm-up) sees the PEs' launch skew.  Each row is then
 * checked: a wrong element prints "bench_gpu: ERROR" and the exit status is
 * 1.  A form stops growing once one collective takes longer than
 * BENCH_COLL_SLOW_MS (default 40); the thread form stops at
 * BENCH_COLL_THREAD_MAX bytes (default 64 KiB: one thread moving MiBs
 * measures that thread, not the library).  BENCH_COLL_MAX caps the size
 * (default 64 MiB), BENCH_COLL_TARGET_MS sets a kernel's length (default 5). */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

extern "C" {
#include "../common.h"
}

#ifdef BENCH_NVSHMEM
#define IMPL "nvshmem"
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#else
#define IMPL "symheap"
#endif

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "bench_gpu: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,   \
                    cudaGetErrorString(e_));                                           \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static struct bench_opt opt;
static int me, npes, peer, nblocks_max;
static cudaEvent_t ev0, ev1;
static cudaStream_t stream;

/* ---- kernels ------------------------------------------------------------------ */
enum { T_BLOCK = 512 };

__device__ __forceinline__ void slice(size_t n, size_t parts, size_t k, size_t *lo, size_t *cnt)
{
    size_t per = ((n + parts - 1) / parts + 15) & ~(size_t)15;
    *lo = k * per;
    *cnt = *lo < n ? (n - *lo < per ? n - *lo : per) : 0;
}

template <int MODE> __global__ void k_rma(char *dst, const char *src, size_t n, int pe)
{
    size_t lo, cnt;
    if (MODE == 0 || MODE == 3) {
        slice(n, gridDim.x, blockIdx.x, &lo, &cnt);
        if (MODE == 0) nvshmemx_putmem_block(dst + lo, src + lo, cnt, pe);
        else nvshmemx_getmem_block(dst + lo, src + lo, cnt, pe);
    } else if (MODE == 1) {
        size_t w = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
        slice(n, gridDim.x * (size_t)blockDim.x / 32, w, &lo, &cnt);
        nvshmemx_putmem_warp(dst + lo, src + lo, cnt, pe);
    } else {
        size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
        slice(n, gridDim.x * (size_t)blockDim.x, t, &lo, &cnt);
        if (cnt) nvshmem_putmem(dst + lo, src + lo, cnt, pe);
    }
}

/* A plain local copy: grid-stride 16-byte vectors, 4 in flight per thread. */
__global__ void k_local_copy(int4 *dst, const int4 *src, size_t nv)
{
    size_t nth = gridDim.x * (size_t)blockDim.x, i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * nth < nv; i += 4 * nth) {
        int4 a = src[i], b = src[i + nth], c = src[i + 2 * nth], d = src[i + 3 * nth];
        dst[i] = a;
        dst[i + nth] = b;
        dst[i + 2 * nth] = c;
        dst[i + 3 * nth] = d;
    }
    for (; i < nv; i += nth) dst[i] = src[i];
}

__global__ void k_p_lat(int *dst, int pe, int iters)
{
    for (int i = 0; i < iters; i++) {
        nvshmem_int_p(dst, i, pe);
        nvshmem_quiet();
    }
}

__global__ void k_g_lat(const int *src, int pe, int iters, int *out)
{
    int v = 0;
    for (int i = 0; i < iters; i++) v += nvshmem_int_g(src + (v & 1), pe);
    *out = v;
}

__global__ void k_pingpong(int *flag, int me, int peer, int iters)
{
    for (int i = 1; i <= iters; i++) {
        if (me == 0) {
            nvshmem_int_p(flag, i, peer);
            nvshmem_int_wait_until(flag, NVSHMEM_CMP_GE, i);
        } else {
            nvshmem_int_wait_until(flag, NVSHMEM_CMP_GE, i);
            nvshmem_int_p(flag, i, peer);
        }
    }
}

__global__ void k_barrier(int iters)
{
    for (int i = 0; i < iters; i++) nvshmem_barrier_all();
}


/* ---- collectives ------------------------------------------------------------------- */
enum { C_BARRIER, C_BCAST, C_FCOLLECT, C_ALLTOALL, C_REDUCE, C_RSCATTER, C_N };
enum { F_THREAD, F_WARP, F_BLOCK, F_STREAM, F_N };
enum { COLL_THREADS = 512 };
static const char *const coll_name[C_N] = {"barrier", "broadcast", "fcollect",
                                           "alltoall", "reduce", "reducescatter"};
static const char *const form_name[F_N] = {"thread", "warp", "block", "stream"};

template <int C, int F>
__device__ __forceinline__ void coll_call(int32_t *d, const int32_t *s, size_t ne)
{
    const nvshmem_team_t W = NVSHMEM_TEAM_WORLD;
    if (F == F_THREAD) {
        if (C == C_BARRIER) nvshmem_barrier(W);
        if (C == C_BCAST) nvshmem_int32_broadcast(W, d, s, ne, 0);
        if (C == C_FCOLLECT) nvshmem_int32_fcollect(W, d, s, ne);
        if (C == C_ALLTOALL) nvshmem_int32_alltoall(W, d, s, ne);
        if (C == C_REDUCE) nvshmem_int32_sum_reduce(W, d, s, ne);
        if (C == C_RSCATTER) nvshmem_int32_sum_reducescatter(W, d, s, ne);
    } else if (F == F_WARP) {
        if (C == C_BARRIER) nvshmemx_barrier_warp(W);
        if (C == C_BCAST) nvshmemx_int32_broadcast_warp(W, d, s, ne, 0);
        if (C == C_FCOLLECT) nvshmemx_int32_fcollect_warp(W, d, s, ne);
        if (C == C_ALLTOALL) nvshmemx_int32_alltoall_warp(W, d, s, ne);
        if (C == C_REDUCE) nvshmemx_int32_sum_reduce_warp(W, d, s, ne);
        if (C == C_RSCATTER) nvshmemx_int32_sum_reducescatter_warp(W, d, s, ne);
    } else {
        if (C == C_BARRIER) nvshmemx_barrier_block(W);
        if (C == C_BCAST) nvshmemx_int32_broadcast_block(W, d, s, ne, 0);
        if (C == C_FCOLLECT) nvshmemx_int32_fcollect_block(W, d, s, ne);
        if (C == C_ALLTOALL) nvshmemx_int32_alltoall_block(W, d, s, ne);
        if (C == C_REDUCE) nvshmemx_int32_sum_reduce_block(W, d, s, ne);
        if (C == C_RSCATTER) nvshmemx_int32_sum_reducescatter_block(W, d, s, ne);
    }
}

/* launch bounds: the block forms of both libraries need them to fit COLL_THREADS
 * threads ("too many resources requested for launch" otherwise) */
template <int C, int F> __global__ void __launch_bounds__(COLL_THREADS) k_coll(int32_t *d, const int32_t *s, size_t ne, long iters)
{
    for (long i = 0; i < iters; i++) coll_call<C, F>(d, s, ne);
}

static void coll_stream(int c, int32_t *d, const int32_t *s, size_t ne)
{
    const nvshmem_team_t W = NVSHMEM_TEAM_WORLD;
    int rc = 0;
    switch (c) {
    case C_BARRIER: rc = nvshmemx_barrier_on_stream(W, stream); break;
    case C_BCAST: rc = nvshmemx_int32_broadcast_on_stream(W, d, s, ne, 0, stream); break;
    case C_FCOLLECT: rc = nvshmemx_int32_fcollect_on_stream(W, d, s, ne, stream); break;
    case C_ALLTOALL: rc = nvshmemx_int32_alltoall_on_stream(W, d, s, ne, stream); break;
    case C_REDUCE: rc = nvshmemx_int32_sum_reduce_on_stream(W, d, s, ne, stream); break;
    case C_RSCATTER: rc = nvshmemx_int32_sum_reducescatter_on_stream(W, d, s, ne, stream); break;
    }
    if (rc) {
        fprintf(stderr, "bench_gpu: %s_stream: error %d\n", coll_name[c], rc);
        exit(1);
    }
}

/* Element j of PE p's source. */
__host__ __device__ __forceinline__ uint32_t coll_val(int p, size_t j)
{
    return (uint32_t)(p + 1) * 1000003u + (uint32_t)j * 7u;
}

__global__ void k_coll_fill(int32_t *s, size_t n, int me)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n; j += gridDim.x * (size_t)blockDim.x)
        s[j] = (int32_t)coll_val(me, j);
}

/* Counts wrong elements of d (ne per PE block) into bad[0], the first at bad[1..3]. */
__global__ void k_coll_check(int c, const int32_t *d, size_t ne, int me, int npes,
                             unsigned long long *bad)
{
    size_t total = (c == C_FCOLLECT || c == C_ALLTOALL) ? ne * npes : ne;
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < total;
         j += gridDim.x * (size_t)blockDim.x) {
        uint32_t want = 0;
        size_t b = j / ne, i = j % ne;
        switch (c) {
        case C_BCAST: want = coll_val(0, j); break;
        case C_FCOLLECT: want = coll_val((int)b, i); break;
        case C_ALLTOALL: want = coll_val((int)b, me * ne + i); break;
        case C_REDUCE:
            for (int p = 0; p < npes; p++) want += coll_val(p, j);
            break;
        case C_RSCATTER:
            for (int p = 0; p < npes; p++) want += coll_val(p, me * ne + j);
            break;
        }
        if ((uint32_t)d[j] != want && atomicAdd(&bad[0], 1ull) == 0) {
            bad[1] = j;
            bad[2] = (uint32_t)d[j];
            bad[3] = want;
        }
    }
}

/* Agreement between the PEs on a host value: each PE puts v into slot me of
 * every PE's agree_buf, then all take the maximum. */
static long long *agree_buf;
__global__ void k_agree(long long *buf, long long v, int me, int npes)
{
    for (int p = 0; p < npes; p++) nvshmem_longlong_p(buf + me, v, p);
    nvshmem_quiet();
}
static long long agree_max(long long v)
{
    long long all[1024], m = v;
    k_agree<<<1, 1, 0, stream>>>(agree_buf, v, me, npes);
    CK(cudaStreamSynchronize(stream));
    nvshmem_barrier_all();
    CK(cudaMemcpy(all, agree_buf, sizeof(long long) * npes, cudaMemcpyDeviceToHost));
    for (int p = 0; p < npes; p++) m = all[p] > m ? all[p] : m;
    nvshmem_barrier_all(); /* nobody overwrites a slot before all have read */
    return m;
}

/* ---- timing --------------------------------------------------------------------- */
template <typename F> static double gpu_time(F launch, long iters)
{
    CK(cudaEventRecord(ev0, stream));
    for (long i = 0; i < iters; i++) launch();
    CK(cudaEventRecord(ev1, stream));
    CK(cudaEventSynchronize(ev1));
    float ms;
    CK(cudaEventElapsedTime(&ms, ev0, ev1));
    return ms / 1e3;
}

/* Median seconds per launch over opt.trials trials of ~opt.target_s each. */
template <typename F> static double gpu_measure(F launch)
{
    double one = gpu_time(launch, 1); /* warm-up and estimate */
    long it = bench_scale(1, one, opt.target_s);
    double v[BENCH_MAX_TRIALS];
    for (int t = 0; t < opt.trials; t++) v[t] = gpu_time(launch, it) / it;
    return bench_median(v, opt.trials);
}

static const char *size_name(size_t n, char *buf)
{
    if (n >= (1u << 30)) sprintf(buf, "%zuG", n >> 30);
    else if (n >= (1u << 20)) sprintf(buf, "%zuM", n >> 20);
    else sprintf(buf, "%zuK", n >> 10);
    return buf;
}

/* One group slice per 64 KiB, up to 16 waves of resident blocks: contiguous
 * slices of a few hundred KiB or less per block keep every HBM channel busy
 * (one wave of 2 MiB slices ran ~15% slower for both libraries). */
static int blocks_for(size_t n)
{
    size_t b = n / (64 << 10);
    return b < 1 ? 1 : b > (size_t)nblocks_max * 16 ? nblocks_max * 16 : (int)b;
}

static void bandwidth(char *dsym, char *ssym, char *local, size_t maxn)
{
    char m[32];
    for (size_t n = 4096; n <= maxn; n *= 4) {
        int nb = blocks_for(n);
        size_name(n, m);
        if (me == 0) {
            if (bench_opt_want(&opt, "put_block"))
                bench_report(IMPL ".put_block", npes, m, gpu_measure([&] {
                    k_rma<0><<<nb, T_BLOCK, 0, stream>>>(dsym, ssym, n, peer); }), n, "GB/s");
            if (bench_opt_want(&opt, "put_warp"))
                bench_report(IMPL ".put_warp", npes, m, gpu_measure([&] {
                    k_rma<1><<<nb, T_BLOCK, 0, stream>>>(dsym, ssym, n, peer); }), n, "GB/s");
            if (bench_opt_want(&opt, "put_thread") && n <= (64u << 20))
                bench_report(IMPL ".put_thread", npes, m, gpu_measure([&] {
                    k_rma<2><<<nb, T_BLOCK, 0, stream>>>(dsym, ssym, n, peer); }), n, "GB/s");
            if (bench_opt_want(&opt, "get_block"))
                bench_report(IMPL ".get_block", npes, m, gpu_measure([&] {
                    k_rma<3><<<nb, T_BLOCK, 0, stream>>>(local, ssym, n, peer); }), n, "GB/s");
            if (bench_opt_want(&opt, "local_copy"))
                bench_report(IMPL ".local_copy", npes, m, gpu_measure([&] {
                    k_local_copy<<<nb, T_BLOCK, 0, stream>>>((int4 *)local, (const int4 *)ssym,
                                                             n / 16); }), n, "GB/s");
            if (bench_opt_want(&opt, "memcpy_d2d"))
                bench_report(IMPL ".memcpy_d2d", npes, m, gpu_measure([&] {
                    CK(cudaMemcpyAsync(local, ssym, n, cudaMemcpyDeviceToDevice, stream)); }),
                    n, "GB/s");
            if (bench_opt_want(&opt, "put_on_stream"))
                bench_report(IMPL ".put_on_stream", npes, m, gpu_measure([&] {
                    nvshmemx_putmem_on_stream(dsym, ssym, n, peer, stream); }), n, "GB/s");
        }
        CK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
    }
}

static void latencies(int *flag, int *out)
{
    enum { IT = 2000, ROUNDS = 500 }; /* rounds of the collective kernels */
    if (me == 0 && bench_opt_want(&opt, "p_lat"))
        bench_report(IMPL ".p_lat", npes, "4B", gpu_measure([&] {
            k_p_lat<<<1, 1, 0, stream>>>(flag, peer, IT); }) / IT, 0, "us");
    if (me == 0 && bench_opt_want(&opt, "g_lat"))
        bench_report(IMPL ".g_lat", npes, "4B", gpu_measure([&] {
            k_g_lat<<<1, 1, 0, stream>>>(flag, peer, IT, out); }) / IT, 0, "us");
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    /* Collective kernels: every PE runs the same fixed number of rounds. */
    double v[BENCH_MAX_TRIALS];
    if (npes >= 2 && bench_opt_want(&opt, "pingpong")) {
        for (int t = 0; t < opt.trials; t++) {
            CK(cudaMemset(flag, 0, sizeof(int)));
            CK(cudaDeviceSynchronize());
            nvshmem_barrier_all();
            if (me <= 1) v[t] = gpu_time([&] {
                k_pingpong<<<1, 1, 0, stream>>>(flag, me, me ^ 1, ROUNDS); }, 1) / ROUNDS / 2;
            nvshmem_barrier_all();
        }
        if (me == 0) bench_report(IMPL ".pingpong", npes, "4B", bench_median(v, opt.trials), 0, "us");
    }
    if (bench_opt_want(&opt, "barrier")) {
        for (int t = 0; t < opt.trials; t++) {
            nvshmem_barrier_all();
            v[t] = gpu_time([&] { k_barrier<<<1, 1, 0, stream>>>(ROUNDS); }, 1) / ROUNDS;
        }
        if (me == 0) bench_report(IMPL ".barrier", npes, "-", bench_median(v, opt.trials), 0, "us");
    }
    nvshmem_barrier_all();
}


/* ---- collectives: timing ------------------------------------------------------------- */
static int coll_errors;

static double env_num(const char *name, double dflt)
{
    const char *e = getenv(name);
    return e && *e ? strtod(e, NULL) : dflt;
}

template <int C, int F> static void coll_launch(int32_t *d, const int32_t *s, size_t ne, long it)
{
    if (F == F_STREAM) {
        for (long i = 0; i < it; i++) coll_stream(C, d, s, ne);
        return;
    }
    int nth = F == F_THREAD ? 1 : F == F_WARP ? 32 : COLL_THREADS;
    k_coll<C, F == F_STREAM ? F_BLOCK : F><<<1, nth, 0, stream>>>(d, s, ne, it);
}

/* Seconds per collective (median of opt.trials kernels of `it` each), the
 * same count on every PE; *slow gets the agreed seconds of one call. */
template <int C, int F>
static double coll_time(int32_t *d, const int32_t *s, size_t ne, double target_s, double *slow)
{
    CK(cudaStreamSynchronize(stream));
    nvshmem_barrier_all();
    gpu_time([&] { coll_launch<C, F>(d, s, ne, 1); }, 1); /* module load, first touch */
    double one = gpu_time([&] { coll_launch<C, F>(d, s, ne, 1); }, 1);
    one = agree_max((long long)(one * 1e9)) / 1e9; /* every PE decides alike */
    *slow = one;
    long it = (long)(target_s / (one > 1e-7 ? one : 1e-7));
    it = it < 1 ? 1 : it > 20000 ? 20000 : it;
    it = (long)agree_max(it);
    cudaEvent_t ev[BENCH_MAX_TRIALS + 1];
    for (int t = 0; t <= opt.trials; t++) CK(cudaEventCreate(&ev[t]));
    nvshmem_barrier_all();
    coll_launch<C, F>(d, s, ne, it); /* warm-up: absorbs the PEs' launch skew */
    CK(cudaEventRecord(ev[0], stream));
    for (int t = 0; t < opt.trials; t++) {
        coll_launch<C, F>(d, s, ne, it);
        CK(cudaEventRecord(ev[t + 1], stream));
    }
    CK(cudaStreamSynchronize(stream));
    CK(cudaGetLastError());
    double v[BENCH_MAX_TRIALS];
    for (int t = 0; t < opt.trials; t++) {
        float ms;
        CK(cudaEventElapsedTime(&ms, ev[t], ev[t + 1]));
        v[t] = ms / 1e3 / it;
    }
    for (int t = 0; t <= opt.trials; t++) CK(cudaEventDestroy(ev[t]));
    return bench_median(v, opt.trials);
}

static const char *coll_size_name(size_t n, char *buf)
{
    if (n < 1024) sprintf(buf, "%zuB", n);
    else return size_name(n, buf);
    return buf;
}

/* Checks d after collective C of ne elements: 0 when right on every PE. */
static int coll_check(int c, const int32_t *d, size_t ne, const char *row, const char *sz,
                      unsigned long long *bad)
{
    unsigned long long h[4] = {0, 0, 0, 0};
    if (c != C_BARRIER && !(c == C_BCAST && me == 0)) { /* the root's dest is not looked at */
        CK(cudaMemsetAsync(bad, 0, 4 * sizeof *bad, stream)); /* stream is non-blocking */
        k_coll_check<<<256, 256, 0, stream>>>(c, d, ne, me, npes, bad);
        CK(cudaStreamSynchronize(stream));
        CK(cudaMemcpy(h, bad, sizeof h, cudaMemcpyDeviceToHost));
        if (h[0]) {
            printf("bench_gpu: ERROR %s.%s %s on PE %d: %llu wrong elements, first [%llu] = %lld, "
                   "want %lld\n", IMPL, row, sz, me, h[0], h[1], (long long)(int32_t)h[2],
                   (long long)(int32_t)h[3]);
            fflush(stdout);
        }
    }
    return (int)agree_max(h[0] ? 1 : 0);
}

template <int C, int F>
static void coll_rows(int32_t *d, int32_t *s, size_t maxn, unsigned long long *bad)
{
    char row[64], sz[32];
    snprintf(row, sizeof row, "%s_%s", coll_name[C], form_name[F]);
    const double target_s = env_num("BENCH_COLL_TARGET_MS", 5) / 1e3;
    const double slow_s = env_num("BENCH_COLL_SLOW_MS", 40) / 1e3;
    const size_t thread_max = (size_t)env_num("BENCH_COLL_THREAD_MAX", 64 << 10);
    static const size_t sizes[] = {8, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = C == C_BARRIER ? 0 : sizes[k], ne = n / 4;
        if (n * npes > maxn || (F == F_THREAD && n > thread_max)) {
            if (me == 0) printf("# %s.%s: sizes from %s on not run (limit)\n", IMPL, row,
                                coll_size_name(n, sz));
            break;
        }
        coll_size_name(n, sz);
        if (C != C_BARRIER) {
            k_coll_fill<<<1024, 256, 0, stream>>>(s, ne * npes, me);
            CK(cudaMemsetAsync(d, 0xab, n * npes, stream)); /* nothing stale passes */
        }
        double slow, t = coll_time<C, F>(d, s, ne, target_s, &slow);
        if (coll_check(C, d, ne, row, sz, bad)) coll_errors++;
        if (me == 0) bench_report((std::string(IMPL ".") + row).c_str(), npes,
                                  C == C_BARRIER ? "-" : sz, t, 0, "us");
        if (C == C_BARRIER) break;
        if (slow > slow_s) {
            if (me == 0 && k + 1 < sizeof sizes / sizeof *sizes)
                printf("# %s.%s: larger sizes not run (%.1f ms per call at %s)\n", IMPL, row,
                       slow * 1e3, sz);
            break;
        }
    }
}

template <int C> static void coll_forms(int32_t *d, int32_t *s, size_t maxn, unsigned long long *bad)
{
    if (!bench_opt_want(&opt, coll_name[C])) return;
    coll_rows<C, F_THREAD>(d, s, maxn, bad);
    coll_rows<C, F_WARP>(d, s, maxn, bad);
    coll_rows<C, F_BLOCK>(d, s, maxn, bad);
    coll_rows<C, F_STREAM>(d, s, maxn, bad);
}

static void collectives(char *dsym, char *ssym, size_t maxn)
{
    unsigned long long *bad;
    CK(cudaMalloc(&bad, 4 * sizeof *bad));
    size_t cap = (size_t)env_num("BENCH_COLL_MAX", 64 << 20) * npes;
    maxn = maxn < cap ? maxn : cap;
    int32_t *d = (int32_t *)dsym, *s = (int32_t *)ssym;
    coll_forms<C_BARRIER>(d, s, maxn, bad);
    coll_forms<C_BCAST>(d, s, maxn, bad);
    coll_forms<C_FCOLLECT>(d, s, maxn, bad);
    coll_forms<C_ALLTOALL>(d, s, maxn, bad);
    coll_forms<C_REDUCE>(d, s, maxn, bad);
    coll_forms<C_RSCATTER>(d, s, maxn, bad);
    CK(cudaFree(bad));
    CK(cudaMemset(ssym, 1, maxn)); /* as the other benchmarks found it */
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
}

static void malloc_free(void)
{
    enum { IT = 200 };
    double v[BENCH_MAX_TRIALS];
    if (!bench_opt_want(&opt, "malloc_free")) return;
    for (int t = 0; t < opt.trials; t++) {
        nvshmem_barrier_all();
        double t0 = bench_now();
        for (int i = 0; i < IT; i++) nvshmem_free(nvshmem_malloc(1 << 20));
        v[t] = (bench_now() - t0) / IT;
    }
    if (me == 0) bench_report(IMPL ".malloc_free", npes, "1M", bench_median(v, opt.trials), 0, "us");
}

static int run(void)
{
    me = nvshmem_my_pe();
    npes = nvshmem_n_pes();
    peer = (me + 1) % npes;
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    nblocks_max = sms * (2048 / T_BLOCK);
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    const char *env = getenv("BENCH_GPU_MAX");
    size_t maxn = env ? strtoull(env, NULL, 0) : (size_t)1 << 30;
    char *dsym = (char *)nvshmem_malloc(maxn), *ssym = (char *)nvshmem_malloc(maxn);
    int *flag = (int *)nvshmem_malloc(64);
    agree_buf = (long long *)nvshmem_malloc(sizeof(long long) * 1024);
    char *local;
    int *out;
    if (!dsym || !ssym || !flag || !agree_buf || npes > 1024) {
        fprintf(stderr, "bench_gpu: nvshmem_malloc(%zu) failed\n", maxn);
        return 1;
    }
    CK(cudaMalloc(&local, maxn));
    CK(cudaMalloc(&out, sizeof(int)));
    CK(cudaMemset(ssym, 1, maxn));
    CK(cudaMemset(flag, 0, 64));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (me == 0) printf("# %s, %d PEs, %d SMs, up to %zu bytes\n", IMPL, npes, sms, maxn);
    bandwidth(dsym, ssym, local, maxn);
    latencies(flag, out);
    collectives(dsym, ssym, maxn);
    malloc_free();
    nvshmem_barrier_all();
    nvshmem_free(agree_buf);
    nvshmem_free(flag);
    nvshmem_free(ssym);
    nvshmem_free(dsym);
    CK(cudaFree(local));
    nvshmem_finalize();
    return coll_errors ? 1 : 0;
}

static const char names[] = "put_block,put_warp,put_thread,get_block,local_copy,memcpy_d2d,"
                            "put_on_stream,p_lat,g_lat,pingpong,barrier,broadcast,fcollect,"
                            "alltoall,reduce,reducescatter,malloc_free";

#ifndef BENCH_NVSHMEM
int main(int argc, char **argv)
{
    int rc = bench_opt_parse(&opt, argc, argv, names);
    if (rc) return rc > 0 ? 0 : 2;
    nvshmem_init();
    return run();
}
#else
/* NVSHMEM has no launcher here: fork BENCH_NPES PEs (default 2) and join
 * them with the unique-ID bootstrap; PE 0 publishes the ID in shared memory. */
struct uid_box {
    volatile int ready;
    nvshmemx_uniqueid_t id;
};

static int pe_main(int rank, int n, struct uid_box *box)
{
    CK(cudaSetDevice(0));
    if (rank == 0) {
        nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
        nvshmemx_get_uniqueid(&id);
        box->id = id;
        __sync_synchronize();
        box->ready = 1;
    }
    while (!box->ready) usleep(1000);
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    nvshmemx_uniqueid_t id = box->id;
    nvshmemx_set_attr_uniqueid_args(rank, n, &id, &attr);
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    return run();
}

int main(int argc, char **argv)
{
    int rc = bench_opt_parse(&opt, argc, argv, names);
    if (rc) return rc > 0 ? 0 : 2;
    const char *e = getenv("BENCH_NPES");
    int n = e ? atoi(e) : 2, status = 0;
    struct uid_box *box = (struct uid_box *)mmap(NULL, sizeof *box, PROT_READ | PROT_WRITE,
                                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    box->ready = 0;
    fflush(stdout);
    for (int r = 0; r < n; r++)
        if (fork() == 0) _exit(pe_main(r, n, box));
    for (int r = 0; r < n; r++) {
        int st;
        wait(&st);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) status = 1;
    }
    return status;
}
#endif
