/* pe_report.c - heap reports (shmemx_heap_report, issue #3).
 *
 * Default mode: every PE builds a small heap from three sites (with holes, a
 * realloc and an aligned block), writes its report into a temporary folder
 * PE 0 made, and checks: both files exist with the PE in their names; the
 * text's numbers equal shmemx_heap_info's; it lists every live block by
 * address; the HTML is well-formed XML with an inline SVG and no external
 * resource; a prefix in a missing folder gives -1; a NULL prefix uses
 * SHMEM_HEAP_REPORT or "symheap-heap".  The folder is removed at the end
 * (rmdir fails if anything was left in it).
 *
 * Mode "wired" (run with SHMEM_HEAP_REPORT=fin): the lead's hooks in
 * shmem_init/finalize/barrier: SIGUSR1 writes fin.sig1.<pe>.* at the next
 * barrier; at shmem_finalize fin.<pe>.* is written and PE 0 alone prints the
 * leaked blocks by site, "on every PE". */
#include "pe_test.h"
#include <shmemx.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int me, npes;

/* Whole file into a malloc'd string, or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t k;
    while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0)
        if ((n += k) == cap - 1) s = realloc(s, cap *= 2);
    fclose(f);
    if (s) s[n] = 0;
    return s;
}

static int exists(const char *path) { struct stat st; return stat(path, &st) == 0; }

/* The number after "key" at the start of a line of the text report. */
static size_t field(const char *txt, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = txt; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, key, kl) && l[kl] == ' ') {
            const char *v = l + kl;
            while (*v == ' ') v++;
            return (size_t)strtoull(v, NULL, 0);
        }
    CHECKF(0, "no line '%s' in the text report", key);
    return 0;
}

/* Well-formed XML (tags balanced and nested, quoted attributes, only XML's
 * entities); returns NULL or what is wrong. */
static const char *xml_check(const char *s)
{
    static char why[160];
    char stack[64][32];
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '&') {
            const char *e = strchr(p, ';');
            static const char *ok[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
            int good = e && p[1] == '#' && e - p > 2 && e - p < 10;
            for (int i = 0; i < 5 && e; i++) good |= !strncmp(p, ok[i], strlen(ok[i]));
            if (!good) return snprintf(why, sizeof why, "bad entity at '%.20s'", p), why;
            continue;
        }
        if (*p == '>') return snprintf(why, sizeof why, "stray '>' at '%.30s'", p - 10), why;
        if (*p != '<') continue;
        if (!strncmp(p, "<!--", 4)) {
            if (!(p = strstr(p, "-->"))) return "open comment";
            p += 2;
            continue;
        }
        if (p[1] == '!' || p[1] == '?') { p = strchr(p, '>'); if (!p) return "open <!"; continue; }
        int close = p[1] == '/';
        const char *n = p + 1 + close;
        size_t nl = strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:");
        if (!nl || nl >= 32) return snprintf(why, sizeof why, "bad tag at '%.20s'", p), why;
        const char *q = n + nl;
        while (*q && *q != '>') { /* attributes: name="value" */
            if (*q == '"' || *q == '\'') { q = strchr(q + 1, *q); if (!q) return "open quote"; }
            else if (*q == '<') return snprintf(why, sizeof why, "'<' in tag %.20s", p), why;
            q++;
        }
        if (!*q) return "open tag at end";
        if (close) {
            if (!depth || strlen(stack[depth - 1]) != nl || strncmp(stack[depth - 1], n, nl))
                return snprintf(why, sizeof why, "</%.*s> closes <%s>", (int)nl, n,
                                depth ? stack[depth - 1] : "nothing"), why;
            depth--;
        } else if (q[-1] != '/') {
            if (depth == 64) return "nested too deep";
            snprintf(stack[depth++], 32, "%.*s", (int)nl, n);
        }
        p = q;
    }
    if (depth) return snprintf(why, sizeof why, "<%s> never closed", stack[depth - 1]), why;
    return NULL;
}

static void check_txt(const char *path, char **blk, int nblk)
{
    char *txt = slurp(path);
    CHECKF(txt, "cannot read %s", path);
    shmemx_heap_info_t hi;
    CHECK(shmemx_heap_info(&hi) == 0);
    CHECKF(field(txt, "pe") == (size_t)me, "pe line of %s", path);
    CHECK(field(txt, "heap base") == (size_t)(uintptr_t)hi.base);
    CHECK(field(txt, "heap size") == hi.size);
    CHECKF(field(txt, "used") == hi.used, "used %zu vs %zu", field(txt, "used"), hi.used);
    CHECK(field(txt, "free") == hi.free);
    CHECK(field(txt, "largest free") == hi.largest_free);
    CHECK(field(txt, "peak used") == hi.peak_used);
    CHECK(field(txt, "live blocks") == hi.live_blocks);
    /* Every block we hold is listed by address; the count of lines matches. */
    for (int i = 0; i < nblk; i++) {
        char a[40];
        snprintf(a, sizeof a, "  %p ", (void *)blk[i]);
        if (blk[i]) CHECKF(strstr(txt, a), "block %p not in %s", (void *)blk[i], path);
    }
    const char *sec = strstr(txt, "\nlive blocks (");
    CHECK(sec);
    size_t lines = 0;
    for (const char *l = strchr(sec + 1, '\n') + 1; !strncmp(l, "  0x", 4); l = strchr(l, '\n') + 1)
        lines++;
    CHECKF(lines == hi.live_blocks, "%zu block lines for %zu live blocks", lines, hi.live_blocks);
    CHECK(strstr(txt, "fragmentation"));
    CHECK(strstr(txt, "free ranges:"));
    free(txt);
}

static void check_html(const char *path)
{
    char *h = slurp(path);
    CHECKF(h, "cannot read %s", path);
    CHECK(!strncmp(h, "<!DOCTYPE html>", 15));
    const char *why = xml_check(h);
    CHECKF(!why, "%s is not well-formed: %s", path, why);
    CHECK(strstr(h, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(strstr(h, "<title>block 0x")); /* tooltips */
    CHECK(!strstr(h, "<script") && !strstr(h, "src=") && !strstr(h, "href=") &&
          !strstr(h, "@import") && !strstr(h, "url(http"));
    free(h);
}

static void rm_report(const char *prefix)
{
    char p[4200];
    snprintf(p, sizeof p, "%s.%d.txt", prefix, me);
    CHECKF(unlink(p) == 0, "remove %s: %s", p, strerror(errno));
    snprintf(p, sizeof p, "%s.%d.html", prefix, me);
    CHECKF(unlink(p) == 0, "remove %s: %s", p, strerror(errno));
}

static void default_mode(void)
{
    char *dir = shmem_calloc(1, 4096), prefix[4200], path[4300], cwd[4096];
    if (me == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, 4096, "%s/pe_report.XXXXXX", t && *t ? t : "/tmp");
        CHECKF(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
    }
    shmem_barrier_all();
    if (me != 0) shmem_getmem(dir, dir, 4096, 0);

    /* Three sites, holes, a realloc that moves, an aligned block. */
    enum { N = 60 };
    char *blk[N + 2];
    for (int i = 0; i < N; i++) blk[i] = shmem_malloc(16 + (size_t)i * 40);
    for (int i = 0; i < N; i += 2) { shmem_free(blk[i]); blk[i] = NULL; }
    blk[N] = shmem_align(4096, 10000);
    blk[N + 1] = shmem_calloc(100, 8);
    blk[1] = shmem_realloc(blk[1], 100000);

    snprintf(prefix, sizeof prefix, "%s/rep", dir);
    CHECK(shmemx_heap_report(prefix) == 0);
    snprintf(path, sizeof path, "%s.%d.txt", prefix, me);
    check_txt(path, blk, N + 2);
    snprintf(path, sizeof path, "%s.%d.html", prefix, me);
    check_html(path);

    CHECK(shmemx_heap_report("/nonexistent-symheap-dir/rep") == -1);

    const char *env = getenv("SHMEM_HEAP_REPORT");
    CHECK(getcwd(cwd, sizeof cwd));
    CHECK(chdir(dir) == 0);
    CHECK(shmemx_heap_report(NULL) == 0);
    rm_report(env && *env ? env : "symheap-heap");
    CHECK(chdir(cwd) == 0);

    shmem_barrier_all(); /* every PE's files are there: PE 0 sees them all */
    if (me == 0)
        for (int pe = 0; pe < npes; pe++) {
            snprintf(path, sizeof path, "%s.%d.html", prefix, pe);
            CHECKF(exists(path), "%s missing", path);
        }
    shmem_barrier_all();
    rm_report(prefix);
    shmem_barrier_all();
    if (me == 0) CHECKF(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
    for (int i = 0; i < N + 2; i++) shmem_free(blk[i]);
    shmem_free(dir);
    if (me == 0) printf("pe_report: ok with %d PEs\n", npes);
}

/* Sites of the deliberate leaks: two functions, so two lines in the report
 * (the empty asm keeps the calls out of tail position: the site is here). */
static __attribute__((noinline)) void *leak_a(size_t n)
{
    void *p = shmem_malloc(n);
    __asm__ volatile("" ::: "memory");
    return p;
}
static __attribute__((noinline)) void *leak_b(size_t n)
{
    void *p = shmem_calloc(1, n);
    __asm__ volatile("" ::: "memory");
    return p;
}

static void wired_mode(void)
{
    char dir[4096], cwd[4096], path[64];
    const char *t = getenv("TMPDIR"), *p = getenv("SHMEM_HEAP_REPORT");
    CHECKF(p && !strcmp(p, "fin"), "run with SHMEM_HEAP_REPORT=fin");
    snprintf(dir, sizeof dir, "%s/pe_report_wired.XXXXXX", t && *t ? t : "/tmp");
    CHECKF(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    CHECK(getcwd(cwd, sizeof cwd) && chdir(dir) == 0);

    CHECK(raise(SIGUSR1) == 0); /* a report at the next symheap call that polls */
    shmem_barrier_all();
    snprintf(path, sizeof path, "fin.sig1.%d.txt", me);
    CHECKF(exists(path), "SIGUSR1 then shmem_barrier_all wrote no %s", path);
    rm_report("fin.sig1");

    for (int i = 0; i < 3; i++) leak_a(1000);
    leak_b(200);
    fflush(stderr);
    int saved = dup(2), fd = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
    close(fd);
    shmem_finalize();
    dup2(saved, 2);
    close(saved);

    char *err = slurp("stderr.txt");
    int ok = err != NULL;
    if (ok && me == 0) {
        char want[200];
        snprintf(want, sizeof want, "[pe 0] symheap: leak: 4 blocks (3.1 KiB) still allocated "
                 "at shmem_finalize%s", npes > 1 ? " on every PE" : "");
        ok = strstr(err, want) && strstr(err, "leak:   3 blocks, 2.9 KiB, from shmem_malloc") &&
             strstr(err, "leak:   1 block, 200 B, from shmem_calloc");
    } else if (ok) {
        ok = !strstr(err, "leak:"); /* said once, by PE 0 */
    }
    if (!ok) fprintf(stderr, "[pe %d] pe_report wired: wrong leak report:\n%s", me, err ? err : "");
    snprintf(path, sizeof path, "fin.%d.html", me);
    if (!exists(path)) {
        fprintf(stderr, "[pe %d] pe_report wired: SHMEM_HEAP_REPORT=fin wrote no %s\n", me, path);
        ok = 0;
    }
    free(err);
    unlink("stderr.txt");
    snprintf(path, sizeof path, "fin.%d.txt", me);
    unlink(path);
    snprintf(path, sizeof path, "fin.%d.html", me);
    unlink(path);
    if (chdir(cwd) != 0 || rmdir(dir) != 0) {
        fprintf(stderr, "[pe %d] pe_report wired: %s not empty\n", me, dir);
        ok = 0;
    }
    if (ok && me == 0) printf("pe_report wired: ok with %d PEs\n", npes);
    exit(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc > 1 && !strcmp(argv[1], "wired")) wired_mode();
    default_mode();
    shmem_finalize();
    return 0;
}
