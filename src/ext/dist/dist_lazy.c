/* dist_lazy.c - strategy 4 of the brief (§4.3): lazy initialization.  A
 * block of a lazy array is filled by the user's function the first time it
 * is touched, through the pointer, on any PE; a block nobody touched costs
 * no memory.
 *
 * How: every PE's copy lives in the symmetric heap (memfd pages), and each
 * process sees every copy through its own mapping ("view"): its own at the
 * symmetric address, each peer's at base + delta[p].  At creation every PE
 * punches out the pages of its copy (MADV_REMOVE: no memory, reads as zero)
 * and makes ALL its views PROT_NONE, its own and its peers'.  So any first
 * access - a load or store on the owner, a peer's shmem_getmem/putmem/atomic
 * (memcpy/CPU atomics on its view of the owner), a load through shmem_ptr -
 * faults in the accessing process.  The SIGSEGV handler finds the array and
 * the owner from the address and:
 *   1. claims the block in the OWNER's state word (symmetric, one per block:
 *      EMPTY -> FILLING(tid) by compare-and-swap; one filler per block across
 *      all PEs and threads; others wait until READY);
 *   2. the winner runs fill(global index, owner) into a second, writable
 *      mapping of that copy (mremap(view, 0, len): same pages), so no thread
 *      ever sees a half-filled block through the protected view;
 *   3. publishes READY (release) and makes the faulting view's block
 *      read-write; the access is restarted and succeeds.
 * Each (process, view, block) faults at most once; later faults on a READY
 * block only unprotect that view.
 *
 * Remote rule (issue 4): the PE that touches another PE's block first fills
 * it in the owner's memory (fill-on-owner, done by the toucher: the owner is
 * never interrupted, and f is deterministic in (index, pe, ctx)).  This keeps
 * one copy, so later puts, atomics and the owner's own loads agree.  A
 * reader that wants no memory committed on the owner uses shmemx_lazy_get
 * (shmemx_dist_get does): a block that is not READY is computed into the
 * reader's buffer (fill-on-read) and the owner's state is left alone.
 *
 * Across nodes (issue 16): a PE of another node has no view of our copy
 * (shmem_ptr is NULL) and the transport reaches our memory at the symmetric
 * address, through our own view: a never-opened block there is PROT_NONE
 * (a fault in UCX's thread, or EFAULT in a socket call), and only we can
 * change our own protection.  So the owner's view gets a state of its own:
 * OPEN (filled, and read-write in the owner's view: the fault handler and
 * shmemx_lazy_touch on the owner set it).  A PE of another node
 *   - reads (shmemx_lazy_get, shmemx_dist_get): OPEN blocks with a get,
 *     never-filled ones computed here (fill-on-read, as on one node),
 *     READY-but-closed ones after asking the owner to open them;
 *   - writes or touches (shmemx_lazy_touch, shmemx_dist_put): asks the owner
 *     to fill and open the blocks (remote_open: a fetch-or of LAZY_WANT into
 *     each block's state word, one atomic increment of the array's doorbell,
 *     then it polls the state words until OPEN).  The owner's opener thread,
 *     started while some lazy array spans nodes, sees the doorbell move,
 *     fills (claiming as any filler does) and opens every wanted block; the
 *     owner's program is not interrupted.  Cost: a network round trip per
 *     block plus up to 1 ms for an idle opener to look.
 * A plain shmem_getmem/putmem/atomic from another node on a block its
 * owner never opened is the transport's business: over TCP the owner's UCX
 * thread touches the page, faults, and this handler fills and opens the
 * block there (that thread keeps SIGSEGV unblocked); an RDMA NIC reads and
 * writes the pages without a fault, so call shmemx_lazy_touch(sym, n, pe)
 * first (docs/placement.md).  The filler's tag keeps a LAZY_WANT made
 * meanwhile, so no request is lost.
 *
 * Signal safety: the handler uses only atomics, memcpy/memset, mprotect,
 * gettid and sched_yield, plus the user's fill (documented: it must be
 * async-signal-safe).  It is installed at the first lazy array with
 * SA_NODEFER (a fill may touch another lazy block) and SA_ONSTACK, and a
 * fault that is not ours goes to the previous handler, or (SIG_DFL) to the
 * default action so that a real segfault still ends the process with
 * SIGSEGV.  userfaultfd was not chosen: on memfd memory a peer's plain load
 * of a hole would populate it with zeros without any fault on the owner, and
 * unprivileged userfaultfd is often disabled. */
#include "ext/dist/dist_impl.h"
#include "core/state.h"
#include "util/num.h"
#include "util/sigchain.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* READY: filled; OPEN: filled and the owner's own view of it is read-write,
 * so the transport may reach it from another node.  Else FILLING: the
 * filler's tid + 3.  Any of them may carry LAZY_WANT: a PE of another node
 * asked the owner to open the block (see "Across nodes"). */
enum { LAZY_EMPTY = 0, LAZY_READY = 1, LAZY_OPEN = 2 };
#define LAZY_WANT ((uint64_t)1 << 63)
#define LAZY_MAX 256                     /* live lazy arrays per program */

struct shmi_lazy {
    char *base;                         /* symmetric: our copy */
    size_t len, block, nblocks;         /* bytes, bytes, count */
    size_t nelems, elem;                /* elements per copy (largest part), bytes */
    uint64_t *state;                    /* symmetric [nblocks + 1]: the last word is the
                                           doorbell PEs of other nodes ring */
    char **view;                        /* [npes] PE p's copy as mapped here (NULL: p is
                                           on another node) */
    uint64_t **pstate;                  /* [npes] PE p's state words as mapped here, or NULL */
    char **alias;                       /* [npes] writable second mapping of view[p], or NULL */
    const struct shmemx_dist_s *dist;   /* local -> global index, or NULL */
    shmemx_fill_t fill;
    int npes, me;
    int spans;                          /* some PE is on another node */
    uint64_t bell_seen;                 /* the opener thread's last doorbell value */
    uint64_t fills, faults, computed;   /* atomic counters */
};

static struct shmi_lazy *registry[LAZY_MAX]; /* read by the handler: atomics only */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction prev_segv;
static int handler_installed;

/* ---- Filling ------------------------------------------------------------------ */

/* Elements of PE p's copy that hold data (the rest of the copy, up to the
 * largest part, is padding and stays zero). */
static size_t data_elems(const struct shmi_lazy *lz, int p)
{
    return lz->dist ? shmi_layout_count(&lz->dist->lay, p) : lz->nelems;
}

/* Elements [e0, e1) of PE p's copy into out; with zero_tail, padding past
 * p's element count is written as zeros (fresh pages already are). */
static void fill_elems(const struct shmi_lazy *lz, int p, size_t e0, size_t e1, char *out,
                       int zero_tail)
{
    size_t end = shmi_min(e1, data_elems(lz, p));
    for (size_t l = e0; l < end;) {
        size_t g = lz->dist ? shmi_layout_global(&lz->dist->lay, p, l) : l;
        size_t len = lz->dist ? shmi_layout_runlen(&lz->dist->lay, p, l, end - l) : end - l;
        shmi_fill_run(&lz->fill, out + (l - e0) * lz->elem, g, len, lz->elem, p);
        l += len;
    }
    size_t z = end > e0 ? end : e0;
    if (zero_tail && e1 > z) memset(out + (z - e0) * lz->elem, 0, (e1 - z) * lz->elem);
}

/* Map a block's pages in one system call instead of one fault per page
 * (write: allocate them too).  Only an optimization: failure is harmless. */
static void populate(char *p, size_t n, int write)
{
#ifdef MADV_POPULATE_WRITE
    if (n > 4096) (void)madvise(p, n, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
    (void)p, (void)n, (void)write;
#endif
}

static uint64_t filler_tag(void) { return (uint64_t)syscall(SYS_gettid) + 3; }

static uint64_t bare(uint64_t s) { return s & ~LAZY_WANT; }
static int filled(uint64_t s) { return bare(s) == LAZY_READY || bare(s) == LAZY_OPEN; }

/* State of block k of PE p: through the mapping, or a remote atomic read. */
static uint64_t state_of(const struct shmi_lazy *lz, int p, size_t k)
{
    if (lz->pstate[p]) return __atomic_load_n(&lz->pstate[p][k], __ATOMIC_ACQUIRE);
    return shmem_uint64_atomic_fetch(&lz->state[k], p);
}

/* The handler may end the process only through here: shmi_fatal formats with
 * vsnprintf, which is not on the async-signal-safe list, but with these
 * formats it neither allocates nor locks, and we never return. */
static _Noreturn void lazy_fatal_block(struct shmi_lazy *lz, int p, size_t k, const char *why)
{
    shmi_fatal("lazy fill of array %p, block %zu of PE %d's copy (at %p): %s",
               (void *)lz->base, k, p, (void *)(lz->view[p] + k * lz->block), why);
}

/* Blocks [k0, k1] of PE p, on another node, OPEN: the transport may then
 * reach them.  Only p can make its own view read-write, so we ask: LAZY_WANT
 * on each block that is not open, one ring of p's doorbell, and p's opener
 * thread fills and opens them (p's program is not interrupted); we wait. */
static void remote_open(struct shmi_lazy *lz, int p, size_t k0, size_t k1)
{
    int asked = 0;
    for (size_t k = k0; k <= k1; k++) /* fetching: complete before the ring */
        asked |= bare(shmem_uint64_atomic_fetch_or(&lz->state[k], LAZY_WANT, p)) != LAZY_OPEN;
    if (!asked) return;
    shmem_uint64_atomic_inc(&lz->state[lz->nblocks], p);
    for (size_t k = k0; k <= k1; k++)
        for (unsigned spins = 0; bare(state_of(lz, p, k)) != LAZY_OPEN; spins++)
            if (spins > 16) {
                struct timespec t = { 0, 20 * 1000 };
                nanosleep(&t, NULL);
            }
}

/* Make block k of PE p's copy READY: fill it here if nobody has, else wait
 * for whoever is filling it (another thread or PE).  On another node: OPEN,
 * filled by p. */
static void block_ready(struct shmi_lazy *lz, int p, size_t k)
{
    if (!lz->pstate[p]) {
        remote_open(lz, p, k, k);
        return;
    }
    uint64_t *st = &lz->pstate[p][k], mine = 0;
    for (unsigned spins = 0;; spins++) {
        uint64_t s = __atomic_load_n(st, __ATOMIC_ACQUIRE);
        if (filled(s)) return;
        if (!mine) mine = filler_tag();
        if (bare(s) == LAZY_EMPTY) { /* claim it, keeping a request */
            if (__atomic_compare_exchange_n(st, &s, mine | (s & LAZY_WANT), 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                size_t per = lz->block / lz->elem, e0 = k * per;
                size_t e1 = shmi_min(e0 + per, data_elems(lz, p));
                char *out = lz->alias[p] + k * lz->block;
                if (e1 > e0) { /* a padding-only block stays a hole */
                    populate(out, (e1 - e0) * lz->elem, 1);
                    fill_elems(lz, p, e0, e1, out, 0);
                }
                /* READY, keeping a request made meanwhile (the opener must see it) */
                for (s = __atomic_load_n(st, __ATOMIC_RELAXED);
                     !__atomic_compare_exchange_n(st, &s, LAZY_READY | (s & LAZY_WANT), 0,
                                                  __ATOMIC_RELEASE, __ATOMIC_RELAXED);) {}
                __atomic_fetch_add(&lz->fills, 1, __ATOMIC_RELAXED);
                return;
            }
            continue;
        }
        if (bare(s) == mine)
            lazy_fatal_block(lz, p, k, "the fill function touched the block it is filling: "
                                       "a lazy array's fill must not read the array itself");
        if (spins > 64) sched_yield(); /* another thread or PE is filling it */
    }
}

/* Block k of PE p (on this node) filled, and read-write in our view of it.
 * Our own copy's block is then OPEN: PEs of other nodes may reach it. */
static void open_block(struct shmi_lazy *lz, int p, size_t k)
{
    block_ready(lz, p, k);
    char *blk = lz->view[p] + k * lz->block;
    if (mprotect(blk, lz->block, PROT_READ | PROT_WRITE) != 0)
        lazy_fatal_block(lz, p, k, errno == ENOMEM
            ? "mprotect: too many memory mappings (vm.max_map_count): use a larger "
              "block_bytes or raise vm.max_map_count"
            : "mprotect failed");
    size_t data = data_elems(lz, p) * lz->elem, at = k * lz->block;
    if (data > at) populate(blk, shmi_min(lz->block, data - at), 0);
    if (p == lz->me) __atomic_store_n(&lz->pstate[p][k], LAZY_OPEN, __ATOMIC_RELEASE);
}

/* ---- The SIGSEGV handler -------------------------------------------------------------- */

static int lazy_fault(uintptr_t a)
{
    for (int i = 0; i < LAZY_MAX; i++) {
        struct shmi_lazy *lz = __atomic_load_n(&registry[i], __ATOMIC_ACQUIRE);
        if (!lz) continue;
        for (int p = 0; p < lz->npes; p++) {
            if (!lz->view[p]) continue;
            uintptr_t off = a - (uintptr_t)lz->view[p];
            if (off >= lz->len) continue;
            open_block(lz, p, off / lz->block);
            __atomic_fetch_add(&lz->faults, 1, __ATOMIC_RELAXED);
            return 1;
        }
    }
    return 0;
}

/* Not ours: the previous handler, or the default action (a real segfault
 * still crashes with SIGSEGV and its usual status). */

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    if (si->si_code == SEGV_ACCERR && lazy_fault((uintptr_t)si->si_addr)) {
        errno = saved;
        return;
    }
    errno = saved;
    shmi_sig_chain(&prev_segv, sig, si, uc);
}

static void install_handler(const char *fn)
{
    if (handler_installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, NULL, &prev_segv) != 0 || sigaction(SIGSEGV, &sa, NULL) != 0)
        shmi_fatal("%s: cannot install the SIGSEGV handler lazy arrays need: %s", fn,
                   strerror(errno));
    handler_installed = 1;
}

/* ---- The opener thread (arrays spanning nodes) ------------------------------------
 * Serves the requests of PEs on other nodes (remote_open): when an array's
 * doorbell has moved, every block of our copy marked LAZY_WANT is filled
 * (if nobody has) and opened in our view.  It only loads our own memory,
 * fills and calls mprotect: no symheap call, so any thread level will do.
 * Idle it naps (up to 1 ms): a request waits that long at most for it to
 * look.  A ring costs a pass over the array's state words (requests are
 * bits in them, so nothing can overflow).  It runs while at least one array
 * spans nodes. */
static pthread_t opener;
static int spanning;     /* live arrays with a PE on another node (under reg_lock) */
static int opener_stop;  /* atomic */

static int open_wanted(void) /* under reg_lock */
{
    int work = 0;
    for (int i = 0; i < LAZY_MAX; i++) {
        struct shmi_lazy *lz = registry[i];
        if (!lz || !lz->spans) continue;
        uint64_t bell = __atomic_load_n(&lz->state[lz->nblocks], __ATOMIC_ACQUIRE);
        if (bell == lz->bell_seen) continue;
        lz->bell_seen = bell;
        work = 1;
        for (size_t k = 0; k < lz->nblocks; k++)
            if (__atomic_load_n(&lz->state[k], __ATOMIC_ACQUIRE) & LAZY_WANT)
                open_block(lz, lz->me, k);
    }
    return work;
}

static void *opener_main(void *arg)
{
    (void)arg;
    unsigned idle = 0;
    while (!__atomic_load_n(&opener_stop, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&reg_lock);
        int work = open_wanted();
        pthread_mutex_unlock(&reg_lock);
        idle = work ? 0 : idle + 1;
        if (idle > 64) {
            struct timespec t = { 0, idle > 2000 ? 1000 * 1000 : 50 * 1000 };
            nanosleep(&t, NULL);
        } else if (idle) {
            sched_yield();
        }
    }
    return NULL;
}

static void opener_start(const char *fn) /* under reg_lock */
{
    if (spanning++) return;
    sigset_t all, old; /* signals stay with the program's threads, faults excepted (a fill
                        * may touch another lazy array: its SIGSEGV must reach the handler) */
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    __atomic_store_n(&opener_stop, 0, __ATOMIC_RELEASE);
    int rc = pthread_create(&opener, NULL, opener_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        shmi_fatal("%s: cannot start the thread that opens lazy blocks to other nodes: %s", fn,
                   strerror(rc));
}

/* ---- Registry ------------------------------------------------------------------- */

static void reg_add(const char *fn, struct shmi_lazy *lz)
{
    pthread_mutex_lock(&reg_lock);
    install_handler(fn);
    if (lz->spans) opener_start(fn);
    int i = 0;
    while (i < LAZY_MAX && registry[i]) i++;
    if (i == LAZY_MAX) {
        pthread_mutex_unlock(&reg_lock);
        shmi_fatal("%s: more than %d lazy arrays are live: free some with shmemx_lazy_free "
                   "or shmemx_dist_destroy", fn, LAZY_MAX);
    }
    __atomic_store_n(&registry[i], lz, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&reg_lock);
}

static void reg_remove(struct shmi_lazy *lz)
{
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < LAZY_MAX; i++)
        if (registry[i] == lz) __atomic_store_n(&registry[i], NULL, __ATOMIC_RELEASE);
    int last = lz->spans && --spanning == 0;
    if (last) __atomic_store_n(&opener_stop, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&reg_lock);
    if (last) pthread_join(opener, NULL);
}

/* The lazy array whose copy (symmetric addresses) holds [a, a + n). */
static struct shmi_lazy *reg_find(const void *a, size_t n)
{
    uintptr_t x = (uintptr_t)a;
    for (int i = 0; i < LAZY_MAX; i++) {
        struct shmi_lazy *lz = __atomic_load_n(&registry[i], __ATOMIC_ACQUIRE);
        if (lz && x - (uintptr_t)lz->base < lz->len && n <= lz->len - (x - (uintptr_t)lz->base))
            return lz;
    }
    return NULL;
}

/* The live lazy array with the lowest base that overlaps [x, end), or NULL. */
static struct shmi_lazy *reg_first(uintptr_t x, uintptr_t end)
{
    struct shmi_lazy *best = NULL;
    for (int i = 0; i < LAZY_MAX; i++) {
        struct shmi_lazy *lz = __atomic_load_n(&registry[i], __ATOMIC_ACQUIRE);
        uintptr_t b = lz ? (uintptr_t)lz->base : 0;
        if (lz && b < end && x < b + lz->len && (!best || b < (uintptr_t)best->base)) best = lz;
    }
    return best;
}

/* shmem_free/shmem_realloc on a lazy array would leave its views and handler
 * behind: refuse, naming the call that frees it (installed as core's free_check hook). */
static void refuse_free(const char *fn, const void *ptr)
{
    struct shmi_lazy *lz = reg_find(ptr, 0);
    if (!lz) return;
    shmi_fatal("%s(%p): this is a lazy array (%zu elements of %zu bytes): free it with %s", fn,
               ptr, lz->nelems, lz->elem,
               lz->dist ? "shmemx_dist_destroy on its distributed array" : "shmemx_lazy_free");
}

/* ---- Create / destroy -------------------------------------------------------------- */

static size_t gcd(size_t a, size_t b)
{
    while (b) { size_t t = a % b; a = b; b = t; }
    return a;
}

/* Block size: whole pages (mprotect) and whole elements (one filler per
 * element). */
static size_t block_size(const char *fn, size_t want, size_t elem)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (want > ((size_t)1 << 40))
        shmi_fatal("%s: block_bytes=%zu is too large: use at most 1 TiB (0 means one page)",
                   fn, want);
    size_t b = want ? (want + page - 1) / page * page : page;
    if (b % elem) {
        size_t l = b / gcd(b, elem) * elem;
        if (l > ((size_t)1 << 30) || l / elem != b / gcd(b, elem))
            shmi_fatal("%s: elem_size=%zu: a block must hold whole elements and whole pages, "
                       "which needs blocks of %zu bytes here: use an element size that divides "
                       "or is a multiple of the page size (%zu)", fn, elem, l, page);
        b = l;
    }
    return b;
}

static void map_views(const char *fn, struct shmi_lazy *lz)
{
    int n = lz->npes;
    lz->view = calloc((size_t)n, sizeof *lz->view);
    lz->pstate = calloc((size_t)n, sizeof *lz->pstate);
    lz->alias = calloc((size_t)n, sizeof *lz->alias);
    if (!lz->view || !lz->pstate || !lz->alias) shmi_fatal("%s: out of private memory", fn);
    for (int p = 0; p < n; p++) {
        lz->view[p] = shmem_ptr(lz->base, p);
        lz->pstate[p] = shmem_ptr(lz->state, p);
        if (!lz->view[p] || !lz->pstate[p]) { /* another node: reached through the transport */
            lz->view[p] = NULL;
            lz->pstate[p] = NULL;
            lz->spans = 1;
            continue;
        }
        void *a = mremap(lz->view[p], 0, lz->len, MREMAP_MAYMOVE);
        if (a == MAP_FAILED)
            shmi_fatal("%s: cannot map PE %d's copy a second time (mremap of %zu bytes: %s): "
                       "lower the array size or raise the address-space limit (ulimit -v)",
                       fn, p, lz->len, strerror(errno));
        lz->alias[p] = a;
    }
}

static void protect_views(const char *fn, struct shmi_lazy *lz, int prot)
{
    for (int p = 0; p < lz->npes; p++)
        if (lz->view[p] && mprotect(lz->view[p], lz->len, prot) != 0)
            shmi_fatal("%s: mprotect of PE %d's copy (%zu bytes at %p) failed: %s%s", fn, p,
                       lz->len, (void *)lz->view[p], strerror(errno),
                       errno == ENOMEM ? ": raise vm.max_map_count or free lazy arrays" : "");
}

static void lazy_release(struct shmi_lazy *lz)
{
    free((void *)lz->fill.value);
    free(lz->view);
    free(lz->pstate);
    free(lz->alias);
    free(lz);
}

void *shmi_lazy_create(const char *fn, size_t nelems, size_t elem, size_t block_bytes,
                       const shmemx_fill_t *fill, const struct shmemx_dist_s *d,
                       struct shmi_lazy **out)
{
    shmi_check_running(fn);
    shmi_fill_check(fn, fill);
    if (elem == 0)
        shmi_fatal("%s: elem_size is 0: pass the size of one element, e.g. sizeof(double)", fn);
    size_t bytes;
    if (shmi_mul_overflows(nelems, elem, &bytes) || bytes > SIZE_MAX / 2)
        shmi_fatal("%s: nelems=%zu elements of %zu bytes overflows size_t", fn, nelems, elem);
    size_t block = block_size(fn, block_bytes, elem);
    *out = NULL;
    if (nelems == 0) return NULL;
    struct shmi_lazy *lz = calloc(1, sizeof *lz);
    if (!lz) shmi_fatal("%s: out of private memory", fn);
    *lz = (struct shmi_lazy){ .block = block, .nelems = nelems, .elem = elem, .dist = d,
                              .fill = *fill, .npes = shmi_g.npes, .me = shmi_g.me };
    lz->nblocks = (nelems * elem + block - 1) / block;
    lz->len = lz->nblocks * block;
    if (fill->value) { /* ours: the caller's value may go away */
        void *v = malloc(elem);
        if (!v) shmi_fatal("%s: out of private memory", fn);
        lz->fill.value = memcpy(v, fill->value, elem);
    }
    lz->base = shmem_align((size_t)sysconf(_SC_PAGESIZE), lz->len);
    lz->state = lz->base ? shmem_calloc(lz->nblocks + 1, sizeof(uint64_t)) : NULL;
    if (!lz->state) { /* heap full: the same on every PE */
        if (lz->base) shmem_free(lz->base);
        lazy_release(lz);
        return NULL;
    }
    /* Drop whatever a previous block left here: no memory until touched, and
     * padding reads as zero.  (Heap memory is a memfd, so this works; if it
     * ever did not, clearing keeps the contents right at the cost of memory.) */
    if (madvise(lz->base, lz->len, MADV_REMOVE) != 0) memset(lz->base, 0, lz->len);
    map_views(fn, lz);
    reg_add(fn, lz);
    shmi_hooks.free_check = refuse_free;
    protect_views(fn, lz, PROT_NONE);
    /* No PE may fill a peer's block before that peer dropped its pages. */
    shmem_barrier_all();
    *out = lz;
    return lz->base;
}

void shmi_lazy_destroy(const char *fn, struct shmi_lazy *lz)
{
    shmem_barrier_all(); /* nobody touches it any more */
    protect_views(fn, lz, PROT_READ | PROT_WRITE);
    reg_remove(lz);
    for (int p = 0; p < lz->npes; p++)
        if (lz->alias[p]) munmap(lz->alias[p], lz->len);
    (void)madvise(lz->base, lz->len, MADV_REMOVE); /* give the memory back now */
    shmem_free(lz->state);
    shmem_free(lz->base);
    lazy_release(lz);
}

/* ---- Reads that commit nothing ---------------------------------------------------------- */

void shmi_lazy_read(struct shmi_lazy *lz, void *dest, size_t off, size_t nbytes, int pe)
{
    char *out = dest, *tmp = NULL;
    while (nbytes) {
        size_t k = off / lz->block, in = off % lz->block;
        size_t n = shmi_min(lz->block - in, nbytes);
        uint64_t s = state_of(lz, pe, k);
        if (!lz->pstate[pe] && bare(s) == LAZY_READY) { /* filled, not open yet: ask */
            remote_open(lz, pe, k, k);
            s = LAZY_OPEN;
        }
        if (filled(s)) {
            shmem_getmem(out, lz->base + off, n, pe);
        } else { /* never filled (or being filled): compute the same bytes here */
            size_t e0 = off / lz->elem, e1 = (off + n + lz->elem - 1) / lz->elem;
            if (off % lz->elem == 0 && n % lz->elem == 0) {
                fill_elems(lz, pe, e0, e1, out, 1);
            } else {
                if (!tmp && !(tmp = malloc(lz->block + 2 * lz->elem)))
                    shmi_fatal("shmemx_lazy_get: out of private memory");
                fill_elems(lz, pe, e0, e1, tmp, 1);
                memcpy(out, tmp + off % lz->elem, n);
            }
            __atomic_fetch_add(&lz->computed, 1, __ATOMIC_RELAXED);
        }
        out += n;
        off += n;
        nbytes -= n;
    }
    free(tmp);
}

void shmi_lazy_open(struct shmi_lazy *lz, size_t off, size_t nbytes, int pe)
{
    if (lz->pstate[pe] || nbytes == 0) return; /* this node: the fault fills it */
    remote_open(lz, pe, off / lz->block, (off + nbytes - 1) / lz->block);
}

void shmi_lazy_getmem(void *dest, const void *sym, size_t nbytes, int pe)
{
    char *out = dest;
    uintptr_t x = (uintptr_t)sym, end = x + nbytes;
    while (x < end) {
        struct shmi_lazy *lz = reg_first(x, end);
        uintptr_t lo = lz ? (uintptr_t)lz->base : end, hi;
        if (lo > x) { /* plain memory before the next lazy array */
            shmem_getmem(out, (const void *)x, lo - x, pe);
            out += lo - x;
            x = lo;
        }
        if (!lz) break;
        hi = shmi_min(end, (uintptr_t)lz->base + lz->len);
        shmi_lazy_read(lz, out, x - (uintptr_t)lz->base, hi - x, pe);
        out += hi - x;
        x = hi;
    }
}

/* ---- Public calls ---------------------------------------------------------------------- */

void *shmemx_lazy_alloc(size_t nelems, size_t elem_size, size_t block_bytes, shmemx_fill_t fill)
{
    struct shmi_lazy *lz;
    return shmi_lazy_create(__func__, nelems, elem_size, block_bytes, &fill, NULL, &lz);
}

void shmemx_lazy_free(void *sym)
{
    shmi_check_running(__func__);
    if (!sym) return;
    struct shmi_lazy *lz = reg_find(sym, 0);
    if (!lz || lz->base != sym)
        shmi_fatal("shmemx_lazy_free(%p): %s: pass the pointer shmemx_lazy_alloc returned", sym,
                   lz ? "points into a lazy array, not to its start" : "not a lazy array");
    if (lz->dist)
        shmi_fatal("shmemx_lazy_free(%p): this is the storage of a distributed array: free it "
                   "with shmemx_dist_destroy", sym);
    shmi_lazy_destroy(__func__, lz);
}

static struct shmi_lazy *find_checked(const char *fn, const void *sym, size_t nbytes, int pe)
{
    shmi_check_pe(fn, pe);
    struct shmi_lazy *lz = reg_find(sym, nbytes);
    if (!lz && reg_find(sym, 0))
        shmi_fatal("%s: [%p, +%zu) runs past the end of its lazy array: shorten the range", fn,
                   sym, nbytes);
    return lz;
}

void shmemx_lazy_touch(const void *sym, size_t nbytes, int pe)
{
    struct shmi_lazy *lz = find_checked(__func__, sym, nbytes, pe);
    if (!lz)
        shmi_fatal("shmemx_lazy_touch: %p is not inside a lazy array: pass memory from "
                   "shmemx_lazy_alloc or shmemx_dist_create_lazy", sym);
    if (nbytes == 0) return;
    size_t off = (size_t)((const char *)sym - lz->base);
    if (!lz->pstate[pe]) { /* another node: one request for the whole range */
        shmi_lazy_open(lz, off, nbytes, pe);
        return;
    }
    for (size_t k = off / lz->block; k <= (off + nbytes - 1) / lz->block; k++)
        if (pe == lz->me) open_block(lz, pe, k); /* open to the other nodes too */
        else block_ready(lz, pe, k);
}

void shmemx_lazy_get(void *dest, const void *sym, size_t nbytes, int pe)
{
    struct shmi_lazy *lz = find_checked(__func__, sym, nbytes, pe);
    if (!lz) { /* not lazy: a plain get */
        shmem_getmem(dest, sym, nbytes, pe);
        return;
    }
    shmi_lazy_read(lz, dest, (size_t)((const char *)sym - lz->base), nbytes, pe);
}

int shmemx_lazy_info(const void *sym, shmemx_lazy_info_t *info)
{
    shmi_check_running(__func__);
    struct shmi_lazy *lz = reg_find(sym, 0);
    if (!lz || !info) return -1;
    size_t ready = 0;
    for (size_t k = 0; k < lz->nblocks; k++)
        ready += filled(__atomic_load_n(&lz->state[k], __ATOMIC_ACQUIRE));
    *info = (shmemx_lazy_info_t){ lz->block, lz->nblocks, ready,
                                  __atomic_load_n(&lz->fills, __ATOMIC_RELAXED),
                                  __atomic_load_n(&lz->faults, __ATOMIC_RELAXED),
                                  __atomic_load_n(&lz->computed, __ATOMIC_RELAXED) };
    return 0;
}
