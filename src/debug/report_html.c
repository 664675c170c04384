/* report_html.c - the HTML page of a heap report (see report.h).
 *
 * One self-contained page: inline CSS and SVG, no script, no external
 * resource, well-formed XML (every element closed, only XML's own entities),
 * so it opens in any browser and parses with any XML parser.
 *
 * The heap map draws every block and free range in address order.  Widths are
 * logarithmic in the size (each doubling adds the same few pixels), so a
 * 48-byte object next to a 1 GiB free range both stay visible; the bar wraps
 * into rows like text.  When there are more than MAX_ITEMS pieces, adjacent
 * small blocks of one site are merged into one shape, then (if still too many)
 * adjacent small pieces of any kind into hatched "mixed" shapes; the page says
 * so and each shape's tooltip gives what it holds.  A second bar shows the
 * occupied range to scale, one pixel column = the same number of bytes. */
#include "debug/report.h"
#include "util/log.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ITEMS 3000   /* shapes in the heap map */
#define MAP_LEFT 92      /* row labels */
#define MAP_W 1080       /* one row of the map, and the to-scale bar */
#define ROW_H 24
#define ROW_GAP 8
#define MAX_ROWS 48
#define W_MIN 2.0        /* width of a 16-byte block, px */
#define W_STEP 3.0       /* px added per doubling of the size */
#define LABEL_W 64.0     /* pieces at least this wide get a text label */
#define TABLE_ROWS 1000  /* live blocks listed in the page (all are in the .txt) */
#define LEGEND_SITES 12  /* sites named under the map (all are in the table) */

void shmi_rep_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n') fputc(*s, f);
        }
    }
}

static const char *sz(size_t n, char *buf) { return shmi_fmt_size(n, buf, 32); }

/* ---- Merging -------------------------------------------------------------- */

enum { K_ONE, K_RUN, K_MIX };

struct item {
    size_t first, n;   /* segments [first, first + n) */
    size_t span, maxspan;
    int pure;          /* every segment a live block of the first one's site */
    int kind;
};

/* Pieces after merging: runs of one site whose blocks are all <= t1, and runs
 * of anything whose pieces are all <= t2.  Counts only when out is NULL. */
static size_t merge(const struct shmi_rep *r, size_t t1, size_t t2, struct item *out)
{
    struct item g = { 0 };
    size_t n = 0;
    for (size_t i = 0; i < r->nseg; i++) {
        const struct shmi_rep_seg *s = &r->seg[i];
        size_t m = g.maxspan > s->span ? g.maxspan : s->span;
        int same = g.pure && s->site == r->seg[g.first].site;
        if (g.n && ((same && m <= t1) || m <= t2)) {
            g.n++;
            g.span += s->span;
            g.maxspan = m;
            g.pure = same;
            continue;
        }
        if (g.n && out) out[n - 1] = g;
        g = (struct item){ i, 1, s->span, s->span, s->site >= 0, K_ONE };
        n++;
    }
    if (g.n && out) out[n - 1] = g;
    if (out)
        for (size_t i = 0; i < n; i++)
            out[i].kind = out[i].n == 1 ? K_ONE : out[i].pure ? K_RUN : K_MIX;
    return n;
}

/* Smallest merging that fits MAX_ITEMS: at each size scale T (64 B, then
 * 1.25 times more each step) first runs of one site, then mixed runs. */
static size_t plan(const struct shmi_rep *r, size_t *t1, size_t *t2)
{
    size_t maxspan = 0, n = merge(r, 0, 0, NULL);
    *t1 = *t2 = 0;
    for (size_t i = 0; i < r->nseg; i++)
        if (r->seg[i].span > maxspan) maxspan = r->seg[i].span;
    for (size_t t = 64; n > MAX_ITEMS; t += t / 4) {
        *t1 = t, *t2 = 0;
        if ((n = merge(r, t, 0, NULL)) <= MAX_ITEMS) break;
        *t2 = t;
        if ((n = merge(r, t, t, NULL)) <= MAX_ITEMS || t > maxspan) break;
    }
    return n;
}

/* ---- Page parts ----------------------------------------------------------- */

static void head(const struct shmi_rep *r, FILE *f)
{
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
               "<title>symheap heap report: PE %d of %d, ", r->me, r->npes);
    shmi_rep_escape(f, program_invocation_short_name);
    fputs("</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:20px 28px;"
          "color:#222;max-width:1240px}\n"
          "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 6px}\n"
          ".sub,.note{color:#555}.note{font-size:13px;max-width:1180px}\n"
          "table{border-collapse:collapse;margin:6px 0 10px}\n"
          "td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #e6e6e6;"
          "white-space:nowrap}\n"
          "th{background:#f3f3f3}.l{text-align:left}.m{font-family:monospace}\n"
          ".sw{display:inline-block;width:13px;height:13px;border:1px solid rgba(0,0,0,.25);"
          "vertical-align:-2px;margin-right:4px}\n"
          ".hb{display:inline-block;height:10px;background:#9aa7b8}\n"
          "svg{display:block;margin:4px 0}svg text{font:11px monospace;fill:#333}\n"
          "svg text.in{fill:#111}svg text.inw{fill:#fff}\n"
          "svg .fr{fill:#e3e3e3}svg .qu{fill:#bdbdbd}svg .hx{fill:url(#hatch)}\n"
          "svg g:hover rect{opacity:.72}\n"
          ".hatch{background:repeating-linear-gradient(45deg,#888 0 2px,#ddd 2px 5px)}\n"
          "details{margin:8px 0}summary{cursor:pointer;font-weight:600}\n"
          ".lg{white-space:nowrap;margin-right:14px;font-family:monospace}\n", f);
    for (size_t i = 0; i < r->nsite; i++) fprintf(f, "svg .s%zu{fill:%s}\n", i, r->site[i].colour);
    fputs("</style></head>\n<body>\n", f);
}

static void row(FILE *f, const char *k, const char *v, const char *what)
{
    fprintf(f, "<tr><th class=\"l\">%s</th><td>%s</td><td class=\"l\">%s</td></tr>\n", k, v,
            what);
}

static void summary(const struct shmi_rep *r, FILE *f)
{
    char a[32], b[64];
    fprintf(f, "<h1>symheap heap report: PE %d of %d</h1>\n<p class=\"sub\">", r->me, r->npes);
    shmi_rep_escape(f, program_invocation_short_name);
    fprintf(f, " (pid %ld), %s, SHMEM_CHECKS=", (long)getpid(), r->when);
    shmi_rep_escape(f, r->checks);
    fprintf(f, ", heap at %p</p>\n<table>\n", (void *)r->base);
#define ROWZ(key, v, what) \
    (snprintf(b, sizeof b, "%s (%zu)", sz(v, a), (size_t)(v)), row(f, key, b, what))
    ROWZ("heap size", r->size, "usable bytes");
    ROWZ("used", r->used, "live blocks, with guards and alignment padding");
    ROWZ("free", r->free, r->quar_blocks ? "including the quarantine" : "");
    ROWZ("largest free", r->largest_free, "the biggest block shmem_malloc can return now");
    ROWZ("peak used", r->peak, "high-water mark since shmem_init");
    ROWZ("user bytes", r->user_bytes, "what the program asked for");
    ROWZ("overhead", r->used - r->user_bytes, "guards and alignment padding");
#undef ROWZ
    snprintf(b, sizeof b, "%zu", r->live);
    row(f, "live blocks", b, "");
    snprintf(b, sizeof b, "%zu", r->nfree);
    row(f, "free ranges", b, "");
    if (r->quar_blocks) {
        snprintf(b, sizeof b, "%zu (%s)", r->quar_blocks, sz(r->quar_bytes, a));
        row(f, "quarantined", b, "freed, poisoned, reusable later (SHMEM_CHECKS=full)");
    }
    snprintf(b, sizeof b, "%.4f", r->frag);
    row(f, "fragmentation", b,
        "1 &#8722; largest free / free: 0 means all free space is one range");
    snprintf(b, sizeof b, "%zu (%s, %.1f%%)", r->holes, sz(r->hole_bytes, a),
             r->top ? 100.0 * (double)r->hole_bytes / (double)r->top : 0.0);
    row(f, "holes", b, "free ranges below the end of the last live block, and their share of "
        "that range");
    snprintf(b, sizeof b, "%zu / %zu", r->allocs, r->frees);
    row(f, "allocations / frees", b, "allocator calls since shmem_init");
    fputs("</table>\n", f);
}

static const char *cls(const struct shmi_rep_seg *s, char *buf)
{
    if (s->site == SHMI_REP_FREE) return "fr";
    if (s->site == SHMI_REP_QUAR) return "qu";
    snprintf(buf, 16, "s%d", s->site);
    return buf;
}

/* One line describing segment s, escaped, for tooltips. */
static void seg_title(const struct shmi_rep *r, const struct shmi_rep_seg *s, FILE *f)
{
    char a[32], b[32];
    if (s->site < 0) {
        fprintf(f, "%s %p&#8211;%p, %s (%zu bytes)",
                s->site == SHMI_REP_QUAR ? "quarantined (freed) block" : "free",
                (void *)(r->base + s->off), (void *)(r->base + s->off + s->span),
                sz(s->span, a), s->span);
        return;
    }
    const struct shmi_rep_site *st = &r->site[s->site];
    fprintf(f, "block %p, %s (%zu bytes; %s with guards %u+%u), ", (void *)s->user,
            sz(s->size, a), s->size, sz(s->span, b), s->front, s->back);
    shmi_rep_escape(f, st->op);
    fputs(" at ", f);
    shmi_rep_escape(f, st->where);
}

/* Tooltip of a merged item: its range and what it holds, top three sites. */
static void item_title(const struct shmi_rep *r, const struct item *it, FILE *f)
{
    struct { int site; size_t n, bytes; } top[4] = { { 0 } };
    size_t nt = 0, nfree = 0, fbytes = 0, nblk = 0, lo = SIZE_MAX, hi = 0;
    char a[32], b[32];
    const struct shmi_rep_seg *s0 = &r->seg[it->first];
    for (size_t i = it->first; i < it->first + it->n; i++) {
        const struct shmi_rep_seg *s = &r->seg[i];
        if (s->site < 0) {
            nfree++;
            fbytes += s->span;
            continue;
        }
        nblk++;
        if (s->span < lo) lo = s->span;
        if (s->span > hi) hi = s->span;
        size_t k = 0;
        while (k < nt && top[k].site != s->site) k++;
        if (k == nt && nt < 4) top[nt++].site = s->site;
        if (k < 4) top[k].n++, top[k].bytes += s->span;
    }
    fprintf(f, "%zu pieces merged, %p&#8211;%p, %s: ", it->n, (void *)(r->base + s0->off),
            (void *)(r->base + s0->off + it->span), sz(it->span, a));
    if (nblk) fprintf(f, "%zu blocks of %s&#8211;%s", nblk, sz(lo, a), sz(hi, b));
    if (nfree) fprintf(f, "%s%zu free ranges (%s)", nblk ? ", " : "", nfree, sz(fbytes, a));
    for (size_t k = 0; k < nt && k < 3; k++) {
        fprintf(f, "; %zu from ", top[k].n);
        shmi_rep_escape(f, r->site[top[k].site].op);
        fputs(" at ", f);
        shmi_rep_escape(f, r->site[top[k].site].where);
    }
    if (nt > 3) fputs("; and other sites", f);
}

/* The site holding most bytes of a mixed item (or free / quarantine). */
static int dominant(const struct shmi_rep *r, const struct item *it)
{
    int best = SHMI_REP_FREE;
    size_t bestb = 0;
    for (size_t i = it->first; i < it->first + it->n; i++) {
        size_t b = 0;
        for (size_t j = it->first; j < it->first + it->n; j++)
            if (r->seg[j].site == r->seg[i].site) b += r->seg[j].span;
        if (b > bestb) best = r->seg[i].site, bestb = b;
        if (it->n > 64) break; /* long runs: the first piece's site is close enough */
    }
    return best;
}

/* W_MIN + W_STEP * log2(span / 16), the log2 interpolated linearly between
 * powers of two (monotonic, within 0.09 of the real one; no libm). */
static double width_of(size_t span)
{
    size_t s = span < 16 ? 1 : span / 16;
    int k = 63 - __builtin_clzll((unsigned long long)s);
    double lg = k + ((double)s / (double)((size_t)1 << k) - 1.0);
    return W_MIN + W_STEP * lg;
}

/* Text colour on a fill: white on dark colours. */
static int dark(const char *hex)
{
    unsigned c = (unsigned)strtoul(hex + 1, NULL, 16);
    return 299 * (c >> 16) + 587 * ((c >> 8) & 255) + 114 * (c & 255) < 128000;
}

struct pen {          /* where the next piece of the map goes */
    FILE *f;
    double x;         /* position along the unrolled bar, px */
    int rows;
};

static double row_y(int row) { return 24 + row * (ROW_H + ROW_GAP); }

/* Draw one item as one or more rects (it may wrap to the next rows). */
static void draw(const struct shmi_rep *r, const struct item *it, double w, struct pen *p)
{
    FILE *f = p->f;
    const struct shmi_rep_seg *s0 = &r->seg[it->first];
    int site = it->kind == K_MIX ? dominant(r, it) : s0->site;
    struct shmi_rep_seg tmp = *s0;
    char c[16], a[32];
    tmp.site = site;
    fputs("<g><title>", f);
    if (it->kind == K_ONE) seg_title(r, s0, f);
    else item_title(r, it, f);
    fputs("</title>", f);
    for (double left = w, x0 = p->x; left > 0.05;) {
        int row = (int)(p->x / MAP_W);
        double in = p->x - row * MAP_W, piece = MAP_W - in < left ? MAP_W - in : left;
        double gap = piece >= 2 && left - piece < 0.05 ? 0.5 : 0; /* a seam between shapes */
        if (row >= p->rows) p->rows = row + 1;
        if (in < 0.05) { /* a new row: label it with its offset */
            double frac = w > 0 ? (p->x - x0) / w : 0;
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">+0x%zx</text>",
                    MAP_LEFT - 6, row_y(row) + ROW_H / 2 + 4,
                    s0->off + (size_t)(frac * (double)it->span));
        }
        fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"/>",
                cls(&tmp, c), MAP_LEFT + in, row_y(row), piece - gap, ROW_H);
        if (it->kind == K_MIX || site == SHMI_REP_QUAR)
            fprintf(f, "<rect class=\"hx\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\"/>",
                    MAP_LEFT + in, row_y(row), piece - gap, ROW_H);
        if (piece >= LABEL_W) {
            int white = site >= 0 && dark(r->site[site].colour);
            fprintf(f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">%s%s</text>",
                    white ? "inw" : "in", MAP_LEFT + in + 4, row_y(row) + ROW_H / 2 + 4,
                    site == SHMI_REP_FREE && it->kind == K_ONE ? "free " : "", sz(it->span, a));
        }
        p->x += piece;
        left -= piece;
    }
    fputs("</g>\n", f);
}

/* Swatches under the map: the biggest sites, free, quarantine, merged. */
static void legend(const struct shmi_rep *r, FILE *f, int mixed)
{
    fputs("<p class=\"note\">", f);
    for (size_t i = 0; i < r->nsite && i < LEGEND_SITES; i++) {
        fprintf(f, "<span class=\"lg\"><span class=\"sw\" style=\"background:%s\"></span>",
                r->site[i].colour);
        shmi_rep_escape(f, r->site[i].where);
        fputs("</span> ", f);
    }
    if (r->nsite > LEGEND_SITES)
        fprintf(f, "<span class=\"lg\">%zu more sites below</span> ", r->nsite - LEGEND_SITES);
    fputs("<span class=\"lg\"><span class=\"sw\" style=\"background:#e3e3e3\"></span>free"
          "</span>", f);
    if (r->quar_blocks)
        fputs(" <span class=\"lg\"><span class=\"sw hatch\"></span>quarantined (freed)</span>", f);
    if (mixed)
        fputs(" <span class=\"lg\"><span class=\"sw hatch\"></span>merged pieces of several "
              "kinds</span>", f);
    fputs("</p>\n", f);
}

static void heap_map(const struct shmi_rep *r, FILE *f)
{
    size_t t1, t2, n = plan(r, &t1, &t2);
    struct item *it = malloc((n ? n : 1) * sizeof *it);
    char a[32], b[32];
    if (!it) return;
    merge(r, t1, t2, it);
    double total = 0, scale = 1;
    for (size_t i = 0; i < n; i++) total += width_of(it[i].span);
    if (total < MAP_W) scale = MAP_W / total;                      /* fill one row */
    else if (total > (double)MAP_W * MAX_ROWS) scale = (double)MAP_W * MAX_ROWS / total;
    int rows = (int)((total * scale - 0.05) / MAP_W) + 1;

    fprintf(f, "<h2>Heap map</h2>\n<p class=\"note\">Every live block and free range in "
               "address order, left to right and then row by row; the label on the left is "
               "the row's offset from the heap base, in hex. <b>Widths are logarithmic, not to "
               "scale</b>: a block of 16 bytes is %.1f px wide and each doubling of the size "
               "adds %.1f px, so small blocks stay visible next to large free ranges. Colours "
               "are allocation sites; grey is free. Hover a shape for its address, size and "
               "site.", W_MIN * scale, W_STEP * scale);
    if (t1 || t2) {
        fprintf(f, " <b>Merged:</b> %zu pieces are drawn as %zu shapes: adjacent blocks of one "
                   "site up to %s each are one shape", r->nseg, n, sz(t1, a));
        if (t2)
            fprintf(f, ", and adjacent pieces of any kind up to %s each are one hatched shape "
                       "in the colour of the site with most bytes in it", sz(t2, b));
        fputs("; the tooltip says what each holds.", f);
    }
    fprintf(f, "</p>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
               "role=\"img\" aria-label=\"heap map\">\n<defs><pattern id=\"hatch\" "
               "width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><rect width=\"2\" height=\"6\" "
               "fill=\"rgba(255,255,255,0.55)\"/></pattern></defs>\n",
            MAP_LEFT + MAP_W + 4, row_y(rows) + 4);
    fprintf(f, "<text x=\"%d\" y=\"14\">%p</text><text x=\"%d\" y=\"14\" "
               "text-anchor=\"end\">heap end %p</text>\n", MAP_LEFT, (void *)r->base,
            MAP_LEFT + MAP_W, (void *)(r->base + r->size));
    struct pen p = { f, 0, 0 };
    for (size_t i = 0; i < n; i++) draw(r, &it[i], width_of(it[i].span) * scale, &p);
    fputs("</svg>\n", f);
    legend(r, f, t2 != 0);
    free(it);
}

/* ---- To scale -------------------------------------------------------------- */

struct col { int site[4]; size_t bytes[4]; int n; };

static void col_add(struct col *c, int site, size_t bytes)
{
    for (int k = 0; k < c->n; k++)
        if (c->site[k] == site) {
            c->bytes[k] += bytes;
            return;
        }
    if (c->n < 4) c->site[c->n] = site, c->bytes[c->n++] = bytes;
}

static int col_winner(const struct col *c)
{
    int best = 0;
    for (int k = 1; k < c->n; k++)
        if (c->bytes[k] > c->bytes[best]) best = k;
    return c->n ? c->site[best] : SHMI_REP_FREE;
}

/* Offsets are below 2^47 (what a process can address) and MAP_W below 2^12,
 * so offset * MAP_W fits in 64 bits. */
static void to_scale(const struct shmi_rep *r, FILE *f)
{
    char a[32], b[32], c[16];
    size_t top = r->top;
    fputs("<h2>Occupied range, to scale</h2>\n", f);
    if (!top) {
        fputs("<p class=\"note\">No live blocks.</p>\n", f);
        return;
    }
    struct col *col = calloc(MAP_W, sizeof *col);
    if (!col) return;
    for (size_t i = 0; i < r->nseg && r->seg[i].off < top; i++) {
        const struct shmi_rep_seg *s = &r->seg[i];
        size_t x = s->off, end = s->off + s->span < top ? s->off + s->span : top;
        while (x < end) {
            size_t k = (size_t)((uint64_t)x * MAP_W / top);
            size_t kend = (size_t)(((uint64_t)(k + 1) * top + MAP_W - 1) / MAP_W);
            size_t take = (kend < end ? kend : end) - x;
            col_add(&col[k < MAP_W ? k : MAP_W - 1], s->site, take);
            x += take;
        }
    }
    fprintf(f, "<p class=\"note\">From the heap base to the end of the last live block "
               "(%s of the heap's %s), linear: one pixel column is %s; each column has the "
               "colour of what holds most of its bytes. The rest of the heap, up to its end, "
               "is free.</p>\n", sz(top, a), sz(r->size, b),
            sz((top + MAP_W - 1) / MAP_W, c));
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"58\" "
               "role=\"img\" aria-label=\"occupied range to scale\">\n", MAP_LEFT + MAP_W + 4);
    for (int k = 0; k < MAP_W;) {
        int w = col_winner(&col[k]), j = k + 1;
        while (j < MAP_W && col_winner(&col[j]) == w) j++;
        struct shmi_rep_seg tmp = { .site = w };
        size_t lo = (size_t)((uint64_t)k * top / MAP_W);
        size_t hi = (size_t)((uint64_t)j * top / MAP_W);
        fprintf(f, "<g><title>%p&#8211;%p (+0x%zx&#8211;+0x%zx): mostly ", (void *)(r->base + lo),
                (void *)(r->base + hi), lo, hi);
        if (w >= 0) {
            shmi_rep_escape(f, r->site[w].op);
            fputs(" at ", f);
            shmi_rep_escape(f, r->site[w].where);
        } else {
            fputs(w == SHMI_REP_QUAR ? "quarantined blocks" : "free", f);
        }
        fprintf(f, "</title><rect class=\"%s\" x=\"%d\" y=\"4\" width=\"%d\" height=\"30\"/>"
                   "</g>\n", cls(&tmp, c), MAP_LEFT + k, j - k);
        k = j;
    }
    for (int q = 0; q <= 4; q++)
        fprintf(f, "<text x=\"%d\" y=\"50\" text-anchor=\"%s\">+%s</text>",
                MAP_LEFT + q * MAP_W / 4, q == 0 ? "start" : q == 4 ? "end" : "middle",
                sz((size_t)((uint64_t)top * (unsigned)q / 4), a));
    fputs("\n</svg>\n", f);
    free(col);
}

/* ---- Tables ---------------------------------------------------------------- */

static void sites_table(const struct shmi_rep *r, FILE *f)
{
    char a[32], b[32];
    fprintf(f, "<h2>Allocation sites (%zu)</h2>\n<table>\n<tr><th class=\"l\">site</th>"
               "<th class=\"l\">call</th><th>blocks</th><th>user bytes</th><th>heap bytes</th>"
               "<th>of used</th></tr>\n", r->nsite);
    for (size_t i = 0; i < r->nsite; i++) {
        const struct shmi_rep_site *s = &r->site[i];
        fprintf(f, "<tr><td class=\"l m\"><span class=\"sw\" style=\"background:%s\"></span>",
                s->colour);
        shmi_rep_escape(f, s->where);
        fputs("</td><td class=\"l m\">", f);
        shmi_rep_escape(f, s->op);
        fprintf(f, "</td><td>%zu</td><td>%s</td><td>%s</td><td>%.1f%%</td></tr>\n", s->blocks,
                sz(s->bytes, a), sz(s->span, b),
                r->used ? 100.0 * (double)s->span / (double)r->used : 0.0);
    }
    fputs("<tr><td class=\"l\"><span class=\"sw\" style=\"background:#e3e3e3\"></span>free"
          "</td><td></td>", f);
    fprintf(f, "<td>%zu ranges</td><td></td><td>%s</td><td></td></tr>\n", r->nfree, sz(r->free, a));
    if (r->quar_blocks)
        fprintf(f, "<tr><td class=\"l\"><span class=\"sw hatch\"></span>quarantined</td><td>"
                   "</td><td>%zu</td><td></td><td>%s</td><td></td></tr>\n", r->quar_blocks,
                sz(r->quar_bytes, a));
    fputs("</table>\n", f);
}

static void free_table(const struct shmi_rep *r, FILE *f)
{
    char a[32], b[32], c[32];
    size_t most = 1;
    for (int k = 0; k < SHMI_REP_HIST; k++) if (r->hist_n[k] > most) most = r->hist_n[k];
    fprintf(f, "<h2>Free ranges by size</h2>\n<p class=\"note\">%zu free ranges, %s in all; "
               "largest %s.%s</p>\n<table>\n<tr><th class=\"l\">size class</th><th>ranges"
               "</th><th>bytes</th><th class=\"l\"></th></tr>\n", r->nfree + r->quar_blocks,
            sz(r->free, a), sz(r->largest_free, b),
            r->quar_blocks ? " Quarantined blocks count as free ranges here." : "");
    for (int k = 0; k < SHMI_REP_HIST; k++) {
        if (!r->hist_n[k]) continue;
        fprintf(f, "<tr><td class=\"l\">%s &#8211; %s</td><td>%zu</td><td>%s</td><td class=\"l\">"
                   "<span class=\"hb\" style=\"width:%dpx\"></span></td></tr>\n",
                sz((size_t)1 << k, a), k < 63 ? sz((size_t)1 << (k + 1), b) : "&#8734;",
                r->hist_n[k], sz(r->hist_b[k], c), (int)(1 + 300 * r->hist_n[k] / most));
    }
    fputs("</table>\n", f);
}

static void blocks_table(const struct shmi_rep *r, FILE *f)
{
    char a[32];
    size_t shown = 0;
    fprintf(f, "<details><summary>Live blocks (%zu)%s</summary>\n<table>\n<tr><th class=\"l\">"
               "address</th><th>bytes</th><th>with guards</th><th>guards</th><th class=\"l\">"
               "call</th><th class=\"l\">site</th></tr>\n", r->live,
            r->live > TABLE_ROWS ? ": the first 1000; the .txt report lists all" : "");
    for (size_t i = 0; i < r->nseg && shown < TABLE_ROWS; i++) {
        const struct shmi_rep_seg *s = &r->seg[i];
        if (s->site < 0) continue;
        shown++;
        fprintf(f, "<tr><td class=\"l m\"><span class=\"sw\" style=\"background:%s\"></span>%p"
                   "</td><td>%zu</td><td>%s</td><td>%u+%u</td><td class=\"l m\">",
                r->site[s->site].colour, (void *)s->user, s->size, sz(s->span, a), s->front,
                s->back);
        shmi_rep_escape(f, r->site[s->site].op);
        fputs("</td><td class=\"l m\">", f);
        shmi_rep_escape(f, r->site[s->site].where);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n</details>\n", f);
}

int shmi_rep_html(const struct shmi_rep *r, FILE *f)
{
    head(r, f);
    summary(r, f);
    heap_map(r, f);
    to_scale(r, f);
    sites_table(r, f);
    free_table(r, f);
    blocks_table(r, f);
    fputs("<p class=\"note\">Written by symheap (shmemx_heap_report, SHMEM_HEAP_REPORT or "
          "SIGUSR1); the matching .txt file has the same numbers and every block.</p>\n"
          "</body></html>\n", f);
    if (ferror(f)) {
        if (!errno) errno = EIO;
        return -1;
    }
    return 0;
}
