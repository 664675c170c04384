/* gpu_p2p_stream.cu - NVSHMEM's point-to-point forms added in issue 14 (the
 * nvshmem_stream.cuh families), 1..N PEs on the GPU heap:
 *   kernels: iput/iget by warp and block, put_signal_nbi by block, then
 *            wait_until_all/any/some and test_all/any/some (scalar and
 *            _vector) on flags the neighbours set;
 *   streams: p_on_stream and g_on_stream, iput/iget_on_stream,
 *            put_signal_on_stream with signal_wait_until_on_stream on the
 *            receiving PE's stream, signal_op_on_stream, and
 *            wait_until_all_on_stream; each PE checks what arrived. */
#include "gpu_test.h"

#define N 64

__global__ void k_strided(int *dst, const int *src, int me, int np)
{
    int right = (me + 1) % np;
    /* block: every other element of src into every element of dst[0..N/2) on the right */
    nvshmemx_int_iput_block(dst, src, 1, 2, N / 2, right);
    /* warp: fetch the left PE's src[1], src[3] ... into dst[N/2 ..) here (after a barrier) */
}
__global__ void k_iget_warp(int *dst, const int *src, int me, int np)
{
    int left = (me + np - 1) % np;
    if (threadIdx.x < 32) nvshmemx_int_iget_warp(dst + N / 2, src + 1, 1, 2, N / 2, left);
}
__global__ void k_signal_block(int *dst, const int *src, uint64_t *sig, int me, int np)
{
    nvshmemx_int_put_signal_nbi_block(dst, src, N, sig, (uint64_t)me + 1, NVSHMEM_SIGNAL_SET,
                                      (me + 1) % np);
}
/* flags[p] = 1 from every PE p; wait for all, any, some; test forms agree */
__global__ void k_flags(int *flags, int *out, int me, int np)
{
    for (int p = 0; p < np; p++) nvshmem_int_p(&flags[me], 1, p);
    nvshmem_int_wait_until_all(flags, np, NULL, NVSHMEM_CMP_EQ, 1);
    size_t idx[64];
    out[0] = nvshmem_int_test_all(flags, np, NULL, NVSHMEM_CMP_EQ, 1);
    out[1] = (int)nvshmem_int_wait_until_any(flags, np, NULL, NVSHMEM_CMP_EQ, 1) < np;
    out[2] = (int)nvshmem_int_wait_until_some(flags, np, idx, NULL, NVSHMEM_CMP_EQ, 1);
    out[3] = (int)nvshmem_int_test_some(flags, np, idx, NULL, NVSHMEM_CMP_NE, 1); /* 0 */
    int want[64];
    for (int p = 0; p < np; p++) want[p] = 1;
    out[4] = nvshmem_int_test_all_vector(flags, np, NULL, NVSHMEM_CMP_EQ, want);
    int status[64] = { 0 };
    status[0] = 1; /* excluded: any must not return 0 */
    out[5] = np == 1 ? 1 : (int)nvshmem_int_test_any(flags, np, status, NVSHMEM_CMP_EQ, 1) == 1;
}

static void host_check_ints(const int *dev, size_t n, int (*want)(size_t, int, int), int me,
                            int np, const char *what)
{
    int h[N];
    CK(cudaMemcpy(h, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        EXPECT(h[i] == want(i, me, np), "%s[%zu] = %d, want %d", what, i, h[i], want(i, me, np));
}
static int src_of(int pe, size_t i) { return pe * 1000 + (int)i; }
static int want_strided(size_t i, int me, int np)
{ /* [0, N/2): left's src[2i] put by left; [N/2, N): left's src[2(i-N/2)+1] fetched here */
    int left = (me + np - 1) % np;
    return i < N / 2 ? src_of(left, 2 * i) : src_of(left, 2 * (i - N / 2) + 1);
}
static int want_left(size_t i, int me, int np) { return src_of((me + np - 1) % np, i); }

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), np = nvshmem_n_pes();
    EXPECT(np <= 64, "at most 64 PEs");
    int *src = (int *)nvshmem_malloc(N * sizeof(int));
    int *dst = (int *)nvshmem_calloc(N, sizeof(int));
    int *dst2 = (int *)nvshmem_calloc(N, sizeof(int));
    int *flags = (int *)nvshmem_calloc(64, sizeof(int));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(2, sizeof(uint64_t));
    int *out;
    CK(cudaMalloc(&out, 8 * sizeof(int)));
    int h[N];
    for (int i = 0; i < N; i++) h[i] = src_of(me, i);
    CK(cudaMemcpy(src, h, sizeof h, cudaMemcpyHostToDevice));
    nvshmem_barrier_all();

    /* kernels: strided by groups, put-with-signal by a block, multi-element waits */
    k_strided<<<1, 128>>>(dst, src, me, np);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    k_iget_warp<<<1, 64>>>(dst, src, me, np);
    k_signal_block<<<1, 128>>>(dst2, src, sig, me, np);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    host_check_ints(dst, N, want_strided, me, np, "iput_block/iget_warp");
    host_check_ints(dst2, N, want_left, me, np, "put_signal_nbi_block");
    uint64_t s;
    CK(cudaMemcpy(&s, sig, sizeof s, cudaMemcpyDeviceToHost));
    EXPECT(s == (uint64_t)((me + np - 1) % np) + 1, "signal %llu", (unsigned long long)s);
    k_flags<<<1, 1>>>(flags, out, me, np);
    CK(cudaDeviceSynchronize());
    int o[6];
    CK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    EXPECT(o[0] == 1 && o[1] == 1 && o[2] == np && o[3] == 0 && o[4] == 1 && o[5] == 1,
           "multi-element waits: %d %d %d %d %d %d", o[0], o[1], o[2], o[3], o[4], o[5]);
    nvshmem_barrier_all();

    /* streams */
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaMemset(dst, 0, N * sizeof(int)));
    CK(cudaMemset(sig, 0, 2 * sizeof(uint64_t)));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    nvshmemx_int_p_on_stream(&flags[me], 7000 + me, right, st);
    nvshmemx_int_iput_on_stream(dst, src, 1, 2, N / 2, right, st);
    nvshmemx_int_iget_on_stream(dst + N / 2, src + 1, 1, 2, N / 2, left, st);
    nvshmemx_int_put_signal_on_stream(dst2, src, N, &sig[0], 5, NVSHMEM_SIGNAL_SET, right, st);
    nvshmemx_signal_op_on_stream(&sig[1], 2, NVSHMEM_SIGNAL_ADD, right, st);
    nvshmemx_signal_wait_until_on_stream(&sig[0], NVSHMEM_CMP_EQ, 5, st);
    nvshmemx_uint64_wait_until_all_on_stream(&sig[1], 1, NULL, NVSHMEM_CMP_EQ, 2, st);
    CK(cudaStreamSynchronize(st));
    nvshmem_barrier_all();
    host_check_ints(dst, N, want_strided, me, np, "iput/iget_on_stream");
    host_check_ints(dst2, N, want_left, me, np, "put_signal_on_stream");
    int f = nvshmemx_int_g_on_stream(&flags[me], right, st);
    EXPECT(f == 7000 + me, "g_on_stream of what p_on_stream put: %d", f);
    CK(cudaStreamDestroy(st));

    CK(cudaFree(out));
    nvshmem_free(sig);
    nvshmem_free(flags);
    nvshmem_free(dst2);
    nvshmem_free(dst);
    nvshmem_free(src);
    if (me == 0) printf("gpu_p2p_stream: %d PEs ok\n", np);
    nvshmem_finalize();
    return 0;
}
