/* gpu_sync.cu - device synchronization with 1..N PEs on one GPU (issue 7):
 * AMOs under contention from every PE, device barriers (thread and block
 * forms, many rounds), put-with-signal ping-pong, wait_until, and the
 * stream-ordered barrier.  Kernels of different PEs must run at the same
 * time: symrun starts MPS when PEs share a GPU. */
#include "gpu_test.h"

enum { BLOCKS = 8, THREADS = 128, ITERS = 100, ROUNDS = 300 };

/* Every thread of every PE adds 1 to PE 0's counter and to its right
 * neighbour's, fetch_inc's a ticket on PE 0, and toggles a bit with xor. */
__global__ void k_amo(long long *ctr, unsigned long long *tickets_seen, unsigned int *bits,
                      int me, int npes)
{
    for (int i = 0; i < ITERS; i++) {
        nvshmem_longlong_atomic_add(&ctr[0], 1, 0);
        nvshmem_longlong_atomic_fetch_add(&ctr[1], 2, (me + 1) % npes);
        unsigned long long t = nvshmem_ulonglong_atomic_fetch_inc((unsigned long long *)&ctr[2], 0);
        atomicAdd(&tickets_seen[t % 1024], 1ULL); /* local histogram of tickets */
        nvshmem_uint_atomic_xor(bits, 1u << (threadIdx.x % 32), 0);
    }
}

/* A spin lock made of compare_swap on PE 0 protecting a non-atomic counter. */
__global__ void k_lock(int *lock, int *plain)
{
    if (threadIdx.x != 0) return;
    for (int i = 0; i < 20; i++) {
        while (nvshmem_int_atomic_compare_swap(lock, 0, 1, 0) != 0) {
        }
        int v = nvshmem_int_g(plain, 0);
        nvshmem_int_p(plain, v + 1, 0);
        nvshmem_quiet();
        nvshmem_int_atomic_set(lock, 0, 0);
    }
}

/* Barrier rounds: write my round number into my right neighbour, barrier,
 * check the left neighbour's arrived, barrier again (so nobody overwrites). */
__global__ void k_barrier(int *slot, int me, int npes, int *bad, int block_form)
{
    for (int r = 1; r <= ROUNDS; r++) {
        if (threadIdx.x == 0) nvshmem_int_p(slot, r * 1000 + me, (me + 1) % npes);
        if (block_form) nvshmemx_barrier_all_block();
        else if (threadIdx.x == 0) nvshmem_barrier_all();
        if (threadIdx.x == 0 && *(volatile int *)slot != r * 1000 + (me + npes - 1) % npes)
            atomicAdd(bad, 1);
        if (block_form) nvshmemx_barrier_all_block();
        else if (threadIdx.x == 0) nvshmem_barrier_all();
    }
}

/* Ping-pong between PE pairs (0,1), (2,3)...: data then signal, both ways. */
__global__ void k_pingpong(int *data, int *src, uint64_t *sig, int me, int peer, int n, int *bad)
{
    for (int r = 1; r <= 100; r++) {
        int first = me < peer;
        if (!first) {
            nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r);
            for (int i = threadIdx.x; i < n; i += blockDim.x)
                if (data[i] != r * 7 + i) atomicAdd(bad, 1);
            __syncthreads();
        }
        for (int i = threadIdx.x; i < n; i += blockDim.x) src[i] = r * 7 + i;
        nvshmemx_int_put_signal_block(data, src, n, sig, (uint64_t)r, NVSHMEM_SIGNAL_SET, peer);
        if (first) {
            nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r);
            for (int i = threadIdx.x; i < n; i += blockDim.x)
                if (data[i] != r * 7 + i) atomicAdd(bad, 1);
            __syncthreads();
        }
    }
}

__global__ void k_wait_int(int *flag, int want) { nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, want); }

static int read_bad(int *bad)
{
    int h;
    CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemset(bad, 0, sizeof h));
    return h;
}

int main(void)
{
    gpu_test_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    long long *ctr = (long long *)nvshmem_calloc(4, sizeof(long long));
    unsigned int *bits = (unsigned int *)nvshmem_calloc(1, sizeof(unsigned int));
    int *slot = (int *)nvshmem_calloc(4, sizeof(int));
    int *bad;
    unsigned long long *seen;
    CK(cudaMalloc(&bad, sizeof *bad));
    CK(cudaMemset(bad, 0, sizeof *bad));
    CK(cudaMalloc(&seen, 1024 * sizeof *seen));
    CK(cudaMemset(seen, 0, 1024 * sizeof *seen));

    /* AMOs under contention: every thread of every PE at once. */
    nvshmem_barrier_all();
    k_amo<<<BLOCKS, THREADS>>>(ctr, seen, bits, me, n);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    long long total = (long long)n * BLOCKS * THREADS * ITERS, mine[4];
    CK(cudaMemcpy(mine, ctr, sizeof mine, cudaMemcpyDeviceToHost));
    if (me == 0) {
        EXPECT(mine[0] == total, "atomic_add: counter %lld, expected %lld", mine[0], total);
        EXPECT(mine[2] == total, "fetch_inc: counter %lld, expected %lld", mine[2], total);
        unsigned int b;
        CK(cudaMemcpy(&b, bits, sizeof b, cudaMemcpyDeviceToHost));
        /* each bit toggled n*BLOCKS*THREADS/32*ITERS times: an even number */
        EXPECT(b == 0, "atomic_xor: bits %#x, expected 0", b);
    }
    EXPECT(mine[1] == 2 * (long long)BLOCKS * THREADS * ITERS, "fetch_add from my left: %lld",
           mine[1]);

    /* compare_swap lock around a plain read-modify-write. */
    int *lock = slot, *plain = slot + 1;
    nvshmem_barrier_all();
    k_lock<<<1, 32>>>(lock, plain);
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    if (me == 0) {
        int v;
        CK(cudaMemcpy(&v, plain, sizeof v, cudaMemcpyDeviceToHost));
        EXPECT(v == 20 * n, "cswap lock: counter %d, expected %d", v, 20 * n);
    }

    /* Device barriers: one thread, then the block form. */
    for (int form = 0; form < 2; form++) {
        nvshmem_barrier_all();
        k_barrier<<<1, form ? 128 : 1>>>(slot + 2, me, n, bad, form);
        CK(cudaDeviceSynchronize());
        int b = read_bad(bad);
        EXPECT(b == 0, "device barrier (%s form): %d of %d rounds saw stale data",
               form ? "block" : "thread", b, ROUNDS);
    }

    /* put-with-signal ping-pong between pairs. */
    if (n > 1) {
        int peer = me ^ 1, cnt = 4096;
        int *data = (int *)nvshmem_malloc(cnt * sizeof(int)), *src;
        uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
        CK(cudaMalloc(&src, cnt * sizeof(int)));
        nvshmem_barrier_all();
        if (peer < n) {
            k_pingpong<<<1, 256>>>(data, src, sig, me, peer, cnt, bad);
            CK(cudaDeviceSynchronize());
        }
        int b = read_bad(bad);
        EXPECT(b == 0, "put_signal ping-pong: %d wrong ints", b);
        nvshmem_barrier_all();
        nvshmem_free(sig);
        nvshmem_free(data);
        CK(cudaFree(src));
    }

    /* wait_until on the device, released by a host put from the left PE,
     * and the stream-ordered barrier. */
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    int *flag = slot + 3;
    k_wait_int<<<1, 1, 0, st>>>(flag, 77 + (me + n - 1) % n);
    nvshmem_barrier_all();
    nvshmem_int_p(flag, 77 + me, (me + 1) % n);
    nvshmemx_barrier_all_on_stream(st);
    CK(cudaStreamSynchronize(st));

    nvshmem_barrier_all();
    nvshmem_free(slot);
    nvshmem_free(bits);
    nvshmem_free(ctr);
    if (me == 0) printf("gpu_sync: %d PEs ok\n", n);
    nvshmem_finalize();
    return 0;
}
