/* debug.c - call sites, guard zones and address origins (see debug.h). */
#include "debug/debug.h"
#include "core/state.h"
#include "debug/report.h" /* shmi_report_poll_slow */
#include "util/err.h"
#include "util/exe.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

/* ---- Call sites --------------------------------------------------------- */

#define SITE_MAX 4096 /* power of two; open addressing on the return address */
static struct site { void *ret; const char *op; } sites[SITE_MAX];
static uint32_t site_ids[SITE_MAX]; /* hash slot -> id (1-based into order[]) */
static uint32_t site_order[SITE_MAX];
static uint32_t nsites;

uint32_t shmi_site_intern(void *ret, const char *op)
{
    uintptr_t h = ((uintptr_t)ret * 0x9E3779B97F4A7C15ull) >> 20;
    for (uint32_t i = 0; i < SITE_MAX; i++) {
        uint32_t slot = (uint32_t)(h + i) & (SITE_MAX - 1);
        if (site_ids[slot] && sites[slot].ret == ret && sites[slot].op == op)
            return site_ids[slot];
        if (!site_ids[slot]) {
            if (nsites + 1 >= SITE_MAX) return 0; /* table full: "unknown site" */
            sites[slot] = (struct site){ ret, op };
            site_order[++nsites] = slot;
            site_ids[slot] = nsites;
            return nsites;
        }
    }
    return 0;
}

void *shmi_site_ret(uint32_t id) { return id && id <= nsites ? sites[site_order[id]].ret : NULL; }
const char *shmi_site_op(uint32_t id) { return id && id <= nsites ? sites[site_order[id]].op : "?"; }

/* addr2line on the object containing ret; 0 when it gave a file:line. */
static int addr2line(const Dl_info *di, void *ret, char *buf, size_t len)
{
    char cmd[1024], line[512] = "", func[256] = "";
    uintptr_t rel = (uintptr_t)ret - 1 - (uintptr_t)di->dli_fbase;
    if (strchr(di->dli_fname, '\'')) return -1;
    snprintf(cmd, sizeof cmd, "addr2line -f -e '%s' 0x%lx 2>/dev/null", di->dli_fname,
             (unsigned long)rel);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    if (!fgets(func, sizeof func, p) || !fgets(line, sizeof line, p)) line[0] = 0;
    pclose(p);
    func[strcspn(func, "\n")] = 0;
    line[strcspn(line, "\n (")] = 0;
    if (!line[0] || line[0] == '?') return -1;
    const char *base = strrchr(line, '/');
    snprintf(buf, len, "%s (%s)", base ? base + 1 : line, func[0] && func[0] != '?' ? func : "?");
    return 0;
}

char *shmi_site_describe(void *ret, char *buf, size_t len)
{
    Dl_info di;
    if (!ret) {
        snprintf(buf, len, "unknown site");
        return buf;
    }
    if (!dladdr(ret, &di) || !di.dli_fname) {
        snprintf(buf, len, "%p", ret);
        return buf;
    }
    if (addr2line(&di, ret, buf, len) == 0) return buf;
    const char *obj = strrchr(di.dli_fname, '/');
    obj = obj ? obj + 1 : di.dli_fname;
    if (di.dli_sname)
        snprintf(buf, len, "%s+0x%lx (%s)", di.dli_sname,
                 (unsigned long)((uintptr_t)ret - (uintptr_t)di.dli_saddr), obj);
    else
        snprintf(buf, len, "%s+0x%lx", obj, (unsigned long)((uintptr_t)ret - (uintptr_t)di.dli_fbase));
    return buf;
}

char *shmi_site_of_pe(uint64_t site, uint64_t bias, char *buf, size_t len)
{
    buf[0] = 0;
    if (!site) return buf;
    /* The same program runs on every PE.  Same load address (symrun starts
     * PEs without address randomization): the address is ours too.  Else
     * move it from that PE's executable to ours, if it lies in it. */
    uintptr_t mine = shmi_exe_bias(), ret = (uintptr_t)(site - bias + mine);
    if (bias != mine && !shmi_exe_contains(ret)) return buf;
    static uintptr_t last;      /* one site resolved again and again: PEs 1-63 */
    static char where[200];
    if (ret != last) {
        shmi_site_describe((void *)ret, where, sizeof where);
        last = ret;
    }
    snprintf(buf, len, " at %s", where);
    return buf;
}

/* ---- Guard zones -------------------------------------------------------- */

size_t shmi_guard_front(size_t align)
{
    if (shmi_checks == SHMI_CHECKS_OFF) return 0;
    if (align <= SHMI_GUARD) return SHMI_GUARD;
    return align <= 4096 ? align : 0;
}

size_t shmi_guard_back(void) { return shmi_checks == SHMI_CHECKS_OFF ? 0 : SHMI_GUARD; }

void shmi_ublock_of(const struct shmi_block_info *bi, struct shmi_ublock *ub)
{
    ub->off = bi->off;
    ub->front = shmi_tag_front(bi->tag);
    ub->site = shmi_tag_site(bi->tag);
    ub->user = shmi_g.host.base + bi->off + ub->front;
    ub->back = bi->size >= ub->front + shmi_guard_back() ? shmi_guard_back() : 0;
    ub->size = bi->size - ub->front - ub->back;
}

void shmi_guard_fill(const struct shmi_ublock *ub)
{
    if (ub->front) memset(ub->user - ub->front, SHMI_GUARD_BYTE, ub->front);
    if (ub->back) memset(ub->user + ub->size, SHMI_GUARD_BYTE, ub->back);
}

/* First and last damaged byte of a guard, or -1. */
static long damaged(const unsigned char *g, size_t n, long *last)
{
    long first = -1;
    for (size_t i = 0; i < n; i++)
        if (g[i] != SHMI_GUARD_BYTE) {
            if (first < 0) first = (long)i;
            *last = (long)i;
        }
    return first;
}

int shmi_guard_check(const struct shmi_ublock *ub, char *why, size_t len)
{
    long first, last = -1;
    const unsigned char *back = (const unsigned char *)ub->user + ub->size;
    const unsigned char *front = (const unsigned char *)ub->user - ub->front;
    if (ub->back && (first = damaged(back, ub->back, &last)) >= 0) {
        snprintf(why, len, "written past its end: bytes %ld to %ld after the end were "
                 "changed (an overflow of at least %ld bytes)", first, last, last + 1);
        return -1;
    }
    if (ub->front && (first = damaged(front, ub->front, &last)) >= 0) {
        snprintf(why, len, "written before its start: bytes %ld to %ld before the start "
                 "were changed (an underflow of at least %ld bytes)",
                 (long)ub->front - last, (long)ub->front - first, (long)ub->front - first);
        return -1;
    }
    return 0;
}

/* ---- Address origins ---------------------------------------------------- */

static int maps_lookup(uintptr_t a, char *name, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[768];
    int found = 0;
    if (!f) return 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        int pos = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &pos) < 2) continue;
        if (a < lo || a >= hi) continue;
        found = 1;
        snprintf(name, len, "%s", pos > 0 ? line + pos : "");
        name[strcspn(name, "\n")] = 0;
    }
    fclose(f);
    return found;
}

static int in_freed_block(const void *addr, char *buf, size_t len)
{
    uintptr_t x = (uintptr_t)addr, base = (uintptr_t)shmi_g.host.base;
    struct shmi_block_info bi;
    if (!shmi_g.host.alloc || x - base >= shmi_g.host.size) return 0;
    if (shmi_alloc_find(shmi_g.host.alloc, x - base, &bi) != 0 || bi.live) return 0;
    snprintf(buf, len, "inside a free range of the symmetric heap: memory that was freed "
             "with shmem_free (or never allocated)");
    return 1;
}

char *shmi_addr_origin(const void *addr, char *buf, size_t len)
{
    char name[512];
    int local;
    if (!addr) {
        snprintf(buf, len, "a NULL pointer");
    } else if (in_freed_block(addr, buf, len)) {
    } else if ((uintptr_t)addr - (uintptr_t)&local < ((uintptr_t)8 << 20) ||
               (maps_lookup((uintptr_t)addr, name, sizeof name) && strstr(name, "[stack"))) {
        snprintf(buf, len, "a local variable on the stack (locals are not symmetric: make "
                 "it static or allocate it with shmem_malloc)");
    } else if (!maps_lookup((uintptr_t)addr, name, sizeof name)) {
        snprintf(buf, len, "not mapped at all (a dangling or corrupted pointer)");
    } else if (!strcmp(name, "[heap]") || !name[0]) {
        snprintf(buf, len, "memory from malloc/calloc/mmap (private to this PE: use "
                 "shmem_malloc for memory other PEs can reach)");
    } else {
        const char *base = strrchr(name, '/');
        snprintf(buf, len, "memory of %s (only the program's own globals are symmetric)",
                 base ? base + 1 : name);
    }
    return buf;
}

/* ---- Self-test (SHMEM_SELFTEST) ------------------------------------------
 * The brief's manual checks, run on every fresh block: shmem_ptr to ourselves
 * is the block itself; a pattern put into the right neighbour's copy arrives
 * there and reads back (through shmem_ptr, or a get from a PE on another
 * node: every access goes through the transport interface); every guard zone is
 * intact.  The block is left zeroed.  (Same address on every PE is already
 * verified by the allocation's checked barrier, which compares results.) */
static unsigned char pattern(int pe, size_t i) { return (unsigned char)(pe * 31 + (int)i + 1); }

static _Noreturn void selftest_fail(const char *fn, const void *user, const char *what, int pe)
{
    shmi_fatal("%s: self-test failed on the block at %p: %s (PE %d): the symmetric memory "
               "is not working; please report this with SHMEM_DEBUG=1 output", fn, user,
               what, pe);
}

static unsigned long selftest_blocks; /* blocks checked, for the summary */

void shmi_selftest_summary(void)
{
    if (shmi_g.env.SELFTEST && shmi_g.me == 0)
        fprintf(stderr, "[pe 0] symheap: self-test: %lu block%s checked on %d PE%s (same address, "
                "put and read back through shmem_ptr, guard zones): all passed\n", selftest_blocks,
                selftest_blocks == 1 ? "" : "s", shmi_g.npes, shmi_g.npes == 1 ? "" : "s");
}

void shmi_selftest_block(const char *fn, char *user, size_t size, int zeroed)
{
    (void)zeroed;
    selftest_blocks++;
    int me = shmi_g.me, n = shmi_g.npes, right = (me + 1) % n, left = (me + n - 1) % n;
    size_t k = size < 64 ? size : 64;
    unsigned char buf[64] = { 0 };
    if (shmi_tp_ptr(&shmi_g.tp, user, me) != user) selftest_fail(fn, user, "shmem_ptr(p, me) != p", me);
    for (size_t i = 0; i < k; i++) buf[i] = pattern(me, i);
    /* through the transport interface: the neighbour may be on another node
     * (issue 13), where its translated address is not ours to touch */
    shmi_peer_write(fn, user, buf, k, right, SHMI_TP_BLOCKING);
    shmi_quiet(); /* delivered before the barrier */
    shmi_barrier();
    for (size_t i = 0; i < k; i++)
        if ((unsigned char)user[i] != pattern(left, i))
            selftest_fail(fn, user, "a put from the left neighbour did not arrive", left);
    /* read back: through shmem_ptr when the neighbour is mapped, else a get */
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, user, NULL, right);
    const unsigned char *peer = shmi_tp_ptr(&shmi_g.tp, user, right);
    if (!SHMI_TP_DIRECT(via)) {
        shmi_peer_get(fn, via, buf, user, k, right, SHMI_TP_BLOCKING);
        peer = buf;
    }
    for (size_t i = 0; i < k; i++)
        if (peer[i] != pattern(me, i))
            selftest_fail(fn, user, SHMI_TP_DIRECT(via)
                              ? "reading back our put through shmem_ptr gave other bytes"
                              : "reading back our put through a get gave other bytes", right);
    shmi_barrier();
    memset(user, 0, k);
    if (shmi_heap_check() != 0) selftest_fail(fn, user, "guard zones damaged (see above)", me);
    shmi_barrier();
}

/* SHMEM_CHECKS cheap or full: see debug.h. */
void shmi_mem_check_span(const char *fn, const char *what, const void *p, size_t n,
                         const char *hint)
{
    uintptr_t x = (uintptr_t)p, base = (uintptr_t)shmi_g.host.base;
    struct shmi_block_info bi;
    if (shmi_checks == SHMI_CHECKS_OFF || n == 0 || x - base >= shmi_g.host.size ||
        shmi_alloc_find(shmi_g.host.alloc, x - base, &bi) != SHMI_OK)
        return;
    struct shmi_ublock ub;
    shmi_ublock_of(&bi, &ub);
    uintptr_t u = (uintptr_t)ub.user;
    if (bi.live && x >= u && x - u <= ub.size && n <= ub.size - (x - u)) return;
    char site[256];
    if (!bi.live)
        shmi_fatal("%s: %s=%p (%zu bytes) is not in a live block of the symmetric heap: it "
                   "is free or freed memory%s", fn, what, p, n, hint ? hint : "");
    shmi_fatal("%s: %s=%p needs %zu bytes, but the block it is in (at %p, %zu bytes, from %s "
               "at %s) %s%s", fn, what, p, n, (void *)ub.user, ub.size, shmi_site_op(ub.site),
               shmi_site_describe(shmi_site_ret(ub.site), site, sizeof site),
               x < u ? "starts after it" : "is too small: the range runs past its end",
               hint ? hint : "");
}

void shmi_debug_install(void)
{
    shmi_hooks.check_span = shmi_mem_check_span;
    shmi_hooks.site_of_pe = shmi_site_of_pe;
    shmi_hooks.addr_origin = shmi_addr_origin;
    shmi_hooks.poll = shmi_report_poll_slow;
}
