/* nvshmem_device.cuh - the NVSHMEM-style device API of symheap (issue 7).
 *
 * Included by nvshmem.h when compiled by nvcc (__CUDACC__); do not include
 * it alone.  Every PE of one node maps every peer's GPU heap into its own
 * GPU address space (docs/gpu.md), so remote access is a load or store
 * through the peer's mapping: the whole API is __device__ inline code, no
 * device library, no -rdc needed (symcc still passes -rdc=true so programs
 * may split their own device code).
 *
 * Where the device finds the heap: each translation unit that includes this
 * header has its own copy of shmemx_gpu_state_t in __constant__ memory
 * (shmi_dstate: my PE, the number of PEs, the heap's base, the peers' slots)
 * and registers, before main, a host function that copies it there;
 * libsymheap calls it when the GPU heap is set up (at shmem_init in such a
 * program).  A module the program loads itself (cuModuleLoad, cuLibraryLoad*)
 * runs no constructor: nvshmemx_cumodule_init / culibrary_init (nvshmemx.h)
 * find its shmi_dstate by name and have the library fill it.  PE pe's copy
 * of symmetric address a is
 *     a - base + slots + pe * size      (a itself for our own PE)
 * two constant-cache reads and a multiply-add, no table.
 *
 * Routines that exist on both sides (nvshmem_int_p, nvshmem_quiet, ...) are
 * __host__ __device__: the device pass runs the code below, the host pass
 * calls the OpenSHMEM routine (shmem_int_p ...), as in C programs.  Warp and
 * block forms (nvshmemx_putmem_block ...) are device only and must be called
 * by every thread of the warp / block.
 *
 * Memory model: puts are stores, so a put is complete for the caller when it
 * returns and the _nbi forms are the same routines; nvshmem_quiet and
 * nvshmem_fence are __threadfence_system() (peers may sit on other GPUs or
 * read from the host); signals are atomics after that fence; waits use
 * volatile loads and end with a fence.  Device calls take symmetric GPU
 * heap addresses only; with SYMHEAP_DEVICE_CHECKS (default 1) an address
 * outside the GPU heap prints one line naming the call and traps. */
#ifndef SYMHEAP_NVSHMEM_DEVICE_CUH
#define SYMHEAP_NVSHMEM_DEVICE_CUH

#ifndef __CUDACC__
#error "nvshmem_device.cuh is CUDA code: compile with nvcc (symcc does for .cu files)"
#endif

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <shmem.h>
#include <shmemx.h>

#ifndef SYMHEAP_DEVICE_CHECKS
#define SYMHEAP_DEVICE_CHECKS 1
#endif

/* NVSHMEM_SIGNAL_*, NVSHMEM_CMP_* and the team indices come from nvshmem.h
 * (NVSHMEM's values; host calls translate them to OpenSHMEM's). */

/* ---- The device state and its registration ----------------------------------- */
static __constant__ shmemx_gpu_state_t shmi_dstate;
/* The same on the host side of this unit (nvshmemx_collective_launch and
 * the _on_stream collectives read it); npes is 0 until the heap exists. */
static shmemx_gpu_state_t shmi_hstate;

/* Byte offset of the control block's GPU identity (struct shmi_dctl below). */
#define SHMI_DCTL_GPU_ID 2560
/* A copy between host and GPU memory (ours or a peer's mapping) on a private
 * non-blocking stream, so that it never waits for the program's kernels. */
static inline cudaError_t shmi_h_copy(void *dst, const void *src, size_t n)
{
    static cudaStream_t st;
    cudaError_t e = cudaSuccess;
    if (!st) e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    return e;
}

static void shmi_dstate_publish(const shmemx_gpu_state_t *st)
{
    /* The library made the PE's GPU current on this thread; the runtime
     * follows it.  Leave it current: it is the GPU this PE's kernels use. */
    cudaSetDevice(st->device);
    cudaError_t e = cudaMemcpyToSymbol(shmi_dstate, st, sizeof *st);
    if (e != cudaSuccess)
        fprintf(stderr, "[pe %d] symheap error: cannot copy the GPU heap's state to the device "
                "(cudaMemcpyToSymbol: %s): device calls of this unit will fail; was it "
                "built for this GPU's architecture (symcc -arch=sm_XX)?\n", (int)st->me,
                cudaGetErrorString(e));
    shmi_hstate = *st;
    /* Which physical GPU this PE uses (PCI domain, bus, device; never 0), in
     * its control block, where peers read it: nvshmemx_collective_launch
     * counts the PEs that share a GPU.  Every unit writes the same value. */
    int dom = 0, bus = 0, dev = 0;
    cudaDeviceGetAttribute(&dom, cudaDevAttrPciDomainId, st->device);
    cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, st->device);
    cudaDeviceGetAttribute(&dev, cudaDevAttrPciDeviceId, st->device);
    unsigned long long id = ((unsigned long long)(unsigned)dom << 32 | (unsigned)bus << 8 |
                             (unsigned)dev) + 1;
    shmi_h_copy((char *)(uintptr_t)st->ctl + SHMI_DCTL_GPU_ID, &id, sizeof id);
}
__attribute__((unused)) static const int shmi_dstate_registered =
    shmemx_gpu_register(shmi_dstate_publish, SHMEMX_GPU_STATE_VERSION);

#define SHMI_DEV static __device__ __forceinline__
#define SHMI_HD static __host__ __device__ inline
#ifdef __CUDA_ARCH__
#define SHMI_ON_DEVICE(...) __VA_ARGS__
#define SHMI_ON_HOST(...)
#else
#define SHMI_ON_DEVICE(...)
#define SHMI_ON_HOST(...) __VA_ARGS__
#endif

/* ---- Addresses ------------------------------------------------------------------ */
SHMI_DEV int shmi_d_in_heap(const void *a)
{
    return (uint64_t)(uintptr_t)a - shmi_dstate.base < shmi_dstate.size;
}

SHMI_DEV void shmi_d_check(const char *fn, const void *a, int pe)
{
#if SYMHEAP_DEVICE_CHECKS
    if (!shmi_d_in_heap(a) || (unsigned)pe >= (unsigned)shmi_dstate.npes) {
        if (shmi_dstate.npes == 0)
            printf("[pe ?] symheap error: %s in a kernel before the GPU heap exists: call "
                   "nvshmem_init() first (and keep this unit's nvshmem.h include)\n", fn);
        else if ((unsigned)pe >= (unsigned)shmi_dstate.npes)
            printf("[pe %d] symheap error: %s: pe=%d is out of range: this job has %d PEs\n",
                   (int)shmi_dstate.me, fn, pe, (int)shmi_dstate.npes);
        else
            printf("[pe %d] symheap error: %s: %p is not in the GPU symmetric heap [%p, %p): "
                   "device calls need memory from nvshmem_malloc\n", (int)shmi_dstate.me, fn, a,
                   (void *)shmi_dstate.base, (void *)(shmi_dstate.base + shmi_dstate.size));
        __trap();
    }
#else
    (void)fn; (void)a; (void)pe;
#endif
}

/* PE pe's copy of symmetric address a, checked. */
template <typename T> SHMI_DEV T *shmi_d_peer(const char *fn, const T *a, int pe)
{
    shmi_d_check(fn, a, pe);
    if (pe == shmi_dstate.me) return (T *)a;
    return (T *)((uintptr_t)a - shmi_dstate.base + shmi_dstate.slots +
                 (uint64_t)pe * shmi_dstate.size);
}

/* ---- Memory order helpers -------------------------------------------------------- */
SHMI_DEV void shmi_d_fence(void) { __threadfence_system(); }

/* Strong 64-bit loads and stores at system scope: shmi_d_ld_acquire,
 * shmi_d_st_release, and their relaxed forms (ordered by a fence of the
 * caller's). */
#define SHMI_D_LDST(SEM_LD, SEM_ST)                                                               \
    SHMI_DEV unsigned long long shmi_d_ld_##SEM_LD(const unsigned long long *p)                   \
    {                                                                                             \
        unsigned long long v;                                                                     \
        asm volatile("ld." #SEM_LD ".sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");    \
        return v;                                                                                 \
    }                                                                                             \
    SHMI_DEV void shmi_d_st_##SEM_ST(unsigned long long *p, unsigned long long v)                 \
    {                                                                                             \
        asm volatile("st." #SEM_ST ".sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");     \
    }
SHMI_D_LDST(acquire, release)
SHMI_D_LDST(relaxed, relaxed)
#undef SHMI_D_LDST

/* ---- Bulk copy by a group of nth threads (this one is tid) ------------------------- */
/* CG: loads at L2 (ld.global.cg), never from a stale L1 line: for data
 * that other PEs wrote during this kernel (collectives). */
template <bool CG, typename V> SHMI_DEV V shmi_d_ld(const V *p)
{
    if (CG) return __ldcg(p);
    return *p;
}
template <bool CG>
SHMI_DEV void shmi_d_copy_g(void *dst, const void *src, size_t n, unsigned tid, unsigned nth)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    size_t done = 0;
    if ((((uintptr_t)d ^ (uintptr_t)s) & 15) == 0 && ((uintptr_t)d & 15)) {
        /* same misalignment on both sides: bytes up to the boundary, then vectors */
        size_t head = 16 - ((uintptr_t)d & 15);
        if (head > n) head = n;
        for (size_t i = tid; i < head; i += nth) d[i] = shmi_d_ld<CG>(s + i);
        d += head;
        s += head;
        n -= head;
    }
    if ((((uintptr_t)d | (uintptr_t)s) & 15) == 0) {
        /* 16-byte vectors, 4 loads in flight per thread before the stores */
        size_t nv = n / 16, i = tid;
        int4 *dv = (int4 *)d;
        const int4 *sv = (const int4 *)s;
        for (; i + 3 * (size_t)nth < nv; i += 4 * (size_t)nth) {
            int4 a = shmi_d_ld<CG>(sv + i), b = shmi_d_ld<CG>(sv + i + nth),
                 c = shmi_d_ld<CG>(sv + i + 2 * (size_t)nth), e = shmi_d_ld<CG>(sv + i + 3 * (size_t)nth);
            dv[i] = a;
            dv[i + nth] = b;
            dv[i + 2 * (size_t)nth] = c;
            dv[i + 3 * (size_t)nth] = e;
        }
        for (; i < nv; i += nth) dv[i] = shmi_d_ld<CG>(sv + i);
        done = nv * 16;
    } else if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
        size_t nv = n / 8;
        for (size_t i = tid; i < nv; i += nth)
            ((unsigned long long *)d)[i] = shmi_d_ld<CG>((const unsigned long long *)s + i);
        done = nv * 8;
    } else if ((((uintptr_t)d | (uintptr_t)s) & 3) == 0) {
        size_t nv = n / 4;
        for (size_t i = tid; i < nv; i += nth)
            ((unsigned int *)d)[i] = shmi_d_ld<CG>((const unsigned int *)s + i);
        done = nv * 4;
    }
    for (size_t i = done + tid; i < n; i += nth) d[i] = shmi_d_ld<CG>(s + i);
}
SHMI_DEV void shmi_d_copy(void *dst, const void *src, size_t n, unsigned tid, unsigned nth)
{
    shmi_d_copy_g<false>(dst, src, n, tid, nth);
}

SHMI_DEV unsigned shmi_d_lane(void) { return threadIdx.x & 31; }
SHMI_DEV unsigned shmi_d_block_tid(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
SHMI_DEV unsigned shmi_d_block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }

/* Group forms: THREAD (1 thread), WARP (all 32 lanes), BLOCK (every thread). */
#define SHMI_GROUP_THREAD(body) { const unsigned tid = 0, nth = 1; body; }
#define SHMI_GROUP_WARP(body) { __syncwarp(); const unsigned tid = shmi_d_lane(), nth = 32; body; __syncwarp(); }
#define SHMI_GROUP_BLOCK(body) { __syncthreads(); const unsigned tid = shmi_d_block_tid(), nth = shmi_d_block_size(); body; __syncthreads(); }

SHMI_DEV void shmi_d_put(const char *fn, void *dest, const void *src, size_t n, int pe,
                         unsigned tid, unsigned nth)
{
    if (n) shmi_d_copy(shmi_d_peer(fn, (char *)dest, pe), src, n, tid, nth);
}
SHMI_DEV void shmi_d_get(const char *fn, void *dest, const void *src, size_t n, int pe,
                         unsigned tid, unsigned nth)
{
    if (n) shmi_d_copy(dest, shmi_d_peer(fn, (const char *)src, pe), n, tid, nth);
}

/* g: one weak load per call, as NVSHMEM's (it may be served from L1): it
 * sees a peer's store once the program has ordered it (the writer's quiet,
 * fence or barrier, then an acquire here: a barrier, wait_until, signal
 * wait), never earlier by polling; the compiler barrier keeps every call a
 * load of its own (no hoisting out of a loop).  Poll a changing word with
 * nvshmem_TYPE_wait_until or nvshmem_signal_wait_until instead. */
template <typename T> SHMI_DEV T shmi_d_g(const T *p)
{
    T v = *p;
    asm volatile("" ::: "memory");
    return v;
}

/* Strided (strides in elements), one thread. */
SHMI_DEV void shmi_d_strided(const char *fn, char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst,
                             size_t nelems, size_t elem, int pe, int is_put)
{
    if (!nelems) return;
    if (is_put) d = shmi_d_peer(fn, d, pe);
    else s = shmi_d_peer(fn, s, pe);
    for (size_t i = 0; i < nelems; i++)
        for (size_t b = 0; b < elem; b++) d[(size_t)dst * i * elem + b] = s[(size_t)sst * i * elem + b];
}

/* ---- Atomics: one routine per width, bits in and out --------------------------------- */
enum { SHMI_D_FETCH, SHMI_D_SET, SHMI_D_SWAP, SHMI_D_CSWAP, SHMI_D_ADD, SHMI_D_AND, SHMI_D_OR,
       SHMI_D_XOR };

template <typename W> SHMI_DEV W shmi_d_amo_w(W *p, int op, W v, W c)
{
    switch (op) {
    case SHMI_D_FETCH: return *(volatile W *)p;
    case SHMI_D_SET: atomicExch(p, v); return 0;
    case SHMI_D_SWAP: return atomicExch(p, v);
    case SHMI_D_CSWAP: return atomicCAS(p, c, v);
    case SHMI_D_ADD: return atomicAdd(p, v);
    case SHMI_D_AND: return atomicAnd(p, v);
    case SHMI_D_OR: return atomicOr(p, v);
    default: return atomicXor(p, v);
    }
}

template <typename T> SHMI_DEV T shmi_d_amo(const char *fn, const T *dest, int op, T v, T c, int pe)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMOs take 4- or 8-byte types");
    void *p = shmi_d_peer(fn, dest, pe);
    T r;
    if (sizeof(T) == 4) {
        unsigned int vb, cb, rb;
        memcpy(&vb, &v, 4);
        memcpy(&cb, &c, 4);
        rb = shmi_d_amo_w((unsigned int *)p, op, vb, cb);
        memcpy(&r, &rb, 4);
    } else {
        unsigned long long vb, cb, rb;
        memcpy(&vb, &v, 8);
        memcpy(&cb, &c, 8);
        rb = shmi_d_amo_w((unsigned long long *)p, op, vb, cb);
        memcpy(&r, &rb, 8);
    }
    return r;
}

/* ---- Point-to-point waits ---------------------------------------------------------------- */
template <typename T> SHMI_DEV bool shmi_d_cmp(T v, int cmp, T x)
{
    switch (cmp) {
    case NVSHMEM_CMP_EQ: return v == x;
    case NVSHMEM_CMP_NE: return v != x;
    case NVSHMEM_CMP_GT: return v > x;
    case NVSHMEM_CMP_GE: return v >= x;
    case NVSHMEM_CMP_LT: return v < x;
    default: return v <= x;
    }
}

template <typename T> SHMI_DEV T shmi_d_wait_until(const char *fn, T *ivar, int cmp, T x)
{
    shmi_d_check(fn, ivar, shmi_dstate.me);
    T v;
    while (!shmi_d_cmp(v = *(volatile T *)ivar, cmp, x)) {
    }
    __threadfence(); /* later reads see what the writer stored before its signal */
    return v;
}

template <typename T> SHMI_DEV int shmi_d_test(const char *fn, T *ivar, int cmp, T x)
{
    shmi_d_check(fn, ivar, shmi_dstate.me);
    int ok = shmi_d_cmp(*(volatile T *)ivar, cmp, x);
    if (ok) __threadfence();
    return ok;
}

/* ---- Barrier over the device control blocks ------------------------------------------
 * Each PE's control block (zeroed at set-up, at shmi_dstate.ctl) holds 16
 * flags, 128 bytes apart, and the PE's own barrier count (its epoch; every
 * PE does the same barriers, so the epochs agree).  Flags only grow, so
 * they are never reset.  One thread per PE calls it (the block/warp forms
 * elect one).
 *  - Up to SHMI_D_BARRIER_A2A_MAX PEs (at most 16), one round: flag p
 *    belongs to PE p; a PE fences, stores its epoch into its flag in every
 *    peer's block, and waits until every peer's flag in its own block has
 *    reached the epoch, then fences (acquire).  One store-to-poll latency,
 *    whatever the PE count.
 *  - More PEs: dissemination, flag r for round r: in round r PE i
 *    release-stores the epoch into PE (i + 2^r) % n's flag r and waits until
 *    its own flag r reaches it; log2(n) rounds one after the other. */
#ifndef SHMI_D_BARRIER_A2A_MAX
#define SHMI_D_BARRIER_A2A_MAX 8
#endif
struct shmi_dctl {
    unsigned long long bar[16][16]; /* [flag][0] used */
    unsigned long long epoch;       /* barriers completed by this PE */
    unsigned long long ll_epoch;    /* low-latency collectives begun (nvshmem_coll_device.cuh) */
    unsigned long long ll_clear;    /* ll_epoch at this PE's last barrier: all PEs finished those */
    unsigned long long pad[13];
    unsigned long long ll_done;     /* ... and finished: peers read it (own 128-byte line) */
    unsigned long long pad2[47];
    unsigned long long gpu_id;      /* SHMI_DCTL_GPU_ID: the PE's physical GPU (publish) */
};
static_assert(offsetof(shmi_dctl, gpu_id) == SHMI_DCTL_GPU_ID, "control block layout");

static_assert(SHMEMX_GPU_CTL_BLOCK >= sizeof(shmi_dctl), "control block layout");

/* A team as device code sees it: its size n, this PE's rank me, the world
 * PE of rank r (start + r * stride), and its control block (shmemx_gpu.h:
 * block 0 for the world, one of its own for each split team, so teams
 * never share barrier flags or scratch). */
struct shmi_dteam {
    int n, me, start, stride;
    shmi_dctl *c;
};
SHMI_DEV shmi_dteam shmi_d_world(void)
{
    return { (int)shmi_dstate.npes, (int)shmi_dstate.me, 0, 1, (shmi_dctl *)shmi_dstate.ctl };
}
SHMI_DEV int shmi_dt_pe(const shmi_dteam &t, int r) { return t.start + r * t.stride; }

SHMI_DEV void shmi_d_barrier_(const shmi_dteam &t, int quiet);
/* Every PE has also finished the low-latency collectives it began on the
 * team before the barrier (nvshmem_coll_device.cuh: shmi_dc_ll): note it in
 * ll_clear. */
SHMI_DEV void shmi_d_barrier_t(const shmi_dteam &t, int quiet)
{
    shmi_dctl *c = t.c;
    const unsigned long long ll = *(volatile unsigned long long *)&c->ll_epoch;
    shmi_d_barrier_(t, quiet);
    *(volatile unsigned long long *)&c->ll_clear = ll;
}
SHMI_DEV void shmi_d_barrier(int quiet) { shmi_d_barrier_t(shmi_d_world(), quiet); }
SHMI_DEV void shmi_d_barrier_(const shmi_dteam &t, int quiet)
{
    shmi_dctl *c = t.c;
    unsigned long long e = *(volatile unsigned long long *)&c->epoch + 1;
    *(volatile unsigned long long *)&c->epoch = e;
    const int n = t.n, me = t.me;
    if (n <= SHMI_D_BARRIER_A2A_MAX && n <= 16) {
        /* the fence makes the relaxed stores below releases (and completes
         * this PE's puts: quiet) */
        shmi_d_fence();
        for (int i = 1; i < n; i++)
            shmi_d_st_relaxed(shmi_d_peer("nvshmem_barrier", &c->bar[me][0],
                                          shmi_dt_pe(t, (me + i) % n)), e);
        for (int i = 1; i < n; i++) {
            const unsigned long long *f = &c->bar[(me + n - i) % n][0];
            while (shmi_d_ld_relaxed(f) < e) {
            }
        }
        asm volatile("fence.acq_rel.sys;" ::: "memory"); /* the polls become acquires */
        return;
    }
    if (quiet) shmi_d_fence();
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        int to = shmi_dt_pe(t, (me + dist) % n);
        shmi_d_st_release(shmi_d_peer("nvshmem_barrier", &c->bar[r][0], to), e);
        while (shmi_d_ld_acquire(&c->bar[r][0]) < e) {
        }
    }
}

/* ---- Setup and query --------------------------------------------------------------------- */
SHMI_HD int nvshmem_my_pe(void) { SHMI_ON_DEVICE(return shmi_dstate.me;) SHMI_ON_HOST(return shmem_my_pe();) }
SHMI_HD int nvshmem_n_pes(void) { SHMI_ON_DEVICE(return shmi_dstate.npes;) SHMI_ON_HOST(return shmem_n_pes();) }
SHMI_HD void *nvshmem_ptr(const void *dest, int pe)
{
    SHMI_ON_DEVICE(return shmi_d_in_heap(dest) && (unsigned)pe < (unsigned)shmi_dstate.npes
                              ? shmi_d_peer("nvshmem_ptr", (const char *)dest, pe) : (char *)0;)
    SHMI_ON_HOST(return shmem_ptr(dest, pe);)
}

/* ---- Ordering and barriers ------------------------------------------------------------------ */
SHMI_HD void nvshmem_quiet(void) { SHMI_ON_DEVICE(shmi_d_fence();) SHMI_ON_HOST(shmem_quiet();) }
SHMI_HD void nvshmem_fence(void) { SHMI_ON_DEVICE(shmi_d_fence();) SHMI_ON_HOST(shmem_fence();) }
SHMI_HD void nvshmem_barrier_all(void)
{ SHMI_ON_DEVICE(shmi_d_barrier(1);) SHMI_ON_HOST(shmem_barrier_all();) }
SHMI_HD void nvshmem_sync_all(void) { SHMI_ON_DEVICE(shmi_d_barrier(0);) SHMI_ON_HOST(shmem_sync_all();) }
SHMI_DEV void nvshmemx_barrier_all_warp(void)
{ __syncwarp(); if (shmi_d_lane() == 0) shmi_d_barrier(1); __syncwarp(); }
SHMI_DEV void nvshmemx_barrier_all_block(void)
{ __syncthreads(); if (shmi_d_block_tid() == 0) shmi_d_barrier(1); __syncthreads(); }
SHMI_DEV void nvshmemx_sync_all_warp(void)
{ __syncwarp(); if (shmi_d_lane() == 0) shmi_d_barrier(0); __syncwarp(); }
SHMI_DEV void nvshmemx_sync_all_block(void)
{ __syncthreads(); if (shmi_d_block_tid() == 0) shmi_d_barrier(0); __syncthreads(); }

/* ---- Untyped RMA ----------------------------------------------------------------------------- */
#define SHMI_DV_MEM(SUFFIX, GROUP)                                                                \
    SHMI_DEV void nvshmemx_putmem##SUFFIX(void *d, const void *s, size_t n, int pe)               \
    { GROUP(shmi_d_put("nvshmemx_putmem" #SUFFIX, d, s, n, pe, tid, nth)) }                        \
    SHMI_DEV void nvshmemx_getmem##SUFFIX(void *d, const void *s, size_t n, int pe)               \
    { GROUP(shmi_d_get("nvshmemx_getmem" #SUFFIX, d, s, n, pe, tid, nth)) }                        \
    SHMI_DEV void nvshmemx_putmem_nbi##SUFFIX(void *d, const void *s, size_t n, int pe)           \
    { GROUP(shmi_d_put("nvshmemx_putmem_nbi" #SUFFIX, d, s, n, pe, tid, nth)) }                    \
    SHMI_DEV void nvshmemx_getmem_nbi##SUFFIX(void *d, const void *s, size_t n, int pe)           \
    { GROUP(shmi_d_get("nvshmemx_getmem_nbi" #SUFFIX, d, s, n, pe, tid, nth)) }
SHMI_DV_MEM(_warp, SHMI_GROUP_WARP)
SHMI_DV_MEM(_block, SHMI_GROUP_BLOCK)
#undef SHMI_DV_MEM

SHMI_HD void nvshmem_putmem(void *d, const void *s, size_t n, int pe)
{ SHMI_ON_DEVICE(shmi_d_put("nvshmem_putmem", d, s, n, pe, 0, 1);) SHMI_ON_HOST(shmem_putmem(d, s, n, pe);) }
SHMI_HD void nvshmem_getmem(void *d, const void *s, size_t n, int pe)
{ SHMI_ON_DEVICE(shmi_d_get("nvshmem_getmem", d, s, n, pe, 0, 1);) SHMI_ON_HOST(shmem_getmem(d, s, n, pe);) }
SHMI_HD void nvshmem_putmem_nbi(void *d, const void *s, size_t n, int pe)
{ SHMI_ON_DEVICE(shmi_d_put("nvshmem_putmem_nbi", d, s, n, pe, 0, 1);) SHMI_ON_HOST(shmem_putmem_nbi(d, s, n, pe);) }
SHMI_HD void nvshmem_getmem_nbi(void *d, const void *s, size_t n, int pe)
{ SHMI_ON_DEVICE(shmi_d_get("nvshmem_getmem_nbi", d, s, n, pe, 0, 1);) SHMI_ON_HOST(shmem_getmem_nbi(d, s, n, pe);) }

/* ---- Sized RMA: nvshmem_put8 ... nvshmem_iget128, and warp/block forms -------------------------- */
#define SHMI_DV_SIZED(BITS, BYTES)                                                                \
    SHMI_HD void nvshmem_put##BITS(void *d, const void *s, size_t n, int pe)                      \
    { SHMI_ON_DEVICE(shmi_d_put("nvshmem_put" #BITS, d, s, n * BYTES, pe, 0, 1);)                 \
      SHMI_ON_HOST(shmem_put##BITS(d, s, n, pe);) }                                               \
    SHMI_HD void nvshmem_get##BITS(void *d, const void *s, size_t n, int pe)                      \
    { SHMI_ON_DEVICE(shmi_d_get("nvshmem_get" #BITS, d, s, n * BYTES, pe, 0, 1);)                 \
      SHMI_ON_HOST(shmem_get##BITS(d, s, n, pe);) }                                               \
    SHMI_HD void nvshmem_put##BITS##_nbi(void *d, const void *s, size_t n, int pe)                \
    { SHMI_ON_DEVICE(shmi_d_put("nvshmem_put" #BITS "_nbi", d, s, n * BYTES, pe, 0, 1);)          \
      SHMI_ON_HOST(shmem_put##BITS##_nbi(d, s, n, pe);) }                                         \
    SHMI_HD void nvshmem_get##BITS##_nbi(void *d, const void *s, size_t n, int pe)                \
    { SHMI_ON_DEVICE(shmi_d_get("nvshmem_get" #BITS "_nbi", d, s, n * BYTES, pe, 0, 1);)          \
      SHMI_ON_HOST(shmem_get##BITS##_nbi(d, s, n, pe);) }                                         \
    SHMI_HD void nvshmem_iput##BITS(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,         \
                                    size_t n, int pe)                                             \
    { SHMI_ON_DEVICE(shmi_d_strided("nvshmem_iput" #BITS, (char *)d, (const char *)s, dst, sst,   \
                                    n, BYTES, pe, 1);)                                            \
      SHMI_ON_HOST(shmem_iput##BITS(d, s, dst, sst, n, pe);) }                                    \
    SHMI_HD void nvshmem_iget##BITS(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,         \
                                    size_t n, int pe)                                             \
    { SHMI_ON_DEVICE(shmi_d_strided("nvshmem_iget" #BITS, (char *)d, (const char *)s, dst, sst,   \
                                    n, BYTES, pe, 0);)                                            \
      SHMI_ON_HOST(shmem_iget##BITS(d, s, dst, sst, n, pe);) }                                    \
    SHMI_DEV void nvshmemx_put##BITS##_warp(void *d, const void *s, size_t n, int pe)             \
    { SHMI_GROUP_WARP(shmi_d_put("nvshmemx_put" #BITS "_warp", d, s, n * BYTES, pe, tid, nth)) }  \
    SHMI_DEV void nvshmemx_put##BITS##_block(void *d, const void *s, size_t n, int pe)            \
    { SHMI_GROUP_BLOCK(shmi_d_put("nvshmemx_put" #BITS "_block", d, s, n * BYTES, pe, tid, nth)) } \
    SHMI_DEV void nvshmemx_get##BITS##_warp(void *d, const void *s, size_t n, int pe)             \
    { SHMI_GROUP_WARP(shmi_d_get("nvshmemx_get" #BITS "_warp", d, s, n * BYTES, pe, tid, nth)) }  \
    SHMI_DEV void nvshmemx_get##BITS##_block(void *d, const void *s, size_t n, int pe)            \
    { SHMI_GROUP_BLOCK(shmi_d_get("nvshmemx_get" #BITS "_block", d, s, n * BYTES, pe, tid, nth)) }
SHMEM_SIZE_TABLE(SHMI_DV_SIZED)
#undef SHMI_DV_SIZED

/* ---- Typed families, generated from NVSHMEM_TYPE_TABLE ----------------------------------------
 * long double has no device form (GPUs have none; NVSHMEM has no longdouble
 * either): its routines stay host-only (SHMI_DV_QUAL picks the qualifier). */
#define SHMI_DV_PROBE_longdouble ~, 1
#define SHMI_DV_PROBE_complexd ~, 1 /* the reduction table's complex rows: host only too */
#define SHMI_DV_PROBE_complexf ~, 1
#define SHMI_DV_SECOND(a, b, ...) b
#define SHMI_DV_SECOND_(...) SHMI_DV_SECOND(__VA_ARGS__)
#define SHMI_DV_IS_HOSTONLY(N) SHMI_DV_SECOND_(SHMI_DV_PROBE_##N, 0, ~)
#define SHMI_DV_CAT_(a, b) a##b
#define SHMI_DV_CAT(a, b) SHMI_DV_CAT_(a, b)
/* SHMI_DV_FN(N, decl, device-body, host-body) */
#define SHMI_DV_FN(N, decl, dev, host) SHMI_DV_CAT(SHMI_DV_FN_, SHMI_DV_IS_HOSTONLY(N))(decl, dev, host)
#define SHMI_DV_FN_0(decl, dev, host) SHMI_HD decl { SHMI_ON_DEVICE(dev) SHMI_ON_HOST(host) }
#define SHMI_DV_FN_1(decl, dev, host) static inline decl { host }
/* Device-only routines: none for long double. */
#define SHMI_DV_DEVONLY(N, ...) SHMI_DV_CAT(SHMI_DV_DEVONLY_, SHMI_DV_IS_HOSTONLY(N))(__VA_ARGS__)
#define SHMI_DV_DEVONLY_0(...) __VA_ARGS__
#define SHMI_DV_DEVONLY_1(...)

#define SHMI_DV_RMA(N, T, A, B, S, G)                                                              \
    SHMI_DV_FN(N, void nvshmem_##N##_put(T *d, const T *s, size_t n, int pe),                      \
               shmi_d_put("nvshmem_" #N "_put", d, s, n * sizeof(T), pe, 0, 1);,                  \
               shmem_##N##_put(d, s, n, pe);)                                                      \
    SHMI_DV_FN(N, void nvshmem_##N##_get(T *d, const T *s, size_t n, int pe),                      \
               shmi_d_get("nvshmem_" #N "_get", d, s, n * sizeof(T), pe, 0, 1);,                  \
               shmem_##N##_get(d, s, n, pe);)                                                      \
    SHMI_DV_FN(N, void nvshmem_##N##_put_nbi(T *d, const T *s, size_t n, int pe),                  \
               shmi_d_put("nvshmem_" #N "_put_nbi", d, s, n * sizeof(T), pe, 0, 1);,              \
               shmem_##N##_put_nbi(d, s, n, pe);)                                                  \
    SHMI_DV_FN(N, void nvshmem_##N##_get_nbi(T *d, const T *s, size_t n, int pe),                  \
               shmi_d_get("nvshmem_" #N "_get_nbi", d, s, n * sizeof(T), pe, 0, 1);,              \
               shmem_##N##_get_nbi(d, s, n, pe);)                                                  \
    SHMI_DV_FN(N, void nvshmem_##N##_p(T *d, T v, int pe),                                         \
               *(volatile T *)shmi_d_peer("nvshmem_" #N "_p", d, pe) = v;,                        \
               shmem_##N##_p(d, v, pe);)                                                           \
    SHMI_DV_FN(N, T nvshmem_##N##_g(const T *s, int pe),                                           \
               return shmi_d_g(shmi_d_peer("nvshmem_" #N "_g", s, pe));,                          \
               return shmem_##N##_g(s, pe);)                                                       \
    SHMI_DV_FN(N, void nvshmem_##N##_iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,         \
                                          size_t n, int pe),                                       \
               shmi_d_strided("nvshmem_" #N "_iput", (char *)d, (const char *)s, dst, sst, n,     \
                              sizeof(T), pe, 1);,                                                  \
               shmem_##N##_iput(d, s, dst, sst, n, pe);)                                           \
    SHMI_DV_FN(N, void nvshmem_##N##_iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,         \
                                          size_t n, int pe),                                       \
               shmi_d_strided("nvshmem_" #N "_iget", (char *)d, (const char *)s, dst, sst, n,     \
                              sizeof(T), pe, 0);,                                                  \
               shmem_##N##_iget(d, s, dst, sst, n, pe);)                                           \
    SHMI_DV_DEVONLY(N,                                                                             \
    SHMI_DEV void nvshmemx_##N##_put_warp(T *d, const T *s, size_t n, int pe)                      \
    { SHMI_GROUP_WARP(shmi_d_put("nvshmemx_" #N "_put_warp", d, s, n * sizeof(T), pe, tid, nth)) } \
    SHMI_DEV void nvshmemx_##N##_put_block(T *d, const T *s, size_t n, int pe)                     \
    { SHMI_GROUP_BLOCK(shmi_d_put("nvshmemx_" #N "_put_block", d, s, n * sizeof(T), pe, tid, nth)) } \
    SHMI_DEV void nvshmemx_##N##_get_warp(T *d, const T *s, size_t n, int pe)                      \
    { SHMI_GROUP_WARP(shmi_d_get("nvshmemx_" #N "_get_warp", d, s, n * sizeof(T), pe, tid, nth)) } \
    SHMI_DEV void nvshmemx_##N##_get_block(T *d, const T *s, size_t n, int pe)                     \
    { SHMI_GROUP_BLOCK(shmi_d_get("nvshmemx_" #N "_get_block", d, s, n * sizeof(T), pe, tid, nth)) } \
    SHMI_DEV void nvshmemx_##N##_put_nbi_warp(T *d, const T *s, size_t n, int pe)                  \
    { nvshmemx_##N##_put_warp(d, s, n, pe); }                                                      \
    SHMI_DEV void nvshmemx_##N##_put_nbi_block(T *d, const T *s, size_t n, int pe)                 \
    { nvshmemx_##N##_put_block(d, s, n, pe); }                                                     \
    SHMI_DEV void nvshmemx_##N##_get_nbi_warp(T *d, const T *s, size_t n, int pe)                  \
    { nvshmemx_##N##_get_warp(d, s, n, pe); }                                                      \
    SHMI_DEV void nvshmemx_##N##_get_nbi_block(T *d, const T *s, size_t n, int pe)                 \
    { nvshmemx_##N##_get_block(d, s, n, pe); }                                                     \
    SHMI_DEV void nvshmem_##N##_put_signal(T *d, const T *s, size_t n, uint64_t *sig,             \
                                           uint64_t signal, int sig_op, int pe)                    \
    { nvshmem_putmem_signal(d, s, n * sizeof(T), sig, signal, sig_op, pe); }                       \
    SHMI_DEV void nvshmem_##N##_put_signal_nbi(T *d, const T *s, size_t n, uint64_t *sig,         \
                                               uint64_t signal, int sig_op, int pe)                \
    { nvshmem_putmem_signal(d, s, n * sizeof(T), sig, signal, sig_op, pe); }                       \
    SHMI_DEV void nvshmemx_##N##_put_signal_block(T *d, const T *s, size_t n, uint64_t *sig,      \
                                                  uint64_t signal, int sig_op, int pe)             \
    { nvshmemx_putmem_signal_block(d, s, n * sizeof(T), sig, signal, sig_op, pe); }                \
    SHMI_DEV void nvshmemx_##N##_put_signal_warp(T *d, const T *s, size_t n, uint64_t *sig,       \
                                                 uint64_t signal, int sig_op, int pe)              \
    { nvshmemx_putmem_signal_warp(d, s, n * sizeof(T), sig, signal, sig_op, pe); })

/* ---- Signals -------------------------------------------------------------------------------------- */
SHMI_DEV void shmi_d_signal(uint64_t *sig, uint64_t signal, int sig_op, int pe)
{
    unsigned long long *p = (unsigned long long *)shmi_d_peer("nvshmemx_signal_op", sig, pe);
    if (sig_op == NVSHMEM_SIGNAL_ADD) atomicAdd(p, (unsigned long long)signal);
    else atomicExch(p, (unsigned long long)signal);
}
SHMI_HD void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    SHMI_ON_DEVICE(shmi_d_signal(sig_addr, signal, sig_op, pe);)
    SHMI_ON_HOST(if (sig_op == NVSHMEM_SIGNAL_ADD) shmem_signal_add(sig_addr, signal, pe);
                 else if (sig_op == NVSHMEM_SIGNAL_SET) shmem_signal_set(sig_addr, signal, pe);
                 else nvshmemi_bad_sig_op("nvshmemx_signal_op", sig_op);)
}
SHMI_HD uint64_t nvshmem_signal_fetch(uint64_t *sig_addr)
{
    SHMI_ON_DEVICE(return *(volatile uint64_t *)sig_addr;)
    SHMI_ON_HOST(return shmem_signal_fetch(sig_addr);)
}
SHMI_DEV uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value)
{ return shmi_d_wait_until("nvshmem_signal_wait_until", sig_addr, cmp, value); }
/* Data first, then a system-wide fence, then the signal: a PE that sees the
 * signal sees the data. */
SHMI_DEV void nvshmem_putmem_signal(void *d, const void *s, size_t n, uint64_t *sig,
                                    uint64_t signal, int sig_op, int pe)
{
    shmi_d_put("nvshmem_putmem_signal", d, s, n, pe, 0, 1);
    shmi_d_fence();
    shmi_d_signal(sig, signal, sig_op, pe);
}
SHMI_DEV void nvshmem_putmem_signal_nbi(void *d, const void *s, size_t n, uint64_t *sig,
                                        uint64_t signal, int sig_op, int pe)
{ nvshmem_putmem_signal(d, s, n, sig, signal, sig_op, pe); }
SHMI_DEV void nvshmemx_putmem_signal_block(void *d, const void *s, size_t n, uint64_t *sig,
                                           uint64_t signal, int sig_op, int pe)
{
    SHMI_GROUP_BLOCK(shmi_d_put("nvshmemx_putmem_signal_block", d, s, n, pe, tid, nth))
    if (shmi_d_block_tid() == 0) {
        shmi_d_fence();
        shmi_d_signal(sig, signal, sig_op, pe);
    }
    __syncthreads();
}
SHMI_DEV void nvshmemx_putmem_signal_warp(void *d, const void *s, size_t n, uint64_t *sig,
                                          uint64_t signal, int sig_op, int pe)
{
    SHMI_GROUP_WARP(shmi_d_put("nvshmemx_putmem_signal_warp", d, s, n, pe, tid, nth))
    if (shmi_d_lane() == 0) {
        shmi_d_fence();
        shmi_d_signal(sig, signal, sig_op, pe);
    }
    __syncwarp();
}
SHMI_DEV void nvshmemx_putmem_signal_nbi_block(void *d, const void *s, size_t n, uint64_t *sig,
                                               uint64_t signal, int sig_op, int pe)
{ nvshmemx_putmem_signal_block(d, s, n, sig, signal, sig_op, pe); }
SHMI_DEV void nvshmemx_putmem_signal_nbi_warp(void *d, const void *s, size_t n, uint64_t *sig,
                                              uint64_t signal, int sig_op, int pe)
{ nvshmemx_putmem_signal_warp(d, s, n, sig, signal, sig_op, pe); }

NVSHMEM_TYPE_TABLE(SHMI_DV_RMA)
#undef SHMI_DV_RMA

/* ---- Atomics (same type subsets as OpenSHMEM) --------------------------------------------------- */
#define SHMI_DV_AMO(N, T, A, B, S, G)                                                              \
    SHMI_WHEN_##A##_EXTAMO(                                                                        \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_fetch(const T *dest, int pe),                         \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_fetch", dest, SHMI_D_FETCH, (T)0, (T)0, pe);, \
                   return shmem_##N##_atomic_fetch(dest, pe);)                                     \
        SHMI_DV_FN(N, void nvshmem_##N##_atomic_set(T *dest, T v, int pe),                         \
                   shmi_d_amo<T>("nvshmem_" #N "_atomic_set", dest, SHMI_D_SET, v, (T)0, pe);,     \
                   shmem_##N##_atomic_set(dest, v, pe);)                                           \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_swap(T *dest, T v, int pe),                           \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_swap", dest, SHMI_D_SWAP, v, (T)0, pe);, \
                   return shmem_##N##_atomic_swap(dest, v, pe);))                                  \
    SHMI_WHEN_##A##_AMO(                                                                           \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_compare_swap(T *dest, T c, T v, int pe),              \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_compare_swap", dest, SHMI_D_CSWAP, v, c, pe);, \
                   return shmem_##N##_atomic_compare_swap(dest, c, v, pe);)                        \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_fetch_inc(T *dest, int pe),                           \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_fetch_inc", dest, SHMI_D_ADD, (T)1, (T)0, pe);, \
                   return shmem_##N##_atomic_fetch_inc(dest, pe);)                                 \
        SHMI_DV_FN(N, void nvshmem_##N##_atomic_inc(T *dest, int pe),                              \
                   shmi_d_amo<T>("nvshmem_" #N "_atomic_inc", dest, SHMI_D_ADD, (T)1, (T)0, pe);,  \
                   shmem_##N##_atomic_inc(dest, pe);)                                              \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_fetch_add(T *dest, T v, int pe),                      \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_fetch_add", dest, SHMI_D_ADD, v, (T)0, pe);, \
                   return shmem_##N##_atomic_fetch_add(dest, v, pe);)                              \
        SHMI_DV_FN(N, void nvshmem_##N##_atomic_add(T *dest, T v, int pe),                         \
                   shmi_d_amo<T>("nvshmem_" #N "_atomic_add", dest, SHMI_D_ADD, v, (T)0, pe);,     \
                   shmem_##N##_atomic_add(dest, v, pe);))                                          \
    SHMI_WHEN_##B##_BIT(                                                                           \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_fetch_and(T *dest, T v, int pe),                      \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_fetch_and", dest, SHMI_D_AND, v, (T)0, pe);, \
                   return shmem_##N##_atomic_fetch_and(dest, v, pe);)                              \
        SHMI_DV_FN(N, void nvshmem_##N##_atomic_and(T *dest, T v, int pe),                         \
                   shmi_d_amo<T>("nvshmem_" #N "_atomic_and", dest, SHMI_D_AND, v, (T)0, pe);,     \
                   shmem_##N##_atomic_and(dest, v, pe);)                                           \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_fetch_or(T *dest, T v, int pe),                       \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_fetch_or", dest, SHMI_D_OR, v, (T)0, pe);, \
                   return shmem_##N##_atomic_fetch_or(dest, v, pe);)                               \
        SHMI_DV_FN(N, void nvshmem_##N##_atomic_or(T *dest, T v, int pe),                          \
                   shmi_d_amo<T>("nvshmem_" #N "_atomic_or", dest, SHMI_D_OR, v, (T)0, pe);,       \
                   shmem_##N##_atomic_or(dest, v, pe);)                                            \
        SHMI_DV_FN(N, T nvshmem_##N##_atomic_fetch_xor(T *dest, T v, int pe),                      \
                   return shmi_d_amo<T>("nvshmem_" #N "_atomic_fetch_xor", dest, SHMI_D_XOR, v, (T)0, pe);, \
                   return shmem_##N##_atomic_fetch_xor(dest, v, pe);)                              \
        SHMI_DV_FN(N, void nvshmem_##N##_atomic_xor(T *dest, T v, int pe),                         \
                   shmi_d_amo<T>("nvshmem_" #N "_atomic_xor", dest, SHMI_D_XOR, v, (T)0, pe);,     \
                   shmem_##N##_atomic_xor(dest, v, pe);))
NVSHMEM_TYPE_TABLE(SHMI_DV_AMO)
#undef SHMI_DV_AMO

/* ---- Point-to-point synchronization ----------------------------------------------------------------- */
#define SHMI_DV_SYNC(N, T, A, B, S, G)                                                             \
    SHMI_WHEN_##S##_SYNC(                                                                          \
        SHMI_DV_FN(N, void nvshmem_##N##_wait_until(T *ivar, int cmp, T v),                        \
                   shmi_d_wait_until("nvshmem_" #N "_wait_until", ivar, cmp, v);,                 \
                   shmem_##N##_wait_until(ivar, nvshmemi_cmp(cmp), v);)                                          \
        SHMI_DV_FN(N, int nvshmem_##N##_test(T *ivar, int cmp, T v),                               \
                   return shmi_d_test("nvshmem_" #N "_test", ivar, cmp, v);,                      \
                   return shmem_##N##_test(ivar, nvshmemi_cmp(cmp), v);))
NVSHMEM_TYPE_TABLE(SHMI_DV_SYNC)
#undef SHMI_DV_SYNC

/* ---- Stream-ordered host calls that need a kernel ------------------------------------------------- */
static __global__ void shmi_k_barrier(int quiet) { shmi_d_barrier(quiet); }

/* One thread waits for every PE, in stream order; the host returns at once. */
static inline void nvshmemx_barrier_all_on_stream(cudaStream_t stream)
{
    shmi_k_barrier<<<1, 1, 0, stream>>>(1);
}
static inline void nvshmemx_sync_all_on_stream(cudaStream_t stream)
{
    shmi_k_barrier<<<1, 1, 0, stream>>>(0);
}

/* Multi-element waits, strided group forms, point-to-point on streams. */
#include "nvshmem_stream.cuh"
/* Collectives in kernels and on streams, nvshmemx_collective_launch. */
#include "nvshmem_coll_device.cuh"

#endif /* SYMHEAP_NVSHMEM_DEVICE_CUH */
