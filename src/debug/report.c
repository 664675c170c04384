/* report.c - heap reports, the leak report, SIGUSR1 (see report.h).
 *
 * A report starts from a snapshot (struct shmi_rep): one walk of the
 * allocator in address order, each live block turned into the user's view
 * (shmi_ublock_of: user pointer, user size, guards, call site), the sites
 * gathered with their counts, the numbers computed exactly as
 * shmemx_heap_info computes them.  The text page is written here, the HTML
 * page in report_html.c.  Nothing is written into the symmetric heap and
 * nothing is collective: a report never waits for another PE.
 *
 * Call sites are described (file:line through addr2line, which is slow) once
 * per site and cached for the life of the process, never once per block. */
#include "debug/report.h"
#include "debug/debug.h"
#include "core/state.h"
#include "util/err.h"

#include <shmem.h>
#include <symheap/shmemx_debug.h>

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Quarantine of SHMEM_CHECKS=full (mem.c): 1 when the live allocator block at
 * off is a freed block waiting there.  Weak so that this file links before
 * mem.c provides it; without it no block counts as quarantined. */

#define DEFAULT_PREFIX "symheap-heap"

static const char *default_prefix(void)
{
    const char *p = shmi_g.env.HEAP_REPORT;
    return p && *p ? p : DEFAULT_PREFIX;
}

/* ---- Site descriptions (cached by site id) -------------------------------- */

static char **where_cache;
static size_t where_n;

static const char *site_where(unsigned id)
{
    if (id >= where_n) {
        size_t n = where_n ? where_n : 64;
        while (n <= id) n *= 2;
        char **c = realloc(where_cache, n * sizeof *c);
        if (!c) return "unknown site";
        memset(c + where_n, 0, (n - where_n) * sizeof *c);
        where_cache = c;
        where_n = n;
    }
    if (!where_cache[id]) {
        char buf[256];
        where_cache[id] = strdup(shmi_site_describe(shmi_site_ret(id), buf, sizeof buf));
    }
    return where_cache[id] ? where_cache[id] : "unknown site";
}

static void where_cache_free(void)
{
    for (size_t i = 0; i < where_n; i++) free(where_cache[i]);
    free(where_cache);
    where_cache = NULL;
    where_n = 0;
}

/* ---- Colours ---------------------------------------------------------------
 * A site's colour follows from its name (operation + file:line) and the set of
 * sites in the heap, never from addresses or time: the same heap gives the
 * same colours on every PE, and a site keeps its colour from one report to the
 * next unless the ranking below moves it or another site takes its slot.
 * (Hashing alone would give two sites of 5 similar colours too often.)  The
 * 9 sites with the most
 * bytes get 9 well separated hues (Tableau 10 without its grey, which means
 * "free" here), the next 9 their light variants, each site starting at the
 * slot its name hashes to and moving on when that one is taken; further sites
 * get a hue from the hash. */
static const char *const palette[2][9] = {
    { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
      "#ff9da7", "#9c755f" },
    { "#a0cbe8", "#ffbe7d", "#ff9d9a", "#b9e0dc", "#8cd17d", "#f1ce63", "#d4a6c8",
      "#fabfd2", "#d7b5a6" },
};
#define NHUES 9

static uint64_t fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static uint64_t site_hash(const struct shmi_rep_site *s)
{
    return fnv1a(s->where, fnv1a(s->op, 0xcbf29ce484222325ull));
}

/* HSL(hue, 45%, 55%) as #rrggbb, hue from the hash: chroma c = (1 - |2L - 1|) S. */
static void hue_colour(uint64_t h, char out[8])
{
    int hue = (int)(h % 360), sector = hue / 60;
    double c = (1 - 0.1) * 0.45, x = c * (1 - __builtin_fabs((hue % 120) / 60.0 - 1)),
           m = 0.55 - c / 2, rgb[3] = { 0, 0, 0 };
    static const int big[6] = { 0, 1, 1, 2, 2, 0 }, small[6] = { 1, 0, 2, 1, 0, 2 };
    rgb[big[sector]] = c;
    rgb[small[sector]] = x;
    snprintf(out, 8, "#%02x%02x%02x", (int)((rgb[0] + m) * 255 + 0.5),
             (int)((rgb[1] + m) * 255 + 0.5), (int)((rgb[2] + m) * 255 + 0.5));
}

/* Sites must be sorted by bytes (largest first). */
static void assign_colours(struct shmi_rep *r)
{
    for (int ring = 0; ring < 2; ring++) {
        int taken[NHUES] = { 0 };
        for (size_t i = (size_t)ring * NHUES; i < r->nsite && i < (size_t)(ring + 1) * NHUES; i++) {
            size_t c = site_hash(&r->site[i]) % NHUES;
            while (taken[c]) c = (c + 1) % NHUES;
            taken[c] = 1;
            snprintf(r->site[i].colour, sizeof r->site[i].colour, "%s", palette[ring][c]);
        }
    }
    for (size_t i = 2 * NHUES; i < r->nsite; i++)
        hue_colour(site_hash(&r->site[i]), r->site[i].colour);
}

/* ---- Snapshot ------------------------------------------------------------- */

struct walk {
    struct shmi_rep *r;
    size_t segcap, sitecap;
    int *idx;       /* site id -> index in r->site, -1 when not seen yet */
    size_t nidx;
};

static int site_index(struct walk *w, unsigned id)
{
    struct shmi_rep *r = w->r;
    if (id >= w->nidx) {
        size_t n = w->nidx ? w->nidx : 64;
        while (n <= id) n *= 2;
        int *x = realloc(w->idx, n * sizeof *x);
        if (!x) return -1;
        for (size_t i = w->nidx; i < n; i++) x[i] = -1;
        w->idx = x;
        w->nidx = n;
    }
    if (w->idx[id] >= 0) return w->idx[id];
    /* One entry per (operation, file:line): one line of source can have several
     * return addresses (an unrolled loop, a function inlined twice). */
    const char *op = id ? shmi_site_op(id) : "?", *where = site_where(id);
    for (size_t i = 0; i < r->nsite; i++)
        if (!strcmp(r->site[i].where, where) && !strcmp(r->site[i].op, op))
            return w->idx[id] = (int)i;
    if (r->nsite == w->sitecap) {
        size_t n = w->sitecap ? 2 * w->sitecap : 16;
        struct shmi_rep_site *s = realloc(r->site, n * sizeof *s);
        if (!s) return -1;
        r->site = s;
        w->sitecap = n;
    }
    r->site[r->nsite] = (struct shmi_rep_site){ .id = id, .op = op, .where = where };
    return w->idx[id] = (int)r->nsite++;
}

static void add_free(struct shmi_rep *r, size_t span)
{
    int k = 63 - __builtin_clzll((unsigned long long)(span | 1));
    r->hist_n[k]++;
    r->hist_b[k] += span;
}

static int visit(const struct shmi_block_info *bi, void *arg)
{
    struct walk *w = arg;
    struct shmi_rep *r = w->r;
    if (r->nseg == w->segcap) {
        size_t n = w->segcap ? 2 * w->segcap : 1024;
        struct shmi_rep_seg *s = realloc(r->seg, n * sizeof *s);
        if (!s) return SHMI_ENOMEM;
        r->seg = s;
        w->segcap = n;
    }
    struct shmi_rep_seg *s = &r->seg[r->nseg];
    *s = (struct shmi_rep_seg){ .off = bi->off, .span = bi->span, .site = SHMI_REP_FREE };
    if (bi->live && shmi_mem_quarantined(bi->off)) {
        s->site = SHMI_REP_QUAR;
        r->quar_blocks++;
        r->quar_bytes += bi->span;
        add_free(r, bi->span);
    } else if (bi->live) {
        struct shmi_ublock ub;
        shmi_ublock_of(bi, &ub);
        int i = site_index(w, ub.site);
        if (i < 0) return SHMI_ENOMEM;
        *s = (struct shmi_rep_seg){ bi->off, bi->span, ub.size, ub.user, (unsigned)ub.front,
                                    (unsigned)ub.back, i };
        struct shmi_rep_site *st = &r->site[i];
        if (!st->blocks) st->first = ub.user;
        st->blocks++;
        st->bytes += ub.size;
        st->span += bi->span;
        r->user_bytes += ub.size;
        r->top = bi->off + bi->span;
    } else {
        add_free(r, bi->span);
    }
    r->nseg++;
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    const struct shmi_rep_site *x = a, *y = b;
    if (x->span != y->span) return x->span < y->span ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

static void rep_release(struct shmi_rep *r)
{
    free(r->seg);
    free(r->site);
    r->seg = NULL;
    r->site = NULL;
}

/* Fill *r from the allocator; 0 or SHMI_ENOMEM (r released). */
static int rep_snapshot(struct shmi_rep *r)
{
    struct walk w = { .r = r };
    struct shmi_alloc_stats st;
    *r = (struct shmi_rep){ .me = shmi_g.me, .npes = shmi_g.npes, .base = shmi_g.host.base,
                            .checks = shmi_g.env.CHECKS ? shmi_g.env.CHECKS : "cheap" };
    int rc = shmi_alloc_foreach(shmi_g.host.alloc, visit, &w);
    free(w.idx);
    if (rc) {
        rep_release(r);
        return SHMI_ENOMEM;
    }
    /* Site indices are in the segments: sort a copy's order, then remap. */
    int *remap = malloc((r->nsite + 1) * sizeof *remap);
    if (!remap) {
        rep_release(r);
        return SHMI_ENOMEM;
    }
    for (size_t i = 0; i < r->nsite; i++) r->site[i].order = (int)i;
    if (r->nsite) qsort(r->site, r->nsite, sizeof *r->site, by_bytes);
    for (size_t i = 0; i < r->nsite; i++) remap[r->site[i].order] = (int)i;
    for (size_t i = 0; i < r->nseg; i++)
        if (r->seg[i].site >= 0) r->seg[i].site = remap[r->seg[i].site];
    free(remap);
    assign_colours(r);

    /* The numbers exactly as shmemx_heap_info gives them. */
    shmi_alloc_stats(shmi_g.host.alloc, &st);
    r->size = st.size;
    r->used = st.used - r->quar_bytes;
    r->free = st.free + r->quar_bytes;
    r->largest_free = st.largest_free;
    r->peak = st.peak_used;
    r->live = st.live_blocks - r->quar_blocks;
    r->nfree = st.free_ranges;
    r->allocs = st.allocs;
    r->frees = st.frees;
    r->frag = r->free ? 1.0 - (double)r->largest_free / (double)r->free : 0.0;
    for (size_t i = 0; i < r->nseg && r->seg[i].off < r->top; i++)
        if (r->seg[i].site < 0) r->holes++, r->hole_bytes += r->seg[i].span;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm)) strftime(r->when, sizeof r->when, "%Y-%m-%d %H:%M:%S %Z", &tm);
    return 0;
}

/* ---- Text page ------------------------------------------------------------ */

static void num(FILE *f, const char *key, size_t v, const char *what)
{
    char h[32];
    fprintf(f, "%-16s %zu bytes (%s)%s%s\n", key, v, shmi_fmt_size(v, h, sizeof h),
            what ? ": " : "", what ? what : "");
}

static void txt_summary(const struct shmi_rep *r, FILE *f)
{
    char h[32];
    fprintf(f, "symheap heap report\n");
    fprintf(f, "%-16s %d of %d\n", "pe", r->me, r->npes);
    fprintf(f, "%-16s %s (pid %ld)\n", "program", program_invocation_short_name, (long)getpid());
    fprintf(f, "%-16s %s\n", "time", r->when);
    fprintf(f, "%-16s %s (SHMEM_CHECKS)\n", "checks", r->checks);
    fprintf(f, "%-16s %p\n", "heap base", (void *)r->base);
    num(f, "heap size", r->size, "usable bytes");
    num(f, "used", r->used, "live blocks, with guards and alignment padding");
    num(f, "free", r->free, NULL);
    num(f, "largest free", r->largest_free, "the biggest block shmem_malloc can return now");
    num(f, "peak used", r->peak, NULL);
    fprintf(f, "%-16s %zu\n", "live blocks", r->live);
    num(f, "user bytes", r->user_bytes, "what the program asked for");
    num(f, "overhead", r->used - r->user_bytes, "guards and alignment padding");
    fprintf(f, "%-16s %zu\n", "free ranges", r->nfree);
    if (r->quar_blocks)
        fprintf(f, "%-16s %zu blocks, %zu bytes: freed, poisoned, reusable later "
                "(SHMEM_CHECKS=full); counted as free\n", "quarantined", r->quar_blocks,
                r->quar_bytes);
    fprintf(f, "%-16s %.4f (1 - largest free / free; 0 = all free space in one range)\n",
            "fragmentation", r->frag);
    fprintf(f, "%-16s %zu ranges, %zu bytes (%s, %.1f%% of the %zu bytes up to the end of the "
            "last live block)\n", "holes", r->holes, r->hole_bytes,
            shmi_fmt_size(r->hole_bytes, h, sizeof h),
            r->top ? 100.0 * (double)r->hole_bytes / (double)r->top : 0.0, r->top);
    fprintf(f, "%-16s %zu allocations, %zu frees (allocator calls since shmem_init)\n",
            "history", r->allocs, r->frees);
}

static void txt_sites(const struct shmi_rep *r, FILE *f)
{
    char h[32];
    fprintf(f, "\nallocation sites of the live blocks (%zu), most heap bytes first\n", r->nsite);
    fprintf(f, "  %8s %14s %14s %10s  %-24s %s\n", "blocks", "user bytes", "heap bytes", "",
            "call", "site");
    for (size_t i = 0; i < r->nsite; i++) {
        const struct shmi_rep_site *s = &r->site[i];
        fprintf(f, "  %8zu %14zu %14zu %10s  %-24s %s\n", s->blocks, s->bytes, s->span,
                shmi_fmt_size(s->span, h, sizeof h), s->op, s->where);
    }
}

static void txt_blocks(const struct shmi_rep *r, FILE *f)
{
    fprintf(f, "\nlive blocks (%zu), address order: user address, user bytes, heap bytes "
            "(span), front+back guard, call, site\n", r->live);
    for (size_t i = 0; i < r->nseg; i++) {
        const struct shmi_rep_seg *s = &r->seg[i];
        if (s->site < 0) continue;
        const struct shmi_rep_site *st = &r->site[s->site];
        fprintf(f, "  %p %12zu %12zu %4u+%-4u %-24s %s\n", (void *)s->user, s->size, s->span,
                s->front, s->back, st->op, st->where);
    }
}

static int by_span_desc(const void *a, const void *b)
{
    const struct shmi_rep_seg *x = *(struct shmi_rep_seg *const *)a;
    const struct shmi_rep_seg *y = *(struct shmi_rep_seg *const *)b;
    if (x->span != y->span) return x->span < y->span ? 1 : -1;
    return (x->off > y->off) - (x->off < y->off);
}

static void txt_free(const struct shmi_rep *r, FILE *f)
{
    char lo[32], hi[32], b[32];
    fprintf(f, "\nfree ranges: %zu, %zu bytes (%s)%s\n", r->nfree + r->quar_blocks, r->free,
            shmi_fmt_size(r->free, b, sizeof b), r->quar_blocks ? ", quarantine included" : "");
    fprintf(f, "  %-24s %10s %14s\n", "size class", "ranges", "bytes");
    for (int k = 0; k < SHMI_REP_HIST; k++) {
        if (!r->hist_n[k]) continue;
        fprintf(f, "  [%9s, %9s) %10zu %14zu\n", shmi_fmt_size((size_t)1 << k, lo, sizeof lo),
                k < 63 ? shmi_fmt_size((size_t)1 << (k + 1), hi, sizeof hi) : "inf",
                r->hist_n[k], r->hist_b[k]);
    }
    /* The largest few, with addresses: where a big block would go. */
    const struct shmi_rep_seg *top[10];
    size_t n = 0;
    for (size_t i = 0; i < r->nseg; i++) {
        if (r->seg[i].site >= 0) continue;
        if (n < 10) top[n++] = &r->seg[i];
        else if (r->seg[i].span > top[9]->span) top[9] = &r->seg[i];
        else continue;
        qsort(top, n, sizeof *top, by_span_desc);
    }
    fprintf(f, "largest free ranges\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  %p %14zu %10s%s\n", (void *)(r->base + top[i]->off), top[i]->span,
                shmi_fmt_size(top[i]->span, b, sizeof b),
                top[i]->site == SHMI_REP_QUAR ? "  (quarantined block)" : "");
}

static int write_txt(const struct shmi_rep *r, FILE *f)
{
    txt_summary(r, f);
    txt_sites(r, f);
    txt_blocks(r, f);
    txt_free(r, f);
    return ferror(f) ? -1 : 0;
}

/* ---- Files ---------------------------------------------------------------- */

/* Whether path may receive a report: absent, or a regular file of ours.
 * Never a symbolic link (another user's link in a shared directory such as
 * /tmp would make us overwrite whatever it points to), nor another user's
 * file (planted to read the report).  0, or -1 with *why set. */
static int target_ok(const char *path, char *why, size_t len)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, len, "it is a symbolic link, which a report never follows: remove it or "
                 "choose another prefix (SHMEM_HEAP_REPORT)");
        return -1;
    }
    if (st.st_uid != geteuid()) {
        struct passwd *pw = getpwuid(st.st_uid);
        snprintf(why, len, "it belongs to %s%s%s (uid %u), not to this user (uid %u): not "
                 "replacing another user's file; remove it or choose another prefix "
                 "(SHMEM_HEAP_REPORT)", pw ? "user '" : "another user", pw ? pw->pw_name : "",
                 pw ? "'" : "", (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "it exists and is not a regular file");
        return -1;
    }
    return 0;
}

/* Write one file with fn; 0, or -1 after a warning.  Safely in a shared
 * directory (issue 17): the report goes into a new file that only we can
 * read (mkstemp: O_CREAT|O_EXCL, mode 0600) in the target's directory, which
 * then replaces the target with rename, which never follows a link; a target
 * that is a link or another user's file is refused with the reason. */
static int write_file(const struct shmi_rep *r, const char *prefix, const char *ext,
                      int (*fn)(const struct shmi_rep *, FILE *))
{
    char *path = NULL, *tmp = NULL, why[256] = "";
    if (asprintf(&path, "%s.%d.%s", prefix, r->me, ext) < 0 ||
        asprintf(&tmp, "%s.XXXXXX", path) < 0) {
        shmi_log_warn("heap report %s.%d.%s: out of memory", prefix, r->me, ext);
        free(path);
        return -1;
    }
    int rc = -1, fd = -1;
    FILE *f = NULL;
    if (target_ok(path, why, sizeof why) != 0) goto out;
    if ((fd = mkstemp(tmp)) < 0 || !(f = fdopen(fd, "w"))) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        goto out;
    }
    errno = 0;
    rc = fn(r, f);
    int err = errno ? errno : EIO;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc == 0 && target_ok(path, why, sizeof why) != 0) rc = -1; /* planted meanwhile */
    else if (rc == 0 && rename(tmp, path) != 0) rc = -1, err = errno;
    if (rc) {
        if (!why[0]) snprintf(why, sizeof why, "%s", strerror(err));
        unlink(tmp);
    }
out:
    if (rc) shmi_log_warn("heap report: cannot write %s: %s", path, why);
    free(path);
    free(tmp);
    return rc;
}

int shmi_report_write(const char *prefix)
{
    struct shmi_rep r;
    if (!shmi_g.host.alloc) return -1;
    if (rep_snapshot(&r) != 0) {
        shmi_log_warn("heap report %s.%d: out of memory for the snapshot", prefix, shmi_g.me);
        return -1;
    }
    int rc = write_file(&r, prefix, "txt", write_txt);
    if (rc == 0) rc = write_file(&r, prefix, "html", shmi_rep_html);
    rep_release(&r);
    return rc;
}

/* ---- Leaks ---------------------------------------------------------------- */

#define LEAK_SITES 16 /* lines for sites; more are summed in one line */

static int internal_site(const struct shmi_rep_site *s)
{
    return s->op && !strncmp(s->op, "shmi_", 5);
}

void shmi_report_leaks(void)
{
    struct shmi_rep r;
    char h[32];
    if (shmi_checks == SHMI_CHECKS_OFF || !shmi_g.host.alloc || shmi_g.me != 0) return;
    if (rep_snapshot(&r) != 0) return;
    size_t blocks = 0, bytes = 0, nsite = 0, shown = 0, mb = 0, mbytes = 0;
    for (size_t i = 0; i < r.nsite; i++)
        if (!internal_site(&r.site[i])) {
            blocks += r.site[i].blocks;
            bytes += r.site[i].bytes;
            nsite++;
        }
    if (blocks) {
        shmi_log_info("leak: %zu block%s (%s) still allocated at shmem_finalize%s; free them "
                      "with shmem_free before shmem_finalize", blocks, blocks == 1 ? "" : "s",
                      shmi_fmt_size(bytes, h, sizeof h), r.npes > 1 ? " on every PE" : "");
        for (size_t i = 0; i < r.nsite; i++) {
            const struct shmi_rep_site *s = &r.site[i];
            if (internal_site(s)) continue;
            if (shown++ < LEAK_SITES || nsite <= LEAK_SITES + 1) {
                shmi_log_info("leak:   %zu block%s, %s, from %s at %s (first at %p)", s->blocks,
                              s->blocks == 1 ? "" : "s", shmi_fmt_size(s->bytes, h, sizeof h),
                              s->op, s->where, (void *)s->first);
            } else {
                mb += s->blocks;
                mbytes += s->bytes;
            }
        }
        if (mb)
            shmi_log_info("leak:   and %zu more sites: %zu blocks, %s", nsite - LEAK_SITES, mb,
                          shmi_fmt_size(mbytes, h, sizeof h));
        if (!shmi_g.env.HEAP_REPORT || !*shmi_g.env.HEAP_REPORT)
            shmi_log_info("leak: SHMEM_HEAP_REPORT=<prefix> lists every block with its site "
                          "in <prefix>.<pe>.txt");
    }
    rep_release(&r);
}

/* ---- SIGUSR1 -------------------------------------------------------------- */

/* The handler only stores to a lock-free atomic: async-signal-safe. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the SIGUSR1 flag must be lock-free");
static struct sigaction usr1_old;
static int usr1_installed;
static unsigned sig_reports;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_store_explicit(&shmi_poll_pending, 1, memory_order_relaxed);
}

void shmi_report_install_signal(void)
{
    struct sigaction cur, sa;
    if (usr1_installed || sigaction(SIGUSR1, NULL, &cur) != 0) return;
    if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL) {
        shmi_log_debug("SIGUSR1 has a handler of the program's: heap reports on SIGUSR1 are off");
        return;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, &usr1_old) == 0) usr1_installed = 1;
}

static void remove_signal(void)
{
    struct sigaction cur;
    if (!usr1_installed) return;
    usr1_installed = 0;
    /* Only if it is still ours: the program may have installed its own since. */
    if (sigaction(SIGUSR1, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
        cur.sa_handler == on_usr1)
        sigaction(SIGUSR1, &usr1_old, NULL);
}

/* A directory only this user can use: ours, a directory, not a link, no
 * access for group or others. */
static int private_dir(const char *d)
{
    struct stat st;
    return lstat(d, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           !(st.st_mode & 077);
}

/* Where SIGUSR1's reports go when SHMEM_HEAP_REPORT is not set: somewhere
 * private to the user, never the working directory (which may be /tmp):
 * $XDG_RUNTIME_DIR when it is private, else ${TMPDIR:-/tmp}/symheap-<uid>,
 * made with mode 0700 and checked to be ours.  0, or -1 with a warning. */
static int sig_prefix(char *buf, size_t len)
{
    const char *p = shmi_g.env.HEAP_REPORT, *x = getenv("XDG_RUNTIME_DIR"), *t;
    if (p && *p) return snprintf(buf, len, "%s", p) < (int)len ? 0 : -1;
    if (x && x[0] == '/' && private_dir(x))
        return snprintf(buf, len, "%s/%s", x, DEFAULT_PREFIX) < (int)len ? 0 : -1;
    t = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/symheap-%u", t && t[0] == '/' ? t : "/tmp", (unsigned)geteuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        shmi_log_warn("heap report (SIGUSR1): cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!private_dir(dir)) {
        shmi_log_warn("heap report (SIGUSR1): %s is not a directory of this user's that only it "
                      "can use (a link, another user's, or open to others): not writing there; "
                      "set SHMEM_HEAP_REPORT to a prefix of your own", dir);
        return -1;
    }
    return snprintf(buf, len, "%s/%s", dir, DEFAULT_PREFIX) < (int)len ? 0 : -1;
}

void shmi_report_poll_slow(void)
{
    char prefix[4096], base[4000];
    if (!atomic_exchange(&shmi_poll_pending, 0) || !shmi_g.host.alloc) return;
    if (sig_prefix(base, sizeof base) != 0) return;
    snprintf(prefix, sizeof prefix, "%s.sig%u", base, ++sig_reports);
    if (shmi_report_write(prefix) == 0)
        shmi_log_info("heap report (SIGUSR1): %s.%d.html and .txt", prefix, shmi_g.me);
}

void shmi_report_fini(void)
{
    const char *p = shmi_g.env.HEAP_REPORT;
    remove_signal();
    atomic_store(&shmi_poll_pending, 0);
    if (p && *p && shmi_report_write(p) == 0 && shmi_g.me == 0)
        shmi_log_info("heap report: %s.<pe>.html and .txt, one per PE", p);
    shmi_report_leaks();
    where_cache_free();
}

/* shmemx_heap_report's work (api/mem.c): prefix NULL or "" for the default. */
int shmi_report_write_default(const char *prefix)
{
    return shmi_report_write(prefix && *prefix ? prefix : default_prefix());
}
