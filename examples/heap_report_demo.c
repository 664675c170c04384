/* heap_report_demo.c - a heap report of a realistic heap (issue #3, brief §4.6).
 *
 * Builds the kind of heap a simulation has after a while: a few large field
 * arrays, page-aligned halo buffers, a log buffer grown with realloc (it moves
 * and leaves holes), hundreds of small cell objects of which some were freed,
 * mailboxes of varied sizes, per-PE counters: six allocation sites, ~700
 * allocations of which ~370 blocks are live.  Then every PE writes its report:
 *
 *     shmemx_heap_report("heap_report_demo");
 *       -> heap_report_demo.<pe>.txt   numbers, sites, every block, free ranges
 *       -> heap_report_demo.<pe>.html  the heap drawn as a bar, blocks coloured
 *                                      by allocation site (open it in a browser)
 *
 * Without changing the program: SHMEM_HEAP_REPORT=<prefix> writes one at
 * shmem_finalize, and `kill -USR1 <pid of a PE>` writes one at that PE's next
 * symheap call.  With --leak the cells are not freed: shmem_finalize then
 * lists them as leaks, by allocation site (the program still exits 0).
 * Run: symrun -n 4 ./heap_report_demo [prefix] [--leak] */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NCELLS 400
#define NMAIL 120
#define NFIELDS 6

struct cell { double pos[3], vel[3]; long id; struct cell *next; };

static double *new_field(size_t n) { return shmem_malloc(n * sizeof(double)); }
static struct cell *new_cell(void) { return shmem_malloc(sizeof(struct cell)); }
static char *new_mailbox(size_t n)
{
    return shmem_malloc_with_hints(n, SHMEM_MALLOC_ATOMICS_REMOTE);
}

int main(int argc, char **argv)
{
    const char *prefix = "heap_report_demo";
    int leak = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--leak")) leak = 1;
        else prefix = argv[i];
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    double *field[NFIELDS];
    for (int i = 0; i < NFIELDS; i++) field[i] = new_field((size_t)16384 << (i % 3));
    long *counters = shmem_calloc((size_t)npes, sizeof(long));
    char *halo[4];
    for (int i = 0; i < 4; i++) halo[i] = shmem_align(4096, 4096 * (size_t)(i + 1));

    /* Cells and a growing log interleaved: the log cannot grow in place, so
     * each realloc moves it and leaves a hole that later cells fill. */
    struct cell *cell[NCELLS];
    char *log = shmem_malloc(1024);
    size_t loglen = 1024;
    char *mail[NMAIL];
    for (int i = 0; i < NCELLS; i++) {
        cell[i] = new_cell();
        cell[i]->id = i;
        if (i % 60 == 59) {
            log = shmem_realloc(log, loglen *= 2);
            memset(log, 'x', loglen);
        }
        if (i % 10 == 0 && i / 10 < NMAIL) mail[i / 10] = new_mailbox(64 + (size_t)(i * 37 % 4000));
    }
    for (int i = NCELLS / 10; i < NMAIL; i++) mail[i] = new_mailbox(64 + (size_t)(i * 97 % 2000));
    for (int i = 0; i < NCELLS; i += 3) { /* cells that died: holes among the live ones */
        shmem_free(cell[i]);
        cell[i] = NULL;
    }
    for (int i = 0; i < NMAIL; i += 4) {
        shmem_free(mail[i]);
        mail[i] = NULL;
    }
    counters[me] = 1;

    int rc = shmemx_heap_report(prefix);
    char path[4096];
    snprintf(path, sizeof path, "%s.%d.html", prefix, me);
    int ok = rc == 0 && access(path, R_OK) == 0;
    shmemx_heap_info_t hi;
    shmemx_heap_info(&hi);
    if (me == 0)
        printf("heap report: %s.<pe>.html and .txt for %d PEs (%zu live blocks, %zu bytes used, "
               "largest free %zu): %s\n", prefix, npes, hi.live_blocks, hi.used,
               hi.largest_free, ok ? "ok" : "FAILED");

    for (int i = 0; i < NMAIL; i++) shmem_free(mail[i]);
    if (!leak)
        for (int i = 0; i < NCELLS; i++) shmem_free(cell[i]);
    shmem_free(log);
    for (int i = 0; i < 4; i++) shmem_free(halo[i]);
    shmem_free(counters);
    for (int i = 0; i < NFIELDS; i++) shmem_free(field[i]);
    shmem_finalize();
    return ok ? 0 : 1;
}
