/* dist_cache.c - a local read cache for remote data (brief §4.4.3: "if a PE
 * reads another PE's data often, copy it to local memory").
 *
 * Lines of line_bytes (a power of two), tagged (pe, line address), in a
 * 4-way set-associative table with LRU replacement; all private memory.
 * A miss fetches the whole line with one shmem_getmem (clipped to the
 * symmetric segment), a hit is a memcpy.  Whether the peer is on this node or
 * another one only changes what a miss costs (a memcpy, or a network round
 * trip: the cache pays off most across nodes).  Lines inside lazy arrays are
 * read as shmemx_lazy_get reads them: never-filled blocks computed here, so a
 * miss never faults a block in on another node.
 *
 * Staleness: SHMEMX_CACHE_UNTIL_BARRIER stamps each line with the world
 * team's barrier count (team.h: every shmem_barrier_all, shmem_sync_all and
 * world-team collective bumps it) at fetch time; a line from before the latest
 * barrier is stale.  That is the OpenSHMEM ordering rule: a peer's writes
 * are guaranteed visible to us only after a synchronization, and a barrier
 * is the synchronization most programs use between a write phase and a read
 * phase.  Programs that synchronize otherwise (wait_until, signals) use
 * SHMEMX_CACHE_MANUAL and invalidate/refresh themselves. */
#include "ext/dist/dist_impl.h"
#include "core/team.h"

#include <stdlib.h>
#include <string.h>

#define WAYS 4

/* Barriers completed on SHMEM_TEAM_WORLD so far. */
static uint64_t barriers(void) { return SHMEM_TEAM_WORLD->epoch; }

struct line {
    uintptr_t addr;   /* line-aligned symmetric address */
    int pe;           /* -1: empty */
    uint64_t epoch;   /* barrier count when fetched */
    uint64_t stamp;   /* LRU clock */
    size_t lo, hi;    /* fetched bytes [lo, hi) of the line (segment clip) */
};

struct shmemx_cache_s {
    size_t line, nsets;
    int policy;
    uint64_t clock;
    struct line *l;   /* [nsets * WAYS] */
    char *data;       /* [nsets * WAYS * line] */
    shmemx_cache_stats_t st;
};

shmemx_cache_t shmemx_cache_create(size_t capacity_bytes, size_t line_bytes, int policy)
{
    static const char fn[] = "shmemx_cache_create";
    shmi_check_running(fn);
    size_t line = line_bytes ? line_bytes : 4096;
    if (line & (line - 1) || line > ((size_t)1 << 30))
        shmi_fatal("%s: line_bytes=%zu is not a power of two up to 1 GiB: use e.g. 64, 4096 or "
                   "65536 (0 means 4096)", fn, line_bytes);
    if (policy != SHMEMX_CACHE_MANUAL && policy != SHMEMX_CACHE_UNTIL_BARRIER)
        shmi_fatal("%s: policy=%d is not a policy: use SHMEMX_CACHE_MANUAL or "
                   "SHMEMX_CACHE_UNTIL_BARRIER", fn, policy);
    size_t nsets = capacity_bytes / line / WAYS;
    if (nsets == 0) nsets = 1;
    struct shmemx_cache_s *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->line = line;
    c->nsets = nsets;
    c->policy = policy;
    c->l = calloc(nsets * WAYS, sizeof *c->l);
    c->data = malloc(nsets * WAYS * line);
    if (!c->l || !c->data) {
        shmemx_cache_destroy(c);
        return NULL;
    }
    for (size_t i = 0; i < nsets * WAYS; i++) c->l[i].pe = -1;
    return c;
}

void shmemx_cache_destroy(shmemx_cache_t c)
{
    if (!c) return;
    free(c->l);
    free(c->data);
    free(c);
}

static struct line *set_of(shmemx_cache_t c, uintptr_t a, int pe)
{
    uint64_t h = (uint64_t)(a / c->line) + (uint64_t)pe * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull; /* murmur3 fmix64 */
    h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return c->l + (size_t)(h % c->nsets) * WAYS;
}

static char *data_of(shmemx_cache_t c, struct line *l) { return c->data + (size_t)(l - c->l) * c->line; }

static int fresh(shmemx_cache_t c, const struct line *l)
{
    return c->policy == SHMEMX_CACHE_MANUAL || l->epoch == barriers();
}

/* Fetch the line at a of PE pe into l, clipped to the segment that holds
 * the symmetric address `in` (inside the line). */
static void fetch(shmemx_cache_t c, struct line *l, uintptr_t a, uintptr_t in, int pe)
{
    const struct shmi_tp *tp = &shmi_g.tp;
    int s = shmi_tp_seg_of(tp, (void *)in, 0);
    uintptr_t lo = a, hi = a + c->line;
    if (s >= 0) {
        if (lo < tp->seg[s].base) lo = tp->seg[s].base;
        if (hi > tp->seg[s].base + tp->seg[s].size) hi = tp->seg[s].base + tp->seg[s].size;
    }
    shmi_lazy_getmem(data_of(c, l) + (lo - a), (void *)lo, hi - lo, pe); /* lazy-aware */
    *l = (struct line){ a, pe, barriers(), ++c->clock, lo - a, hi - a };
    c->st.bytes_fetched += hi - lo;
}

/* The line at a (holding address in) of PE pe, fetched if missing or stale. */
static struct line *lookup(shmemx_cache_t c, uintptr_t a, uintptr_t in, int pe)
{
    struct line *set = set_of(c, a, pe), *victim = set;
    for (int w = 0; w < WAYS; w++) {
        struct line *l = &set[w];
        if (l->pe == pe && l->addr == a) {
            if (fresh(c, l)) {
                c->st.hits++;
                l->stamp = ++c->clock;
                return l;
            }
            c->st.invalidations++;
            victim = l;
            break;
        }
        if (victim->pe >= 0 && (l->pe < 0 || l->stamp < victim->stamp)) victim = l;
    }
    c->st.misses++;
    fetch(c, victim, a, in, pe);
    return victim;
}

static void check_call(const char *fn, shmemx_cache_t c, const char *what, const void *sym,
                       size_t n, int pe)
{
    shmi_check_pe(fn, pe);
    if (!c) shmi_fatal("%s: c is NULL: pass the handle shmemx_cache_create returned", fn);
    shmi_sym(fn, what, sym, n, pe); /* symmetric and in bounds */
}

void shmemx_cache_getmem(shmemx_cache_t c, void *dest, const void *source, size_t nbytes, int pe)
{
    check_call("shmemx_cache_getmem", c, "source", source, nbytes, pe);
    if (pe == shmi_g.me) { /* our own memory: nothing to save */
        shmem_getmem(dest, source, nbytes, pe);
        return;
    }
    char *out = dest;
    uintptr_t s = (uintptr_t)source;
    while (nbytes) {
        uintptr_t a = s & ~(uintptr_t)(c->line - 1);
        size_t off = s - a, n = shmi_min(c->line - off, nbytes);
        uint64_t misses = c->st.misses;
        struct line *l = lookup(c, a, s, pe);
        memcpy(out, data_of(c, l) + off, n);
        if (c->st.misses == misses) c->st.bytes_saved += n;
        out += n;
        s += n;
        nbytes -= n;
    }
}

/* Call fn on every cached line overlapping [sym, sym + n) of pe. */
static void overlapping(shmemx_cache_t c, uintptr_t s, size_t n, int pe,
                        void (*fn)(shmemx_cache_t, struct line *, uintptr_t, size_t, const char *),
                        const char *src)
{
    uintptr_t end = s + n;
    for (uintptr_t a = s & ~(uintptr_t)(c->line - 1); a < end; a += c->line) {
        struct line *set = set_of(c, a, pe);
        for (int w = 0; w < WAYS; w++)
            if (set[w].pe == pe && set[w].addr == a) fn(c, &set[w], s, n, src);
    }
}

static void write_line(shmemx_cache_t c, struct line *l, uintptr_t s, size_t n, const char *src)
{
    uintptr_t lo = l->addr + l->lo > s ? l->addr + l->lo : s;
    uintptr_t hi = l->addr + l->hi < s + n ? l->addr + l->hi : s + n;
    if (lo < hi) memcpy(data_of(c, l) + (lo - l->addr), src + (lo - s), hi - lo);
}

static void drop_line(shmemx_cache_t c, struct line *l, uintptr_t s, size_t n, const char *src)
{
    (void)s, (void)n, (void)src;
    l->pe = -1;
    c->st.invalidations++;
}

void shmemx_cache_putmem(shmemx_cache_t c, void *dest, const void *source, size_t nbytes, int pe)
{
    check_call("shmemx_cache_putmem", c, "dest", dest, nbytes, pe);
    shmem_putmem(dest, source, nbytes, pe);
    if (pe != shmi_g.me && nbytes) overlapping(c, (uintptr_t)dest, nbytes, pe, write_line, source);
}

void shmemx_cache_invalidate_range(shmemx_cache_t c, const void *source, size_t nbytes, int pe)
{
    check_call("shmemx_cache_invalidate_range", c, "source", source, nbytes, pe);
    if (nbytes) overlapping(c, (uintptr_t)source, nbytes, pe, drop_line, NULL);
}

static void check_cache(const char *fn, shmemx_cache_t c)
{
    shmi_check_running(fn);
    if (!c) shmi_fatal("%s: c is NULL: pass the handle shmemx_cache_create returned", fn);
}

void shmemx_cache_invalidate(shmemx_cache_t c)
{
    check_cache("shmemx_cache_invalidate", c);
    for (size_t i = 0; i < c->nsets * WAYS; i++)
        if (c->l[i].pe >= 0) drop_line(c, &c->l[i], 0, 0, NULL);
}

void shmemx_cache_refresh(shmemx_cache_t c)
{
    check_cache("shmemx_cache_refresh", c);
    for (size_t i = 0; i < c->nsets * WAYS; i++)
        if (c->l[i].pe >= 0)
            fetch(c, &c->l[i], c->l[i].addr, c->l[i].addr + c->l[i].lo, c->l[i].pe);
}

void shmemx_cache_stats(shmemx_cache_t c, shmemx_cache_stats_t *st)
{
    if (c && st) *st = c->st;
}
