/* shmemx_dist.h - initialization strategies and data placement (issue 4).
 * Part of shmemx.h; include shmemx.h, not this file.
 *
 * The brief's §4.3 (initialize: local, root + broadcast, distributed, lazy)
 * and §4.4 (place data: near its user, in blocks per PE, copy what is read
 * often) as calls that are correct for any element count and any PE count,
 * N % npes != 0, N < npes and N == 0 included.  docs/placement.md shows each
 * of the brief's patterns next to the call that replaces it.
 *
 * Conventions:
 *  - "Collective" calls are made by every PE, in the same order, with the
 *    same arguments (one thread per PE); they end with every PE's part ready
 *    to be read by the others unless stated otherwise.
 *  - Sizes are in elements of elem_size bytes unless the name says bytes.
 *  - Misuse (a bad layout, an index out of range, a width larger than a
 *    block) stops the job with one line naming the call, the values and the
 *    fix, like the rest of the library.
 *  - Every call works on teams spanning nodes: PEs of this node are reached
 *    by load/store, the others through the transport (gets, puts, atomics);
 *    docs/placement.md "Across nodes" gives each call's cost there. */
#ifndef SHMEMX_DIST_H
#define SHMEMX_DIST_H

#include <stddef.h>
#include <stdint.h>

/* ---- What to fill with -----------------------------------------------------
 * Every initialization call takes a shmemx_fill_t built with one of:
 *   SHMEMX_FILL_ELEM(f, ctx):  f(out, global_index, pe, ctx) writes one element
 *                              (elem_size bytes at out);
 *   SHMEMX_FILL_RANGE(f, ctx): f(out, first, count, pe, ctx) writes the count
 *                              elements of global indices first..first+count-1
 *                              (one call per run: faster for simple formulas);
 *   SHMEMX_FILL_VALUE(&v):     every element is a copy of the elem_size bytes at
 *                              &v (copied at the call; v may then go away);
 *   SHMEMX_FILL_ZERO:          zeros.
 * pe is the PE whose copy is being filled (for the root strategy: the root).
 * The global index is the element's index in the whole array: for a plain
 * symmetric array its index, for a distributed array its global index under
 * the layout.  For the lazy strategy f must give the same bytes wherever and
 * whenever it runs (it may run on any PE, with that PE's ctx) and must be
 * async-signal-safe (it runs inside the SIGSEGV handler, perhaps on a small
 * alternate signal stack: compute from its arguments and ctx; no malloc,
 * stdio or locks). */
typedef void (*shmemx_fill_elem_fn)(void *out, size_t global_index, int pe, void *ctx);
typedef void (*shmemx_fill_range_fn)(void *out, size_t first, size_t count, int pe, void *ctx);
typedef struct shmemx_fill {
    shmemx_fill_elem_fn elem;
    shmemx_fill_range_fn range;
    const void *value;
    void *ctx;
} shmemx_fill_t;
#define SHMEMX_FILL_ELEM(f, ctx) ((shmemx_fill_t){ (f), NULL, NULL, (ctx) })
#define SHMEMX_FILL_RANGE(f, ctx) ((shmemx_fill_t){ NULL, (f), NULL, (ctx) })
#define SHMEMX_FILL_VALUE(ptr) ((shmemx_fill_t){ NULL, NULL, (ptr), NULL })
#define SHMEMX_FILL_ZERO ((shmemx_fill_t){ NULL, NULL, NULL, NULL })

/* ---- Strategy 1: local -------------------------------------------------------
 * Collective.  Every PE fills its own copy of the symmetric array sym
 * (nelems elements) with fill(i, my_pe), then a barrier, so that peers may
 * read any copy when it returns.  nelems == 0 is a barrier only. */
void shmemx_init_local(void *sym, size_t nelems, size_t elem_size, shmemx_fill_t fill);

/* ---- Strategy 2: root + broadcast ---------------------------------------------
 * Collective.  PE root fills its copy with fill(i, root), then every other PE
 * receives it, so every copy is equal on return.  Only the root runs fill. */
void shmemx_init_root(void *sym, size_t nelems, size_t elem_size, shmemx_fill_t fill, int root);

/* ---- Placement layouts (brief §4.4.2) ------------------------------------------
 * A layout says which PE owns global element i and where it is there:
 *   BLOCK:           one contiguous block per PE, the first N % npes PEs get
 *                    one more element (N < npes: the last PEs own nothing);
 *   CYCLIC:          owner i % npes, local index i / npes;
 *   BLOCK_CYCLIC(b): blocks of b elements dealt round-robin: block j = i / b
 *                    on PE j % npes;
 *   USER(f, ctx):    owner f(i, npes, ctx), called once per element at create
 *                    (every PE must get the same answers: checked); each PE
 *                    keeps its elements in increasing global order.
 * On every layout the elements a PE owns are stored in increasing global
 * order, so the part of a global range [lo, hi) owned by one PE is one
 * contiguous local range there: a range get/put is one transfer per owner. */
enum {
    SHMEMX_LAYOUT_KIND_BLOCK = 1,
    SHMEMX_LAYOUT_KIND_CYCLIC = 2,
    SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC = 3,
    SHMEMX_LAYOUT_KIND_USER = 4
};
typedef int (*shmemx_owner_fn)(size_t global_index, int npes, void *ctx);
typedef struct shmemx_layout {
    int kind;              /* SHMEMX_LAYOUT_KIND_*; 0 is invalid (catches {0}) */
    size_t block;          /* BLOCK_CYCLIC: b >= 1 */
    shmemx_owner_fn owner; /* USER */
    void *ctx;             /* USER */
} shmemx_layout_t;
#define SHMEMX_LAYOUT_BLOCK ((shmemx_layout_t){ SHMEMX_LAYOUT_KIND_BLOCK, 0, NULL, NULL })
#define SHMEMX_LAYOUT_CYCLIC ((shmemx_layout_t){ SHMEMX_LAYOUT_KIND_CYCLIC, 0, NULL, NULL })
#define SHMEMX_LAYOUT_BLOCK_CYCLIC(b) \
    ((shmemx_layout_t){ SHMEMX_LAYOUT_KIND_BLOCK_CYCLIC, (b), NULL, NULL })
#define SHMEMX_LAYOUT_USER(f, ctx) ((shmemx_layout_t){ SHMEMX_LAYOUT_KIND_USER, 0, (f), (ctx) })

/* A distributed array: n elements spread over the PEs by a layout, stored in
 * one symmetric allocation (each PE's part at the same address).  Opaque. */
typedef struct shmemx_dist_s *shmemx_dist_t;

/* Collective.  Allocates the storage (the largest PE part, so the same size
 * everywhere; n == 0 allocates nothing).  Contents are undefined until
 * written.  NULL when the symmetric heap is full (on every PE). */
shmemx_dist_t shmemx_dist_create(size_t n, size_t elem_size, shmemx_layout_t layout);
/* Collective.  As create, but every PE's part is lazy (strategy 4): a block of
 * block_bytes (rounded up to whole pages and whole elements; 0: one page) is
 * filled with fill(global index, owner) the first time anyone touches it. */
shmemx_dist_t shmemx_dist_create_lazy(size_t n, size_t elem_size, shmemx_layout_t layout,
                                      size_t block_bytes, shmemx_fill_t fill);
/* Collective; frees the storage.  NULL does nothing. */
void shmemx_dist_destroy(shmemx_dist_t d);

size_t shmemx_dist_size(shmemx_dist_t d);      /* n */
size_t shmemx_dist_elem_size(shmemx_dist_t d);
/* This PE's part: a symmetric address (PE p's part is at the same address
 * on p), holding shmemx_dist_local_count(d, my_pe) elements; NULL when n == 0. */
void *shmemx_dist_local(shmemx_dist_t d);
size_t shmemx_dist_local_count(shmemx_dist_t d, int pe);
/* Owner of global element i (< n); *local_index (if not NULL) gets its index
 * in the owner's part.  O(1) for every layout. */
int shmemx_dist_owner(shmemx_dist_t d, size_t i, size_t *local_index);
/* Global index of element local_index (< local_count(pe)) of PE pe's part. */
size_t shmemx_dist_global_index(shmemx_dist_t d, int pe, size_t local_index);
/* For BLOCK (and any layout on 1 PE): PE pe owns [*first, *first + *count)
 * and 1 is returned.  Otherwise 0 (use the iterator). */
int shmemx_dist_local_range(shmemx_dist_t d, int pe, size_t *first, size_t *count);

/* Owner-computes iteration: the elements of PE pe with global index in
 * [lo, hi) as runs of consecutive global indices, which are also
 * consecutive in pe's part.  BLOCK: one run; CYCLIC: runs of 1 (npes > 1);
 * BLOCK_CYCLIC(b): runs of up to b.
 *     shmemx_dist_run_t r;
 *     for (shmemx_dist_iter_t it = shmemx_dist_iter(d, me, 0, SIZE_MAX);
 *          shmemx_dist_next(&it, &r);)
 *         for (size_t k = 0; k < r.count; k++) part[r.local + k] = f(r.global + k);
 */
typedef struct shmemx_dist_run {
    size_t global; /* first global index of the run */
    size_t local;  /* its index in the owner's part */
    size_t count;  /* elements */
} shmemx_dist_run_t;
typedef struct shmemx_dist_iter {
    shmemx_dist_t d;
    int pe;
    size_t next, end; /* local indices still to visit */
} shmemx_dist_iter_t;
shmemx_dist_iter_t shmemx_dist_iter(shmemx_dist_t d, int pe, size_t lo, size_t hi);
int shmemx_dist_next(shmemx_dist_iter_t *it, shmemx_dist_run_t *run);
/* Calls fn(part + run.local, run.global, run.count, ctx) for each run of this
 * PE's elements in [lo, hi).  Not collective, no barrier. */
void shmemx_dist_forall(shmemx_dist_t d, size_t lo, size_t hi,
                        void (*fn)(void *elems, size_t first, size_t count, void *ctx),
                        void *ctx);

/* Global get/put by index range: elements [first, first + count) to/from the
 * private (or symmetric) buffer buf, split into one transfer per owner (per
 * run where runs are long).  Not collective; complete on return (like
 * shmem_getmem/putmem: order with other PEs' accesses by a barrier).  On a
 * lazy array, get never fills the owner's blocks (fill-on-read, see lazy). */
void shmemx_dist_get(shmemx_dist_t d, void *buf, size_t first, size_t count);
void shmemx_dist_put(shmemx_dist_t d, size_t first, const void *buf, size_t count);

/* ---- Strategy 3: distributed ---------------------------------------------------
 * Collective.  Every PE fills only the elements it owns, with fill(global
 * index, my_pe), then a barrier.  With gather != NULL every PE then also
 * receives the whole array (n elements, in global order) into gather, a
 * private or symmetric buffer (all-gather), and a second barrier follows. */
void shmemx_dist_init(shmemx_dist_t d, shmemx_fill_t fill, void *gather);
/* Collective all-gather alone: the whole array into every PE's dest. */
void shmemx_dist_allgather(shmemx_dist_t d, void *dest);

/* ---- Strategy 4: lazy ------------------------------------------------------------
 * Collective.  A symmetric array of nelems elements whose copy on every PE
 * is filled block by block (block_bytes rounded up to whole pages and whole
 * elements; 0: one page) with fill(i, pe) the first time the block is touched:
 * by a load or store through the pointer on its PE, by another PE's
 * get/put/atomic or shmem_ptr load/store, or by shmemx_lazy_touch.  A block
 * nobody touched costs no memory.  Thread safe: one thread fills a block,
 * others touching it wait.
 *
 * Remote rule: a PE that touches another PE's block first fills it in the
 * owner's memory itself (it runs fill with the owner's pe; the owner is not
 * interrupted); shmemx_lazy_get and shmemx_dist_get instead compute a
 * never-filled block's values into the reader's buffer and commit nothing on
 * the owner (fill-on-read).  Either way every reader sees initialized data.
 *
 * Across nodes: a PE of another node cannot fill the owner's memory (it has
 * no mapping of it): touching or writing such a block (shmemx_lazy_touch,
 * shmemx_dist_put) asks the owner, whose helper thread fills and opens it;
 * reads compute never-filled blocks as above.  Before a plain get/put/atomic
 * from another node on a block its owner never touched, call
 * shmemx_lazy_touch (needed on RDMA networks; over TCP the owner fills it
 * when its transport touches it).
 *
 * Limits: system calls given a never-touched block (write(fd, p, n)) fail
 * with EFAULT instead of faulting it in: call shmemx_lazy_touch first.  A
 * SIGSEGV handler the program installs later must chain to the previous one
 * (the usual convention).  Free with shmemx_lazy_free, not shmem_free.
 * NULL when nelems == 0 or the heap is full (on every PE). */
void *shmemx_lazy_alloc(size_t nelems, size_t elem_size, size_t block_bytes, shmemx_fill_t fill);
/* Collective; returns the memory to the heap and releases its pages. */
void shmemx_lazy_free(void *sym);
/* Make sure PE pe's blocks covering [sym, sym + nbytes) are filled (filling
 * them in pe's memory if needed).  Not collective. */
void shmemx_lazy_touch(const void *sym, size_t nbytes, int pe);
/* shmem_getmem for lazy memory that commits nothing on pe: filled blocks
 * are copied, never-filled ones computed here (fill-on-read). */
void shmemx_lazy_get(void *dest, const void *sym, size_t nbytes, int pe);

typedef struct shmemx_lazy_info {
    size_t block_bytes;     /* effective block size */
    size_t blocks;          /* blocks in each PE's copy */
    size_t ready;           /* blocks of this PE's copy filled so far */
    uint64_t fills;         /* blocks this PE filled (in its own or a peer's copy) */
    uint64_t faults;        /* lazy SIGSEGVs this PE handled */
    uint64_t computed_reads;/* blocks shmemx_lazy_get computed instead of reading */
} shmemx_lazy_info_t;
/* Counters of the lazy array that contains sym (any address inside it). */
int shmemx_lazy_info(const void *sym, shmemx_lazy_info_t *info);

/* ---- Halo exchange (brief §4.4.2: only borders are exchanged) ----------------------
 * A 2-D array of nrows x ncols elements split in blocks over a process grid
 * (prows x pcols PEs; rank = prow * pcols + pcol), each PE's block stored
 * with `width` ghost rows and columns around it.  1-D: one row, split over
 * all PEs, ghosts left and right only.  Uneven splits as in BLOCK; when a
 * dimension has fewer elements than PEs the extra PEs own nothing and take
 * no part.  Boundaries: fixed (ghost cells at the global edge are the
 * caller's boundary values; exchange never writes them) or periodic. */
enum {
    SHMEMX_HALO_PERIODIC_ROWS = 1, /* row -1 is row nrows-1 (top/bottom wrap) */
    SHMEMX_HALO_PERIODIC_COLS = 2, /* column -1 is column ncols-1 */
    SHMEMX_HALO_PERIODIC = 3,
    SHMEMX_HALO_CORNERS = 4        /* also diagonal neighbours (9-point stencils) */
};
typedef struct shmemx_halo_s *shmemx_halo_t;
typedef struct shmemx_halo_box {
    size_t row0, col0;     /* global index of the first owned element */
    size_t nrows, ncols;   /* owned extent (0 x 0 on a PE that owns nothing) */
    size_t pitch;          /* elements from one row's start to the next (ghosts incl.) */
    size_t wrow, wcol;     /* ghost rows above/below, ghost columns left/right */
    int prow, pcol;        /* position in the process grid (-1: owns nothing) */
    int prows, pcols;      /* the grid */
} shmemx_halo_box_t;

/* Collective.  grid: {prows, pcols} with prows * pcols == npes, or NULL to
 * choose the grid with the least halo traffic. */
shmemx_halo_t shmemx_halo_create_2d(size_t nrows, size_t ncols, size_t elem_size, size_t width,
                                    int flags, const int *grid);
shmemx_halo_t shmemx_halo_create_1d(size_t n, size_t elem_size, size_t width, int flags);
void shmemx_halo_destroy(shmemx_halo_t h); /* collective */
/* Pointer to this PE's owned element (0, 0); element (r, c) of the block,
 * -wrow <= r < nrows + wrow, -wcol <= c < ncols + wcol, is at
 * data + (r * pitch + c) * elem_size.  box may be NULL. */
void *shmemx_halo_data(shmemx_halo_t h, shmemx_halo_box_t *box);
/* The box of any PE. */
void shmemx_halo_box(shmemx_halo_t h, int pe, shmemx_halo_box_t *box);
/* Collective: fill every ghost cell that has a neighbour with the
 * neighbour's border.  Synchronizes with the neighbours only (no global
 * barrier): on return this PE's ghosts are current and its neighbours are
 * done reading its border, so it may write its block again. */
void shmemx_halo_exchange(shmemx_halo_t h);
/* Not collective: copy the whole nrows x ncols array (no ghosts, row-major)
 * into dest.  Order with the writers yourself (e.g. a barrier). */
void shmemx_halo_gather(shmemx_halo_t h, void *dest);

/* ---- Local copy of remote data (brief §4.4.3) -----------------------------------------
 * A read cache: shmemx_cache_getmem is shmem_getmem served from local copies
 * of lines of line_bytes (a power of two) fetched once, in a cache of
 * capacity_bytes (4-way set associative, LRU).  Staleness rule (policy):
 *   SHMEMX_CACHE_MANUAL:        a line stays valid until invalidated,
 *                               refreshed or evicted;
 *   SHMEMX_CACHE_UNTIL_BARRIER: a line fetched before the latest barrier
 *                               (shmem_barrier_all, shmem_sync_all and the
 *                               collectives built on them) is stale: data
 *                               written by peers before that barrier is seen.
 * Reads of this PE's own memory bypass the cache.  shmemx_cache_putmem
 * writes through (the remote copy and the cached line).  A cache is used by
 * one thread at a time. */
enum { SHMEMX_CACHE_MANUAL = 0, SHMEMX_CACHE_UNTIL_BARRIER = 1 };
typedef struct shmemx_cache_s *shmemx_cache_t;
typedef struct shmemx_cache_stats {
    uint64_t hits, misses;    /* line lookups */
    uint64_t bytes_fetched;   /* bytes read from peers (whole lines) */
    uint64_t bytes_saved;     /* requested bytes served locally: remote reads avoided */
    uint64_t invalidations;   /* lines dropped by invalidate or the staleness rule */
} shmemx_cache_stats_t;
/* Not collective.  line_bytes 0: 4096.  NULL only on out of private memory. */
shmemx_cache_t shmemx_cache_create(size_t capacity_bytes, size_t line_bytes, int policy);
void shmemx_cache_destroy(shmemx_cache_t c);
void shmemx_cache_getmem(shmemx_cache_t c, void *dest, const void *source, size_t nbytes, int pe);
void shmemx_cache_putmem(shmemx_cache_t c, void *dest, const void *source, size_t nbytes, int pe);
void shmemx_cache_invalidate(shmemx_cache_t c);
/* Drop the lines holding [source, source + nbytes) of PE pe. */
void shmemx_cache_invalidate_range(shmemx_cache_t c, const void *source, size_t nbytes, int pe);
/* Fetch every valid line again now (e.g. right after a barrier). */
void shmemx_cache_refresh(shmemx_cache_t c);
void shmemx_cache_stats(shmemx_cache_t c, shmemx_cache_stats_t *st);

/* ---- Global pointers and the affinity arena (brief §4.4.1) ---------------------------
 * A global pointer names a symmetric address on one PE: (pe, address), in 64
 * bits, so it can itself be stored in symmetric memory, put, or swapped
 * atomically.  SHMEMX_GPTR_NULL is 0. */
typedef uint64_t shmemx_gptr_t;
#define SHMEMX_GPTR_NULL ((shmemx_gptr_t)0)
#define SHMEMX_GPTR_ADDR_BITS 48
static inline shmemx_gptr_t shmemx_gptr_make(const void *sym, int pe)
{
    return ((uint64_t)(pe + 1) << SHMEMX_GPTR_ADDR_BITS) |
           ((uint64_t)(uintptr_t)sym & (((uint64_t)1 << SHMEMX_GPTR_ADDR_BITS) - 1));
}
static inline int shmemx_gptr_pe(shmemx_gptr_t g)
{ return (int)(g >> SHMEMX_GPTR_ADDR_BITS) - 1; }
static inline void *shmemx_gptr_addr(shmemx_gptr_t g)
{ return (void *)(uintptr_t)(g & (((uint64_t)1 << SHMEMX_GPTR_ADDR_BITS) - 1)); }
/* Load/store pointer to the target (shmem_ptr), or NULL. */
void *shmemx_gptr_local(shmemx_gptr_t g);
void shmemx_gptr_get(void *dest, shmemx_gptr_t src, size_t nbytes);
void shmemx_gptr_put(shmemx_gptr_t dest, const void *src, size_t nbytes);

/* The arena: one collective allocation of bytes_per_pe on every PE, from which
 * any PE then allocates on any PE without a collective call: "put the data
 * on the PE that uses it" without the brief's allocate-on-one-PE deadlock.
 * alloc/free are thread safe and may run on any PE at once (a lock in the
 * target PE's part; a part on another node is locked with remote atomics and
 * walked with gets and puts: a few network round trips per call).  Blocks
 * are 16-byte aligned. */
typedef struct shmemx_arena_s *shmemx_arena_t;
shmemx_arena_t shmemx_arena_create(size_t bytes_per_pe); /* collective; NULL: heap full */
void shmemx_arena_destroy(shmemx_arena_t a);              /* collective */
/* size bytes in PE pe's part; SHMEMX_GPTR_NULL when that part is full. */
shmemx_gptr_t shmemx_arena_alloc(shmemx_arena_t a, size_t size, int pe);
/* Any PE may free any block of the arena. SHMEMX_GPTR_NULL does nothing. */
void shmemx_arena_free(shmemx_arena_t a, shmemx_gptr_t g);
typedef struct shmemx_arena_stats {
    size_t size, used, free, largest_free, blocks;
} shmemx_arena_stats_t;
void shmemx_arena_stats(shmemx_arena_t a, int pe, shmemx_arena_stats_t *st);

#endif /* SHMEMX_DIST_H */
