/* pe_dist_layout.c - placement layouts (issue 4): for every layout and every
 * size (N = 0, N < npes, N % npes != 0, ...): owner/local lookups invert
 * each other, parts are in global order, the iterator visits exactly a PE's
 * elements of any range in runs, owner-computes fills every element once,
 * and range get/put (split per owner) move the right elements. */
#include "pe_dist.h"

#include <stdint.h>
#include <string.h>

static int me, np;

static long value(size_t g, int round) { return (long)(g * 2654435761u % 1000003) + round * 7; }

/* Owner/local/global agree; parts in increasing global order; counts add up. */
static void check_lookup(shmemx_dist_t d, size_t n)
{
    size_t total = 0, *seen = calloc(n + 1, sizeof *seen);
    for (int p = 0; p < np; p++) {
        size_t c = shmemx_dist_local_count(d, p);
        total += c;
        for (size_t l = 0; l < c; l++) {
            size_t g = shmemx_dist_global_index(d, p, l), l2;
            CHECKF(g < n, "global %zu of PE %d local %zu >= n %zu", g, p, l, n);
            CHECKF(shmemx_dist_owner(d, g, &l2) == p && l2 == l, "owner(%zu) != (%d, %zu)", g, p, l);
            if (l) CHECK(shmemx_dist_global_index(d, p, l - 1) < g);
            seen[g]++;
        }
        size_t first, cnt;
        if (shmemx_dist_local_range(d, p, &first, &cnt)) {
            CHECK(cnt == c);
            for (size_t l = 0; l < c; l++) CHECK(shmemx_dist_global_index(d, p, l) == first + l);
        }
    }
    CHECKF(total == n, "parts hold %zu elements, n = %zu", total, n);
    for (size_t g = 0; g < n; g++) CHECKF(seen[g] == 1, "element %zu owned %zu times", g, seen[g]);
    free(seen);
}

/* The iterator over [lo, hi) visits exactly PE p's elements there, in runs. */
static void check_iter(shmemx_dist_t d, size_t n, int p, size_t lo, size_t hi)
{
    size_t visited = 0, expect = 0, last_local = 0;
    int first = 1;
    shmemx_dist_run_t r;
    for (size_t g = lo; g < hi && g < n; g++) {
        size_t l;
        expect += shmemx_dist_owner(d, g, &l) == p;
    }
    for (shmemx_dist_iter_t it = shmemx_dist_iter(d, p, lo, hi); shmemx_dist_next(&it, &r);) {
        CHECK(r.count > 0);
        CHECK(first || r.local == last_local); /* runs are consecutive in the part */
        for (size_t k = 0; k < r.count; k++) {
            size_t l;
            CHECK(r.global + k >= lo && r.global + k < hi);
            CHECK(shmemx_dist_owner(d, r.global + k, &l) == p && l == r.local + k);
        }
        visited += r.count;
        last_local = r.local + r.count;
        first = 0;
    }
    CHECKF(visited == expect, "iter(pe %d, [%zu, %zu)) visited %zu of %zu", p, lo, hi, visited, expect);
}

struct fa { int calls; };
static void forall_fn(void *elems, size_t first, size_t count, void *ctx)
{
    long *e = elems;
    for (size_t k = 0; k < count; k++) e[k] = value(first + k, 0);
    ((struct fa *)ctx)->calls++;
}

static void check_rma(shmemx_dist_t d, size_t n)
{
    long *part = shmemx_dist_local(d);
    /* Owner computes through the iterator. */
    shmemx_dist_run_t r;
    for (shmemx_dist_iter_t it = shmemx_dist_iter(d, me, 0, SIZE_MAX); shmemx_dist_next(&it, &r);)
        for (size_t k = 0; k < r.count; k++) part[r.local + k] = value(r.global + k, 1);
    shmem_barrier_all();
    long *all = malloc((n + 1) * sizeof *all);
    shmemx_dist_get(d, all, 0, n);
    for (size_t g = 0; g < n; g++) CHECKF(all[g] == value(g, 1), "get[%zu]", g);
    /* Sub-ranges, including empty and single-element ones. */
    for (size_t lo = 0; lo < n; lo += n / 7 + 1) {
        size_t hi = lo + (n - lo) / 2 + 1;
        memset(all, 0, (n + 1) * sizeof *all);
        shmemx_dist_get(d, all, lo, hi - lo);
        for (size_t g = lo; g < hi; g++) CHECKF(all[g - lo] == value(g, 1), "subget[%zu]", g);
        shmemx_dist_get(d, all, lo, 0);
        for (int p = 0; p < np; p++) check_iter(d, n, p, lo, hi);
    }
    shmem_barrier_all();
    /* Every PE puts one slice of the global range (owned by whoever). */
    size_t lo = n * (size_t)me / (size_t)np, hi = n * (size_t)(me + 1) / (size_t)np;
    for (size_t g = lo; g < hi; g++) all[g - lo] = value(g, 2);
    shmemx_dist_put(d, lo, all, hi - lo);
    shmem_barrier_all();
    for (size_t l = 0; l < shmemx_dist_local_count(d, me); l++)
        CHECKF(part[l] == value(shmemx_dist_global_index(d, me, l), 2), "put local %zu", l);
    shmem_barrier_all();
    struct fa ctx = { 0 };
    shmemx_dist_forall(d, 0, n, forall_fn, &ctx);
    shmem_barrier_all();
    shmemx_dist_get(d, all, 0, n);
    for (size_t g = 0; g < n; g++) CHECKF(all[g] == value(g, 0), "forall[%zu]", g);
    free(all);
    shmem_barrier_all();
}

/* The BLOCK split is the documented one: first n % npes PEs get one more. */
static void check_block_formula(shmemx_dist_t d, size_t n)
{
    for (int p = 0; p < np; p++)
        CHECK(shmemx_dist_local_count(d, p) == n / (size_t)np + ((size_t)p < n % (size_t)np));
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    size_t sizes[16];
    int ns = pe_dist_sizes(sizes), cases = 0;
    for (int k = 0; k < PE_DIST_NLAYOUTS; k++) {
        const char *name;
        shmemx_layout_t lay = pe_dist_layout(k, &name);
        for (int s = 0; s < ns; s++) {
            size_t n = sizes[s];
            shmemx_dist_t d = shmemx_dist_create(n, sizeof(long), lay);
            CHECK(d != NULL);
            CHECK(shmemx_dist_size(d) == n && shmemx_dist_elem_size(d) == sizeof(long));
            CHECK((n == 0) == (shmemx_dist_local(d) == NULL));
            check_lookup(d, n);
            if (k == 0) check_block_formula(d, n);
            for (int p = 0; p < np; p++) check_iter(d, n, p, 0, SIZE_MAX);
            check_rma(d, n);
            shmemx_dist_destroy(d);
            cases++;
        }
    }
    /* Elements bigger than the staging threshold, cyclic (per-run path). */
    shmemx_dist_t d = shmemx_dist_create(37, 300, SHMEMX_LAYOUT_CYCLIC);
    char *buf = malloc(37 * 300), *back = malloc(37 * 300);
    for (size_t i = 0; i < 37 * 300; i++) buf[i] = (char)(i * 13 + 1);
    if (me == 0) shmemx_dist_put(d, 0, buf, 37);
    shmem_barrier_all();
    shmemx_dist_get(d, back, 0, 37);
    CHECK(memcmp(buf, back, 37 * 300) == 0);
    free(buf);
    free(back);
    shmemx_dist_destroy(d);
    if (me == 0) printf("pe_dist_layout: %d layout x size cases ok with %d PEs\n", cases, np);
    shmem_finalize();
    return 0;
}
