/* tp_test.c - peer address translation alone (tp.h: shmi_tp_ptr,
 * shmi_tp_seg_of): no mapping, no bootstrap, no peers.
 *
 * A struct shmi_tp is built by hand as shmi_tp_init would leave it on PE 1
 * of 3: two segments (a "heap" and a "globals"), each PE's copy a separate
 * buffer of this process, delta[pe] = that copy's base minus ours (negative
 * for some PEs, 0 for ourselves).  Checked: every PE's copy of the first,
 * an inner and the last byte of each segment; addresses just outside
 * (below the base, one past the end, between and beyond the segments, NULL)
 * translate to NULL; shmi_tp_seg_of's range test at both ends, with n == 0,
 * n == size and n large enough to wrap. */
#include "transport/tp.h"

#include <stdint.h>
#include <stdio.h>

#define NPES 3
#define ME 1
#define HEAP 4096
#define GLOB 256

static int fails;

#define CHECK(c)                                                                        \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);       \
            fails++;                                                                    \
        }                                                                               \
    } while (0)

/* The copies: [pe][byte].  Globals are laid out in reverse PE order, so
 * deltas of both signs occur. */
static char heap[NPES][HEAP];
static char glob[NPES][GLOB];
static intptr_t heap_delta[NPES], glob_delta[NPES];

static char *glob_of(int pe) { return glob[NPES - 1 - pe]; }

static struct shmi_tp make_tp(void)
{
    struct shmi_tp tp = { .me = ME, .npes = NPES, .nseg = 2 };
    for (int pe = 0; pe < NPES; pe++) {
        heap_delta[pe] = (intptr_t)((uintptr_t)heap[pe] - (uintptr_t)heap[ME]);
        glob_delta[pe] = (intptr_t)((uintptr_t)glob_of(pe) - (uintptr_t)glob_of(ME));
    }
    tp.seg[0] = (struct shmi_tp_seg){ .base = (uintptr_t)heap[ME], .size = HEAP,
                                      .delta = heap_delta };
    tp.seg[1] = (struct shmi_tp_seg){ .base = (uintptr_t)glob_of(ME), .size = GLOB,
                                      .delta = glob_delta };
    return tp;
}

static void test_ptr(const struct shmi_tp *tp)
{
    static const size_t heap_at[] = { 0, 1, 100, HEAP - 1 }, glob_at[] = { 0, 17, GLOB - 1 };
    for (int pe = 0; pe < NPES; pe++) {
        for (size_t k = 0; k < sizeof heap_at / sizeof *heap_at; k++)
            CHECK(shmi_tp_ptr(tp, &heap[ME][heap_at[k]], pe) == &heap[pe][heap_at[k]]);
        for (size_t k = 0; k < sizeof glob_at / sizeof *glob_at; k++)
            CHECK(shmi_tp_ptr(tp, glob_of(ME) + glob_at[k], pe) == glob_of(pe) + glob_at[k]);
        /* Not symmetric: just outside either segment (the neighbouring
         * bytes belong to other PEs' copies), another PE's copy as our
         * address, a private variable, NULL. */
        CHECK(shmi_tp_ptr(tp, heap[ME] - 1, pe) == NULL);
        CHECK(shmi_tp_ptr(tp, heap[ME] + HEAP, pe) == NULL);
        CHECK(shmi_tp_ptr(tp, glob_of(ME) - 1, pe) == NULL);
        CHECK(shmi_tp_ptr(tp, glob_of(ME) + GLOB, pe) == NULL);
        CHECK(shmi_tp_ptr(tp, heap[(ME + 1) % NPES], pe) == NULL);
        CHECK(shmi_tp_ptr(tp, &fails, pe) == NULL);
        CHECK(shmi_tp_ptr(tp, NULL, pe) == NULL);
    }
    /* Ourselves: the address itself. */
    CHECK(shmi_tp_ptr(tp, &heap[ME][5], ME) == &heap[ME][5]);
    CHECK(shmi_tp_ptr(tp, glob_of(ME) + 5, ME) == glob_of(ME) + 5);
}

static void test_seg_of(const struct shmi_tp *tp)
{
    const char *h = heap[ME], *g = glob_of(ME);
    /* Whole ranges inside, at both ends, n == 0 and n == size. */
    CHECK(shmi_tp_seg_of(tp, h, 0) == 0);
    CHECK(shmi_tp_seg_of(tp, h, HEAP) == 0);
    CHECK(shmi_tp_seg_of(tp, h + HEAP - 1, 1) == 0);
    CHECK(shmi_tp_seg_of(tp, h + 100, HEAP - 100) == 0);
    CHECK(shmi_tp_seg_of(tp, g, GLOB) == 1);
    CHECK(shmi_tp_seg_of(tp, g + GLOB - 1, 0) == 1);
    /* Ranges that run past the end, by one byte or by wrapping around. */
    CHECK(shmi_tp_seg_of(tp, h, HEAP + 1) == -1);
    CHECK(shmi_tp_seg_of(tp, h + HEAP - 1, 2) == -1);
    CHECK(shmi_tp_seg_of(tp, h + 100, HEAP - 99) == -1);
    CHECK(shmi_tp_seg_of(tp, h + 1, SIZE_MAX) == -1);
    CHECK(shmi_tp_seg_of(tp, g, GLOB + 1) == -1);
    CHECK(shmi_tp_seg_of(tp, g + 1, SIZE_MAX) == -1);
    /* Starts outside: below, one past the end (even with n == 0), elsewhere. */
    CHECK(shmi_tp_seg_of(tp, g + GLOB, 0) == -1);
    CHECK(shmi_tp_seg_of(tp, heap[(ME + 1) % NPES], 1) == -1);
    CHECK(shmi_tp_seg_of(tp, &fails, sizeof fails) == -1);
    CHECK(shmi_tp_seg_of(tp, NULL, 0) == -1);
    CHECK(shmi_tp_seg_of(tp, h + HEAP, 0) == -1);
    CHECK(shmi_tp_seg_of(tp, h - 1, 1) == -1);
    CHECK(shmi_tp_seg_of(tp, g - 1, 2) == -1);
    /* A table without segments knows no address. */
    struct shmi_tp none = { .me = 0, .npes = 1, .nseg = 0 };
    CHECK(shmi_tp_seg_of(&none, h, 0) == -1 && shmi_tp_ptr(&none, h, 0) == NULL);
}

int main(void)
{
    struct shmi_tp tp = make_tp();
    /* Deltas of both signs in each segment, 0 for ourselves. */
    CHECK(heap_delta[0] < 0 && heap_delta[2] > 0 && glob_delta[0] > 0 && glob_delta[2] < 0);
    CHECK(heap_delta[ME] == 0 && glob_delta[ME] == 0);
    test_ptr(&tp);
    test_seg_of(&tp);
    if (fails) {
        fprintf(stderr, "tp_test: %d check(s) failed\n", fails);
        return 1;
    }
    printf("tp_test: all passed\n");
    return 0;
}
