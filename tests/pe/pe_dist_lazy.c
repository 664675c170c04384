/* pe_dist_lazy.c - lazy initialization (issue 4, strategy 4):
 *   - a block is filled on first touch by a load or a store through the
 *     pointer, exactly once, and untouched blocks cost no memory (mincore);
 *   - a peer's plain get / put / atomic of a block its owner never touched
 *     sees initialized data (fill-on-owner by the toucher);
 *   - shmemx_lazy_get computes never-filled blocks without committing them
 *     on the owner (fill-on-read);
 *   - threads of every PE touching the same blocks at once: one fill each;
 *   - a lazy distributed array (cyclic), odd element sizes, value fills;
 *   - freed lazy memory is ordinary heap memory again;
 *   - a SIGSEGV handler installed before the first lazy array still gets
 *     the faults that are not lazy ones (chaining). */
#include "pe_dist.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int me, np;
static size_t page;

/* Async-signal-safe fill: arithmetic only. */
static uint64_t f(size_t i, int pe) { return (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)pe << 56; }
static void fill_u64(void *out, size_t i, int pe, void *ctx)
{
    (void)ctx;
    *(uint64_t *)out = f(i, pe);
}

/* Pages of [p, p + n) present in memory (the memfd's page cache). */
static size_t resident(const void *p, size_t n)
{
    size_t pages = (n + page - 1) / page, r = 0;
    unsigned char *v = malloc(pages);
    CHECK(mincore((void *)p, n, v) == 0);
    for (size_t i = 0; i < pages; i++) r += v[i] & 1;
    free(v);
    return r;
}

static shmemx_lazy_info_t info(const void *p)
{
    shmemx_lazy_info_t in;
    CHECK(shmemx_lazy_info(p, &in) == 0);
    return in;
}

#define PER (page / 8) /* u64 per block (one page) */

static void touch_local(void)
{
    size_t nb = 16, n = nb * PER - 5; /* last block partial */
    uint64_t *a = shmemx_lazy_alloc(n, 8, 0, SHMEMX_FILL_ELEM(fill_u64, NULL));
    CHECK(a && (uintptr_t)a % page == 0);
    shmemx_lazy_info_t in = info(a);
    CHECK(in.blocks == nb && in.block_bytes == page && in.ready == 0);
    CHECKF(resident(a, nb * page) == 0, "%zu pages resident before any touch", resident(a, nb * page));
    CHECK(a[3 * PER + 7] == f(3 * PER + 7, me));             /* load */
    a[5 * PER + 1] = 42;                                     /* store */
    CHECK(a[5 * PER + 1] == 42 && a[5 * PER] == f(5 * PER, me) && a[6 * PER - 1] == f(6 * PER - 1, me));
    CHECK(a[n - 1] == f(n - 1, me));                         /* partial block */
    in = info(a);
    CHECKF(in.ready == 3 && in.fills == 3, "ready %zu fills %llu", in.ready, (unsigned long long)in.fills);
    CHECKF(resident(a, nb * page) == 3, "%zu pages resident, 3 touched", resident(a, nb * page));
    for (size_t i = 0; i < n; i++) CHECK(a[i] == (i == 5 * PER + 1 ? 42 : f(i, me)));
    CHECK(info(a).ready == nb);
    shmemx_lazy_free(a);
}

/* Block b of PE owner is touched only by PE (owner + 1) % np, with each
 * kind of access; the owner then checks it sees the same data. */
static void touch_remote(void)
{
    size_t nb = 8, n = nb * PER;
    uint64_t *a = shmemx_lazy_alloc(n, 8, 0, SHMEMX_FILL_ELEM(fill_u64, NULL));
    int owner = (me + np - 1) % np; /* the PE whose copy I touch */
    uint64_t buf[4];
    /* block 0: plain get (fill-on-owner, by me) */
    shmem_getmem(buf, &a[10], sizeof buf, owner);
    for (int k = 0; k < 4; k++) CHECK(buf[k] == f(10 + k, owner));
    /* block 1: plain put of one element */
    shmem_uint64_p(&a[PER + 3], 77, owner);
    /* block 2: atomic */
    CHECK(shmem_uint64_atomic_fetch_add(&a[2 * PER + 1], 1, owner) == f(2 * PER + 1, owner));
    /* block 3: fill-on-read, nothing committed on the owner */
    shmemx_lazy_get(buf, &a[3 * PER + 2], sizeof buf, owner);
    for (int k = 0; k < 4; k++) CHECK(buf[k] == f(3 * PER + 2 + k, owner));
    /* block 4: shmemx_lazy_touch, then a load through shmem_ptr */
    shmemx_lazy_touch(&a[4 * PER], 8, owner);
    uint64_t *peer = shmem_ptr(a, owner);
    CHECK(peer && peer[4 * PER + 9] == f(4 * PER + 9, owner));
    /* block 5: a load through shmem_ptr without touch */
    CHECK(peer[5 * PER + 2] == f(5 * PER + 2, owner));
    /* unaligned fill-on-read across two blocks (6, 7) */
    char bytes[19], want[19];
    shmemx_lazy_get(bytes, (char *)&a[7 * PER] - 7, sizeof bytes, owner);
    for (int k = 0; k < 19; k++) {
        size_t off = 7 * PER * 8 - 7 + (size_t)k;
        uint64_t v = f(off / 8, owner);
        want[k] = ((char *)&v)[off % 8];
    }
    CHECK(memcmp(bytes, want, sizeof bytes) == 0);
    shmem_barrier_all();
    shmemx_lazy_info_t in = info(a);
    if (np > 1) { /* blocks 0, 1, 2, 4, 5 of my copy were filled by my right neighbour */
        CHECKF(in.ready == 5, "ready %zu, want 5 (block 3 and 6, 7 fill-on-read)", in.ready);
        CHECKF(resident(a, n * 8) == 5, "%zu pages resident", resident(a, n * 8));
        CHECK(in.computed_reads >= 3);
    }
    CHECK(a[PER + 3] == 77 && a[PER + 2] == f(PER + 2, me));
    CHECK(a[2 * PER + 1] == f(2 * PER + 1, me) + 1);
    CHECK(a[3 * PER + 2] == f(3 * PER + 2, me));
    shmem_barrier_all();
    shmemx_lazy_free(a);
}

/* Every thread of every PE touches every block of PE 0's copy and of its own
 * in a different order: each block is filled exactly once. */
#define THREADS 4
static uint64_t *shared_arr;
static size_t shared_n;
static void *worker(void *arg)
{
    int t = (int)(long)arg;
    size_t nb = shared_n / PER;
    uint64_t *peer0 = shmem_ptr(shared_arr, 0);
    for (size_t k = 0; k < nb; k++) {
        size_t b = (k * 7 + (size_t)t * 3 + (size_t)me * 5) % nb, i = b * PER + (size_t)t;
        CHECK(shared_arr[i] == f(i, me));
        CHECK(peer0[i + 1] == f(i + 1, 0));
    }
    return NULL;
}

static long count_fills;
static void counting_fill(void *out, size_t first, size_t count, int pe, void *ctx)
{
    (void)ctx;
    __atomic_fetch_add(&count_fills, 1, __ATOMIC_RELAXED);
    for (size_t k = 0; k < count; k++) ((uint64_t *)out)[k] = f(first + k, pe);
}

static void threads(void)
{
    shared_n = 64 * PER;
    count_fills = 0;
    shared_arr = shmemx_lazy_alloc(shared_n, 8, 0, SHMEMX_FILL_RANGE(counting_fill, NULL));
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    long total = pe_dist_sum(count_fills);
    /* Every PE's own copy (64 blocks) plus PE 0's, which everyone touched. */
    long want = 64L * np;
    CHECKF(total == want, "%ld fills, want %ld (one per block)", total, want);
    CHECK(info(shared_arr).ready == 64);
    shmemx_lazy_free(shared_arr);
}

/* A lazy distributed array: element g on its owner is fill(g, owner). */
static void lazy_dist(void)
{
    size_t sizes[16];
    int ns = pe_dist_sizes(sizes);
    for (int s = 0; s < ns; s++) {
        size_t n = sizes[s] * 3;
        for (int k = 0; k < PE_DIST_NLAYOUTS; k++) {
            const char *name;
            shmemx_dist_t d = shmemx_dist_create_lazy(n, 8, pe_dist_layout(k, &name), 0,
                                                      SHMEMX_FILL_ELEM(fill_u64, NULL));
            uint64_t *all = malloc((n + 1) * 8), *part = shmemx_dist_local(d);
            shmemx_dist_get(d, all, 0, n); /* fill-on-read: nothing committed */
            for (size_t g = 0; g < n; g++) CHECKF(all[g] == f(g, shmemx_dist_owner(d, g, NULL)), "%s get %zu", name, g);
            if (n) CHECKF(info(part).ready == 0, "%s: dist_get committed %zu blocks", name, info(part).ready);
            for (size_t l = 0; l < shmemx_dist_local_count(d, me); l++)
                CHECK(part[l] == f(shmemx_dist_global_index(d, me, l), me));
            shmem_barrier_all();
            if (me == 0 && n) { /* a put through the layout lands in lazy parts */
                uint64_t v = 5;
                shmemx_dist_put(d, n - 1, &v, 1);
            }
            shmem_barrier_all();
            shmemx_dist_get(d, all, 0, n);
            for (size_t g = 0; g < n; g++)
                CHECK(all[g] == (g == n - 1 ? 5 : f(g, shmemx_dist_owner(d, g, NULL))));
            free(all);
            shmemx_dist_destroy(d);
        }
    }
}

struct rec24 { uint64_t a, b, c; };
static void rec_fill(void *out, size_t i, int pe, void *ctx)
{
    (void)ctx;
    *(struct rec24 *)out = (struct rec24){ i, (uint64_t)pe, i * 3 };
}

static void odd_sizes(void)
{
    /* 24-byte elements: a block must hold whole pages and whole elements. */
    size_t n = 1000;
    struct rec24 *r = shmemx_lazy_alloc(n, sizeof *r, 100, SHMEMX_FILL_ELEM(rec_fill, NULL));
    CHECK(info(r).block_bytes % page == 0 && info(r).block_bytes % 24 == 0);
    for (size_t i = n; i-- > 0;) CHECK(r[i].a == i && r[i].b == (uint64_t)me && r[i].c == 3 * i);
    struct rec24 got;
    shmemx_lazy_get(&got, &r[n / 2], sizeof got, (me + 1) % np);
    CHECK(got.a == n / 2 && got.b == (uint64_t)((me + 1) % np));
    shmem_barrier_all();
    shmemx_lazy_free(r);
    /* Value fill (non-uniform bytes), 3-byte elements, 3-page blocks. */
    unsigned char v[3] = { 1, 2, 3 };
    unsigned char *b = shmemx_lazy_alloc(100000, 3, 3 * page, SHMEMX_FILL_VALUE(v));
    CHECK(info(b).block_bytes == 3 * page);
    for (size_t i = 0; i < 100000 * 3; i += 4099) CHECK(b[i] == v[i % 3]);
    shmemx_lazy_free(b);
    CHECK(shmemx_lazy_alloc(0, 8, 0, SHMEMX_FILL_ZERO) == NULL);
    long *z = shmemx_lazy_alloc(10, 8, 0, SHMEMX_FILL_ZERO);
    for (int i = 0; i < 10; i++) CHECK(z[i] == 0);
    shmemx_lazy_free(z);
}

/* After free the memory is ordinary heap memory (no protection left). */
static void reuse(void)
{
    size_t n = 32 * PER;
    void *a = shmemx_lazy_alloc(n, 8, 0, SHMEMX_FILL_ELEM(fill_u64, NULL));
    shmemx_lazy_free(a);
    uint64_t *m = shmem_malloc(n * 8);
    for (size_t i = 0; i < n; i++) m[i] = i; /* would fault if still protected */
    shmem_barrier_all();
    uint64_t x;
    shmem_getmem(&x, &m[n - 1], 8, (me + 1) % np);
    CHECK(x == n - 1);
    shmem_barrier_all();
    shmem_free(m);
}

/* A handler the program installed first still gets the faults that are not
 * lazy ones. */
static sigjmp_buf jb;
static volatile sig_atomic_t user_faults;
static void user_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    user_faults++;
    siglongjmp(jb, 1);
}

static void chaining(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = user_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &old);
    /* Our handler is already installed (earlier lazy arrays): install the
     * user's on top of it, as a program would, then create another one. */
    uint64_t *a = shmemx_lazy_alloc(4 * PER, 8, 0, SHMEMX_FILL_ELEM(fill_u64, NULL));
    (void)a;
    sigaction(SIGSEGV, &old, NULL);
    char *guard = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sigsetjmp(jb, 1) == 0) {
        CHECK(a[PER + 1] == f(PER + 1, me)); /* lazy: not the user's */
        CHECK(user_faults == 0);
        guard[5] = 1;                        /* a real fault: goes to the user's */
        CHECK(0);
    }
    CHECK(user_faults == 1);
    munmap(guard, page);
    shmemx_lazy_free(a);
}

int main(void)
{
    /* The user's handler first, as a program with its own crash handler
     * would have it: lazy arrays must chain to it. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = user_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    page = (size_t)sysconf(_SC_PAGESIZE);
    touch_local();
    touch_remote();
    threads();
    lazy_dist();
    odd_sizes();
    reuse();
    /* Our handler was installed on top of the user's: a real fault still
     * reaches the user's handler. */
    char *guard = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sigsetjmp(jb, 1) == 0) {
        guard[1] = 1;
        CHECK(0);
    }
    CHECK(user_faults == 1);
    munmap(guard, page);
    user_faults = 0;
    chaining();
    shmem_barrier_all();
    if (me == 0) printf("pe_dist_lazy: first-touch, remote, fill-on-read, threads, layouts, chaining ok with %d PEs\n", np);
    shmem_finalize();
    return 0;
}
