/* gpu_fp16.cu - NVSHMEM's half and bfloat16 device forms (issue 14), 1..N PEs
 * on one GPU: put/get at thread, warp and block level, p and g, one
 * reduction in each form (sum by a thread, min by a warp, prod by a block)
 * with values whose rounding after every step is known (1 plus half an ulp,
 * n-1 times, stays 1; products of 1 + ulp grow one ulp a PE), and
 * nvshmemx_barrier_warpgroup in the first, a second and a partial
 * warpgroup of a block.  Bits are compared, never approximate values. */
#include "gpu_test.h"

#include <string.h>

enum { NE = 1000, THREADS = 256 };

static uint16_t bits16(const void *p)
{
    uint16_t b;
    memcpy(&b, p, 2);
    return b;
}

/* mode: 0 thread put, 1 warp put, 2 block put, 3 p, 4 thread get, 5 warp get,
 * 6 block get, 7 g; every thread of the block calls. */
#define FP16_KERNELS(N, T, B, O, G)                                                       \
    __global__ void k_##N##_fill(T *buf, int base)                                        \
    {                                                                                     \
        for (int i = threadIdx.x; i < NE; i += blockDim.x)                                \
            buf[i] = __float2##N##_rn_((float)(base + i % 200));                          \
    }                                                                                     \
    __global__ void k_##N##_xfer(T *dst, T *src, int pe, int mode)                        \
    {                                                                                     \
        const int t = threadIdx.x;                                                        \
        switch (mode) {                                                                   \
        case 0: if (t == 0) nvshmem_##N##_put(dst, src, NE, pe); break;                   \
        case 1: if (t < 32) nvshmemx_##N##_put_warp(dst, src, NE, pe); break;             \
        case 2: nvshmemx_##N##_put_block(dst, src, NE, pe); break;                        \
        case 3: for (int i = t; i < NE; i += blockDim.x) nvshmem_##N##_p(dst + i, src[i], pe); break; \
        case 4: if (t == 0) nvshmem_##N##_get(dst, src, NE, pe); break;                   \
        case 5: if (t < 32) nvshmemx_##N##_get_warp(dst, src, NE, pe); break;             \
        case 6: nvshmemx_##N##_get_block(dst, src, NE, pe); break;                        \
        case 7: for (int i = t; i < NE; i += blockDim.x) dst[i] = nvshmem_##N##_g(src + i, pe); break; \
        }                                                                                 \
    }                                                                                     \
    /* element 0: 1 on PE 0, half an ulp elsewhere; 1: 1 + ulp; the rest: me + 1 */      \
    __global__ void k_##N##_reduce(T *dst, T *src, float half_ulp, T one_ulp)             \
    {                                                                                     \
        const int me = nvshmem_my_pe(), t = threadIdx.x;                                  \
        for (int i = t; i < NE; i += blockDim.x)                                          \
            src[i] = i == 0 ? __float2##N##_rn_(me == 0 ? 1.0f : half_ulp)                \
                     : i == 1 ? one_ulp : __float2##N##_rn_((float)(me + 1));             \
        __syncthreads();                                                                  \
        if (t == 0) nvshmem_##N##_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, NE);           \
        __syncthreads();                                                                  \
        if (t < 32) nvshmemx_##N##_min_reduce_warp(NVSHMEM_TEAM_WORLD, dst + NE, src, NE); \
        __syncthreads();                                                                  \
        nvshmemx_##N##_prod_reduce_block(NVSHMEM_TEAM_WORLD, dst + 2 * NE, src, NE);      \
    }
#define __float2half_rn_ __float2half_rn
#define __float2bfloat16_rn_ __float2bfloat16_rn
SHMEMX_FP16_REDUCE_ROWS(FP16_KERNELS)

/* Warpgroup wg (threads 128 wg ...) of a block of nthreads: its first thread
 * stores round r into the next PE's slot[wg], then the warpgroup's barrier,
 * then every thread of it reads the previous PE's store in its own slot. */
__global__ void k_warpgroup(int *slot, int wg, int *bad)
{
    const int me = nvshmem_my_pe(), np = nvshmem_n_pes(), t = threadIdx.x;
    if (t / 128 != wg) return;
    for (int r = 1; r <= 20; r++) {
        if (t % 128 == 0) nvshmem_int_p(&slot[wg], r * 1000 + me, (me + 1) % np);
        nvshmemx_barrier_warpgroup(NVSHMEM_TEAM_WORLD);
        if (*(volatile int *)&slot[wg] != r * 1000 + (me + np - 1) % np) atomicAdd(bad, 1);
        nvshmemx_barrier_warpgroup(NVSHMEM_TEAM_WORLD); /* nobody stores round r + 1 early */
    }
}

#define FP16_HOST(N, T, B, O, G)                                                          \
    static void test_##N(float half_ulp, uint16_t one_ulp_bits)                          \
    {                                                                                     \
        const int me = nvshmem_my_pe(), np = nvshmem_n_pes();                             \
        const int right = (me + 1) % np, left = (me + np - 1) % np;                       \
        T *dst = (T *)nvshmem_malloc(3 * NE * sizeof(T));                                 \
        T *src = (T *)nvshmem_malloc(NE * sizeof(T));                                     \
        EXPECT(dst && src, "nvshmem_malloc failed");                                      \
        static T h[3 * NE];                                                               \
        static const char *const modes[] = { "put", "put_warp", "put_block", "p",         \
                                             "get", "get_warp", "get_block", "g" };       \
        for (int mode = 0; mode < 8; mode++) {                                            \
            k_##N##_fill<<<1, THREADS>>>(src, me * 10);                                   \
            k_##N##_fill<<<1, THREADS>>>(dst, -1);                                        \
            CK(cudaDeviceSynchronize());                                                  \
            nvshmem_barrier_all();                                                        \
            /* puts go to the right, gets come from the left: dst holds left's src */     \
            k_##N##_xfer<<<1, THREADS>>>(dst, src, mode < 4 ? right : left, mode);        \
            CK(cudaDeviceSynchronize());                                                  \
            nvshmem_barrier_all();                                                        \
            CK(cudaMemcpy(h, dst, NE * sizeof(T), cudaMemcpyDeviceToHost));              \
            for (int i = 0; i < NE; i++) {                                                \
                uint16_t want = shmemx_float_to_##N##_bits((float)(left * 10 + i % 200)); \
                EXPECT(bits16(&h[i]) == want, #N " %s: element %d: bits 0x%04x, want 0x%04x", \
                       modes[mode], i, bits16(&h[i]), want);                              \
            }                                                                             \
        }                                                                                 \
        nvshmem_barrier_all();                                                            \
        T one_ulp;                                                                        \
        memcpy((void *)&one_ulp, &one_ulp_bits, 2);                                       \
        k_##N##_reduce<<<1, THREADS>>>(dst, src, half_ulp, one_ulp);                      \
        CK(cudaDeviceSynchronize());                                                      \
        CK(cudaMemcpy(h, dst, 3 * NE * sizeof(T), cudaMemcpyDeviceToHost));              \
        uint16_t one = shmemx_float_to_##N##_bits(1.0f);                                  \
        EXPECT(bits16(&h[0]) == one, #N " sum: element 0: 0x%04x, want 0x%04x (rounded at " \
               "every step)", bits16(&h[0]), one);                                        \
        float fact = 1;                                                                   \
        for (int p = 1; p <= np; p++) fact *= (float)p;                                   \
        for (int i = 2; i < NE; i++) {                                                    \
            EXPECT(bits16(&h[i]) == shmemx_float_to_##N##_bits((float)(np * (np + 1) / 2)), \
                   #N " sum: element %d: 0x%04x", i, bits16(&h[i]));                      \
            EXPECT(bits16(&h[NE + i]) == one, #N " min_warp: element %d: 0x%04x", i,       \
                   bits16(&h[NE + i]));                                                   \
            EXPECT(bits16(&h[2 * NE + i]) == shmemx_float_to_##N##_bits(fact),            \
                   #N " prod_block: element %d: 0x%04x", i, bits16(&h[2 * NE + i]));       \
        }                                                                                 \
        uint16_t want_min0 = np > 1 ? shmemx_float_to_##N##_bits(half_ulp) : one;         \
        EXPECT(bits16(&h[NE]) == want_min0, #N " min_warp: element 0: 0x%04x", bits16(&h[NE])); \
        EXPECT(bits16(&h[2 * NE + 1]) == (uint16_t)(one + np),                            \
               #N " prod_block: element 1: 0x%04x, want 0x%04x", bits16(&h[2 * NE + 1]),  \
               (unsigned)(one + np));                                                     \
        nvshmem_barrier_all();                                                            \
        nvshmem_free(src);                                                                \
        nvshmem_free(dst);                                                                \
    }
SHMEMX_FP16_REDUCE_ROWS(FP16_HOST)

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    test_half(0x1p-11f, 0x3c01);
    test_bfloat16(0x1p-8f, 0x3f81);

    int *slot = (int *)nvshmem_calloc(8, sizeof(int)), *bad;
    EXPECT(slot, "nvshmem_calloc failed");
    CK(cudaMalloc(&bad, sizeof *bad));
    CK(cudaMemset(bad, 0, sizeof *bad));
    /* warpgroup 0 of 128 threads, warpgroup 1 of 256, the partial warpgroup 1 of 160 */
    const int blocks[][2] = { { 128, 0 }, { 256, 1 }, { 160, 1 } };
    for (const auto &b : blocks) {
        nvshmem_barrier_all();
        k_warpgroup<<<1, b[0]>>>(slot, b[1], bad);
        CK(cudaDeviceSynchronize());
        int hb;
        CK(cudaMemcpy(&hb, bad, sizeof hb, cudaMemcpyDeviceToHost));
        EXPECT(hb == 0, "nvshmemx_barrier_warpgroup, warpgroup %d of a block of %d: %d stale "
               "reads", b[1], b[0], hb);
    }
    CK(cudaFree(bad));
    nvshmem_free(slot);
    nvshmem_finalize();
    if (me == 0) printf("gpu_fp16: %d PEs: half and bfloat16 device forms, warpgroup barrier OK\n", np);
    return 0;
}
