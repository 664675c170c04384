/* layout_test.c - the placement layouts' arithmetic alone (layout.c): no
 * runtime, no PEs, just the numbers.
 *
 * Directed cases check the documented placements (shmemx_dist.h): BLOCK's
 * first n % npes PEs own one more, CYCLIC deals elements round-robin,
 * BLOCK_CYCLIC(b) deals blocks, n < npes leaves PEs empty.  Then every
 * layout (BLOCK, CYCLIC, BLOCK_CYCLIC with several blocks, a USER map) for
 * many (n, npes), n % npes != 0, n < npes and n == 0 included, is checked
 * against brute force: counts add up to n, maxcount is the largest,
 * global -> (owner, local) -> global and back round trip, each PE's elements
 * are in increasing global order, before() counts, runlen() measures runs. */
#include "ext/dist/layout.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/unit_check.h"

static const char *kind_name(int kind)
{
    switch (kind) {
    case SHMEMX_LAYOUT_KIND_BLOCK: return "BLOCK";
    case SHMEMX_LAYOUT_KIND_CYCLIC: return "CYCLIC";
    case SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC: return "BLOCK_CYCLIC";
    default: return "USER";
    }
}

/* A USER map as dist.c builds one, for owner(i) = (i * 7 + i / 3) % npes:
 * uneven, not monotonic, some PEs possibly empty. */
static struct shmi_layout user_layout(size_t n, int npes)
{
    struct shmi_layout l = shmi_layout_make(SHMEMX_LAYOUT_KIND_USER, n, npes, 0);
    l.own = malloc((n ? n : 1) * sizeof *l.own);
    l.loc = malloc((n ? n : 1) * sizeof *l.loc);
    l.glist = malloc((n ? n : 1) * sizeof *l.glist);
    l.gstart = calloc((size_t)npes + 2, sizeof *l.gstart);
    if (!l.own || !l.loc || !l.glist || !l.gstart) {
        fprintf(stderr, "layout_test: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        int p = (int)((i * 7 + i / 3) % (size_t)npes);
        l.own[i] = p;
        l.loc[i] = l.gstart[p + 2]++;
    }
    for (int p = 0; p < npes; p++) l.gstart[p + 2] += l.gstart[p + 1];
    for (size_t i = 0; i < n; i++) l.glist[l.gstart[l.own[i] + 1]++] = i;
    return l;
}

static void user_free(struct shmi_layout *l)
{
    free(l->own);
    free(l->loc);
    free(l->glist);
    free(l->gstart);
}

/* ---- directed cases ------------------------------------------------------ */

static void expect_counts(const struct shmi_layout *l, const size_t *want)
{
    for (int p = 0; p < l->npes; p++)
        if (shmi_layout_count(l, p) != want[p]) {
            fprintf(stderr, "%s n=%zu npes=%d b=%zu: PE %d holds %zu, want %zu\n",
                    kind_name(l->kind), l->n, l->npes, l->b, p, shmi_layout_count(l, p),
                    want[p]);
            fails++;
        }
}

static void expect_owner(const struct shmi_layout *l, size_t i, int pe, size_t local)
{
    size_t got = (size_t)-1;
    int p = shmi_layout_owner(l, i, &got);
    if (p != pe || got != local) {
        fprintf(stderr, "%s n=%zu npes=%d b=%zu: element %zu on PE %d at %zu, want PE %d at %zu\n",
                kind_name(l->kind), l->n, l->npes, l->b, i, p, got, pe, local);
        fails++;
    }
}

static void test_directed(void)
{
    /* BLOCK, 10 over 4: 3 3 2 2, starting at 0 3 6 8. */
    struct shmi_layout l = shmi_layout_make(SHMEMX_LAYOUT_KIND_BLOCK, 10, 4, 0);
    expect_counts(&l, (const size_t[]){ 3, 3, 2, 2 });
    expect_owner(&l, 2, 0, 2);
    expect_owner(&l, 3, 1, 0);
    expect_owner(&l, 6, 2, 0);
    expect_owner(&l, 9, 3, 1);
    CHECK(shmi_layout_global(&l, 3, 0) == 8);
    /* BLOCK, 2 over 4: the last PEs own nothing. */
    l = shmi_layout_make(SHMEMX_LAYOUT_KIND_BLOCK, 2, 4, 0);
    expect_counts(&l, (const size_t[]){ 1, 1, 0, 0 });
    expect_owner(&l, 1, 1, 0);
    CHECK(shmi_layout_before(&l, 3, 2) == 0 && shmi_layout_maxcount(&l) == 1);
    /* CYCLIC, 10 over 4: owner i % 4, local i / 4. */
    l = shmi_layout_make(SHMEMX_LAYOUT_KIND_CYCLIC, 10, 4, 0);
    expect_counts(&l, (const size_t[]){ 3, 3, 2, 2 });
    expect_owner(&l, 5, 1, 1);
    expect_owner(&l, 9, 1, 2);
    CHECK(shmi_layout_global(&l, 2, 1) == 6);
    /* BLOCK_CYCLIC(3), 10 over 2: [0,3) [6,9) on PE 0, [3,6) [9] on PE 1. */
    l = shmi_layout_make(SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC, 10, 2, 3);
    expect_counts(&l, (const size_t[]){ 6, 4 });
    expect_owner(&l, 7, 0, 4);
    expect_owner(&l, 9, 1, 3);
    CHECK(shmi_layout_runlen(&l, 0, 1, 100) == 2 && shmi_layout_runlen(&l, 1, 3, 100) == 1);
    /* BLOCK_CYCLIC(4), 10 over 4: 3 blocks, the last short, PE 3 empty. */
    l = shmi_layout_make(SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC, 10, 4, 4);
    expect_counts(&l, (const size_t[]){ 4, 4, 2, 0 });
    expect_owner(&l, 9, 2, 1);
    /* One dimension of the halo grid. */
    CHECK(shmi_layout_block_count(7, 3, 0) == 3 && shmi_layout_block_count(7, 3, 2) == 2);
    CHECK(shmi_layout_block_start(7, 3, 1) == 3 && shmi_layout_block_start(7, 3, 2) == 5);
    CHECK(shmi_layout_block_count(2, 5, 4) == 0 && shmi_layout_block_start(2, 5, 4) == 2);
}

/* ---- every layout against brute force -------------------------------------- */

static void check_layout(const struct shmi_layout *l)
{
    int np = l->npes, bad = fails;
    size_t total = 0, max = 0;
    size_t *seen = calloc(np, sizeof *seen); /* elements of each PE met so far */
    for (int p = 0; p < np; p++) {
        size_t c = shmi_layout_count(l, p);
        total += c;
        max = c > max ? c : max;
    }
    CHECK(total == l->n);
    CHECK(shmi_layout_maxcount(l) == max);
    /* global -> (owner, local) -> global; in global order each PE's local
     * indices come 0, 1, 2...: increasing global order, no gaps. */
    for (size_t i = 0; i < l->n && fails == bad; i++) {
        size_t loc = (size_t)-1;
        int p = shmi_layout_owner(l, i, &loc);
        CHECK(p >= 0 && p < np);
        if (p < 0 || p >= np) break;
        CHECK(loc == seen[p] && loc < shmi_layout_count(l, p));
        CHECK(shmi_layout_global(l, p, loc) == i);
        seen[p]++;
    }
    /* (owner, local) -> global -> (owner, local); before(); runlen(). */
    for (int p = 0; p < np && fails == bad; p++) {
        size_t c = shmi_layout_count(l, p), before = 0;
        CHECK(seen[p] == c);
        for (size_t loc = 0; loc < c && fails == bad; loc++) {
            size_t g = shmi_layout_global(l, p, loc), back = (size_t)-1;
            CHECK(shmi_layout_owner(l, g, &back) == p && back == loc);
            size_t run = 1;
            while (loc + run < c && shmi_layout_global(l, p, loc + run) == g + run) run++;
            CHECK(shmi_layout_runlen(l, p, loc, SIZE_MAX) == run);
            CHECK(shmi_layout_runlen(l, p, loc, 1) == 1);
        }
        for (size_t g = 0; g <= l->n && fails == bad; g++) {
            CHECK(shmi_layout_before(l, p, g) == before);
            size_t loc;
            if (g < l->n && shmi_layout_owner(l, g, &loc) == p) before++;
        }
    }
    if (fails != bad)
        fprintf(stderr, "  in %s n=%zu npes=%d b=%zu\n", kind_name(l->kind), l->n, np, l->b);
    free(seen);
}

static void test_all(void)
{
    static const int npes[] = { 1, 2, 3, 4, 5, 7, 8, 16 };
    static const size_t blocks[] = { 1, 2, 3, 7, 64 };
    int layouts = 0;
    for (size_t k = 0; k < sizeof npes / sizeof *npes; k++) {
        int np = npes[k];
        /* n < npes, n == npes, n % npes != 0 and == 0, and larger. */
        size_t ns[] = { 0, 1, (size_t)np - 1, (size_t)np, (size_t)np + 1, 2 * (size_t)np + 3,
                        10, 17, 100, 1000 };
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
            size_t n = ns[j];
            struct shmi_layout l = shmi_layout_make(SHMEMX_LAYOUT_KIND_BLOCK, n, np, 0);
            check_layout(&l);
            l = shmi_layout_make(SHMEMX_LAYOUT_KIND_CYCLIC, n, np, 0);
            check_layout(&l);
            for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
                l = shmi_layout_make(SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC, n, np, blocks[b]);
                check_layout(&l);
            }
            l = user_layout(n, np);
            check_layout(&l);
            user_free(&l);
            layouts += 3 + (int)(sizeof blocks / sizeof *blocks);
        }
    }
    printf("layout_test: %d layouts checked against brute force\n", layouts);
}

int main(void)
{
    test_directed();
    test_all();
    if (fails) {
        fprintf(stderr, "layout_test: %d check(s) failed\n", fails);
        return 1;
    }
    printf("layout_test: all passed\n");
    return 0;
}
