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
 *   malloc_free       nvshmem_malloc(1 MiB) + nvshmem_free from the host, us */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char *local;
    int *out;
    if (!dsym || !ssym || !flag) {
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
    malloc_free();
    nvshmem_barrier_all();
    nvshmem_free(flag);
    nvshmem_free(ssym);
    nvshmem_free(dsym);
    CK(cudaFree(local));
    nvshmem_finalize();
    return 0;
}

static const char names[] = "put_block,put_warp,put_thread,get_block,local_copy,memcpy_d2d,"
                            "put_on_stream,p_lat,g_lat,pingpong,barrier,malloc_free";

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
