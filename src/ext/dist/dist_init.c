/* dist_init.c - initialization strategies 1-3 of the brief (§4.3): local,
 * root + broadcast, distributed (+ all-gather); the fill helpers that every
 * strategy (lazy too) uses; the temporary pull collectives.
 *
 * Fill helpers may run inside the lazy SIGSEGV handler, so they only call
 * the user's function and memcpy/memset (async-signal-safe since POSIX.1-2008
 * TC2): no allocation, no locks, no messages.
 *
 * Root + broadcast uses the team broadcast (shmem_broadcastmem).  The
 * all-gather of a distributed array is barrier + shmemx_dist_get of the
 * whole range (every PE pulls from every owner at once, one transfer per
 * owner, which on one node is as fast as a tree): parts have different sizes
 * and, for cyclic layouts, interleave, which shmem_fcollect cannot express;
 * shmem_collectmem could replace it for BLOCK. */
#include "ext/dist/dist_impl.h"
#include "core/state.h"
#include "util/num.h"

#include <string.h>

/* Copies of an elem-byte pattern: memset when all bytes are equal, else
 * doubling memcpy (log2(count) calls). */
static void fill_value(char *out, const unsigned char *v, size_t count, size_t elem)
{
    size_t total = count * elem, done = elem, k = 1;
    if (total == 0) return;
    while (k < elem && v[k] == v[0]) k++;
    if (k == elem) {
        memset(out, v[0], total);
        return;
    }
    memcpy(out, v, elem);
    while (done < total) {
        size_t n = shmi_min(done, total - done);
        memcpy(out + done, out, n);
        done += n;
    }
}

void shmi_fill_run(const shmemx_fill_t *f, void *out, size_t first, size_t count, size_t elem,
                   int pe)
{
    char *o = out;
    if (f->range) {
        f->range(out, first, count, pe, f->ctx);
    } else if (f->elem) {
        for (size_t k = 0; k < count; k++) f->elem(o + k * elem, first + k, pe, f->ctx);
    } else if (f->value) {
        fill_value(o, f->value, count, elem);
    } else {
        memset(o, 0, count * elem);
    }
}

void shmi_fill_check(const char *fn, const shmemx_fill_t *f)
{
    if (f->elem && f->range)
        shmi_fatal("%s: the fill has both an element and a range function: build it with "
                   "SHMEMX_FILL_ELEM, SHMEMX_FILL_RANGE or SHMEMX_FILL_VALUE", fn);
    if ((f->elem || f->range) && f->value)
        shmi_fatal("%s: the fill has a function and a value: use one of SHMEMX_FILL_ELEM/"
                   "RANGE/VALUE", fn);
}

/* The symmetric array's n bytes on this PE (checked), n may be 0. */
static char *sym_bytes(const char *fn, void *sym, size_t nelems, size_t elem)
{
    shmi_check_running(fn);
    if (elem == 0)
        shmi_fatal("%s: elem_size is 0: pass the size of one element, e.g. sizeof(double)", fn);
    size_t n = shmi_nbytes(fn, nelems, elem);
    if (n == 0) return sym;
    return shmi_sym(fn, "sym", sym, n, shmi_g.me);
}

void shmemx_init_local(void *sym, size_t nelems, size_t elem_size, shmemx_fill_t fill)
{
    char *p = sym_bytes(__func__, sym, nelems, elem_size);
    shmi_fill_check(__func__, &fill);
    shmi_fill_run(&fill, p, 0, nelems, elem_size, shmi_g.me);
    shmem_barrier_all();
}

void shmemx_init_root(void *sym, size_t nelems, size_t elem_size, shmemx_fill_t fill, int root)
{
    char *p = sym_bytes(__func__, sym, nelems, elem_size);
    shmi_fill_check(__func__, &fill);
    if (root < 0 || root >= shmi_g.npes)
        shmi_fatal("shmemx_init_root: root=%d is out of range: this job has %d PEs (0..%d)",
                   root, shmi_g.npes, shmi_g.npes - 1);
    if (shmi_g.me == root) shmi_fill_run(&fill, p, 0, nelems, elem_size, root);
    /* The team broadcast starts with a barrier (the root's copy is complete),
     * checks that every PE passed the same array and root, and ends with one
     * (nobody reads the root's copy any more).  dest == source is allowed. */
    shmem_broadcastmem(SHMEM_TEAM_WORLD, sym, sym, nelems * elem_size, root);
}

void shmemx_dist_init(shmemx_dist_t d, shmemx_fill_t fill, void *gather)
{
    shmi_check_running(__func__);
    if (!d) shmi_fatal("shmemx_dist_init: d is NULL: pass the handle shmemx_dist_create returned");
    shmi_fill_check(__func__, &fill);
    shmemx_dist_run_t r;
    for (shmemx_dist_iter_t it = shmemx_dist_iter(d, d->me, 0, SIZE_MAX); shmemx_dist_next(&it, &r);)
        shmi_fill_run(&fill, d->local + r.local * d->elem, r.global, r.count, d->elem, d->me);
    if (gather) shmemx_dist_allgather(d, gather);
    else shmem_barrier_all();
}

void shmemx_dist_allgather(shmemx_dist_t d, void *dest)
{
    shmi_check_running(__func__);
    if (!d) shmi_fatal("shmemx_dist_allgather: d is NULL");
    if (d->lay.n && !dest)
        shmi_fatal("shmemx_dist_allgather: dest is NULL: pass a buffer of n=%zu elements (%zu "
                   "bytes) on every PE", d->lay.n, d->lay.n * d->elem);
    shmem_barrier_all(); /* every part is written */
    shmemx_dist_get(d, dest, 0, d->lay.n);
    shmem_barrier_all(); /* nobody reads our part any more: we may write it */
}
