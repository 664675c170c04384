/* pe_dist_init.c - initialization strategies 1-3 (issue 4): local (element
 * function, range function, constant, zero), root + broadcast (only the root
 * runs the function), distributed under every layout with and without the
 * all-gather; for N = 0, N < npes, N % npes != 0 and larger N. */
#include "pe_dist.h"

#include <string.h>

static int me, np;
static long calls; /* fill calls on this PE */

struct rec { int a; short b; char c[6]; }; /* 12 bytes, not a uniform pattern */

static long f(size_t g, int pe) { return (long)g * 1000 + pe * 7 + 3; }
static void elem_fn(void *out, size_t g, int pe, void *ctx)
{
    *(long *)out = f(g, pe) + (ctx ? *(long *)ctx : 0);
    calls++;
}
static void range_fn(void *out, size_t first, size_t count, int pe, void *ctx)
{
    (void)ctx;
    for (size_t k = 0; k < count; k++) ((long *)out)[k] = f(first + k, pe);
    calls++;
}

static void check_copy(const long *p, size_t n, int pe, long add, const char *what)
{
    for (size_t i = 0; i < n; i++) CHECKF(p[i] == f(i, pe) + add, "%s: [%zu] = %ld", what, i, p[i]);
}

static void local_strategy(size_t n)
{
    long *a = shmem_malloc(n * sizeof *a + 1); /* +1: a pointer even for n == 0 */
    long *peer = malloc((n + 1) * sizeof *peer), add = 11;
    int right = (me + 1) % np;
    shmemx_init_local(a, n, sizeof *a, SHMEMX_FILL_ELEM(elem_fn, &add));
    check_copy(a, n, me, add, "local elem");
    shmem_getmem(peer, a, n * sizeof *a, right); /* ready on return: the barrier */
    check_copy(peer, n, right, add, "local elem, peer");
    shmem_barrier_all();
    shmemx_init_local(a, n, sizeof *a, SHMEMX_FILL_RANGE(range_fn, NULL));
    check_copy(a, n, me, 0, "local range");
    shmem_barrier_all();
    struct rec v = { 0x12345678, -2, "abcde" }, *r = (struct rec *)a;
    size_t nr = n * sizeof(long) / sizeof v;
    shmemx_init_local(a, nr, sizeof v, SHMEMX_FILL_VALUE(&v));
    for (size_t i = 0; i < nr; i++) CHECK(memcmp(&r[i], &v, sizeof v) == 0);
    shmem_barrier_all();
    long seven = 0x0707070707070707L; /* uniform bytes: the memset path */
    shmemx_init_local(a, n, sizeof *a, SHMEMX_FILL_VALUE(&seven));
    for (size_t i = 0; i < n; i++) CHECK(a[i] == seven);
    shmem_barrier_all();
    shmemx_init_local(a, n, sizeof *a, SHMEMX_FILL_ZERO);
    for (size_t i = 0; i < n; i++) CHECK(a[i] == 0);
    free(peer);
    shmem_free(a);
}

static void root_strategy(size_t n, int root)
{
    long *a = shmem_calloc(n + 1, sizeof *a);
    long before = calls;
    shmemx_init_root(a, n, sizeof *a, SHMEMX_FILL_ELEM(elem_fn, NULL), root);
    if (me != root) CHECKF(calls == before, "PE %d ran the fill function (root %d)", me, root);
    else CHECK(calls == before + (long)n);
    check_copy(a, n, root, 0, "root");
    shmem_free(a);
}

/* Element g holds f(g, owner(g)): filled by its owner and only by it. */
static void dist_strategy(size_t n, int k)
{
    const char *name;
    shmemx_dist_t d = shmemx_dist_create(n, sizeof(long), pe_dist_layout(k, &name));
    long *all = malloc((n + 1) * sizeof *all), before = calls;
    shmemx_dist_init(d, SHMEMX_FILL_ELEM(elem_fn, NULL), NULL);
    CHECK(calls - before == (long)shmemx_dist_local_count(d, me));
    const long *part = shmemx_dist_local(d);
    for (size_t l = 0; l < shmemx_dist_local_count(d, me); l++)
        CHECK(part[l] == f(shmemx_dist_global_index(d, me, l), me));
    shmemx_dist_get(d, all, 0, n);
    for (size_t g = 0; g < n; g++) CHECKF(all[g] == f(g, shmemx_dist_owner(d, g, NULL)), "%s [%zu]", name, g);
    shmem_barrier_all();
    memset(all, 0, (n + 1) * sizeof *all);
    shmemx_dist_init(d, SHMEMX_FILL_RANGE(range_fn, NULL), all); /* + all-gather */
    for (size_t g = 0; g < n; g++)
        CHECKF(all[g] == f(g, shmemx_dist_owner(d, g, NULL)), "%s gathered [%zu]", name, g);
    free(all);
    shmemx_dist_destroy(d);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    size_t sizes[16];
    int ns = pe_dist_sizes(sizes);
    for (int s = 0; s < ns; s++) {
        local_strategy(sizes[s]);
        root_strategy(sizes[s], 0);
        root_strategy(sizes[s], np - 1);
        for (int k = 0; k < PE_DIST_NLAYOUTS; k++) dist_strategy(sizes[s], k);
    }
    long total = pe_dist_sum(calls);
    if (me == 0) printf("pe_dist_init: local, root, distributed ok for %d sizes with %d PEs (%ld fill calls)\n", ns, np, total);
    shmem_finalize();
    return 0;
}
