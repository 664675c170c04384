/* heap.c - reserve the symmetric heap at one address on every PE.
 *
 * Agreement: in round r the proposer (PE r % npes) picks a free range of its
 * own address space; every PE tries to map its heap exactly there with
 * MAP_FIXED_NOREPLACE (which fails instead of clobbering an existing mapping);
 * an allgather of the results decides.  If any PE failed, the others unmap and
 * the next round uses another proposer's candidate.  With identical layouts
 * (symrun turns address randomization off) round 0 always succeeds.
 *
 * The base is aligned to 1 GiB: allocator offsets then keep their alignment
 * as addresses (shmem_align up to 1 GiB), and huge pages can back it. */
#include "heap/heap.h"
#include "util/assert.h"
#include "util/err.h"
#include "util/env.h"
#include "util/log.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define HEAP_ALIGN ((uintptr_t)1 << 30)
#define MAX_ROUNDS 8
_Static_assert(HEAP_ALIGN == SHMI_HEAP_BASE_ALIGN && HEAP_ALIGN == SHMI_ENV_HEAP_BASE_ALIGN,
               "SHMEM_HEAP_BASE's check (env.c) and the heap agree on the base's alignment");

static int host_create(const char *name, size_t size, int *fd)
{
    char label[64];
    snprintf(label, sizeof label, "symheap-%s", name);
    int f = memfd_create(label, MFD_CLOEXEC);
    if (f < 0) return SHMI_ESYS;
    if (ftruncate(f, (off_t)size) != 0) {
        int e = errno;
        close(f);
        errno = e;
        return SHMI_ESYS;
    }
    *fd = f;
    return SHMI_OK;
}

static int host_map(int fd, size_t size, void *at, int fixed, void **out)
{
    int flags = MAP_SHARED | MAP_NORESERVE | (fixed ? MAP_FIXED_NOREPLACE : 0);
    void *p = mmap(at, size, PROT_READ | PROT_WRITE, flags, fd, 0);
    if (p == MAP_FAILED) return SHMI_ESYS;
    if (fixed && p != at) { /* kernel without MAP_FIXED_NOREPLACE took it as a hint */
        munmap(p, size);
        errno = EEXIST;
        return SHMI_ESYS;
    }
    *out = p;
    return SHMI_OK;
}

static void host_unmap(void *addr, size_t size) { munmap(addr, size); }

const struct shmi_mkind_ops shmi_mkind_host = { "host", host_create, host_map, host_unmap };

/* A free, aligned range of `size` bytes in this process, or 0. */
static uintptr_t propose(size_t size)
{
    size_t len = size + HEAP_ALIGN;
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return 0;
    munmap(p, len);
    uintptr_t base = ((uintptr_t)p + HEAP_ALIGN - 1) & ~(HEAP_ALIGN - 1);
    SHMI_ASSERT(base >= (uintptr_t)p && base - (uintptr_t)p + size <= len);
    return base;
}

struct round_msg {
    uintptr_t candidate; /* this PE's proposal for the next round */
    int ok;              /* mapped at this round's base */
    int err;             /* errno when not ok */
};

/* Why no common base was found, when every failure was the address-space
 * limit (ulimit -v): that, not the layout, is what to change. */
static int as_limited(char *err, size_t errlen, size_t size)
{
    struct rlimit rl;
    char sz[32], lim[32];
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 0;
    snprintf(err, errlen, "cannot map %s of address space: the address-space limit (ulimit -v, "
             "RLIMIT_AS) is %s; raise it (ulimit -v unlimited) or lower SHMEM_SYMMETRIC_SIZE",
             shmi_fmt_size(size, sz, sizeof sz), shmi_fmt_size((size_t)rl.rlim_cur, lim, sizeof lim));
    return 1;
}

/* hint: the base SHMEM_HEAP_BASE asked for (0: none).  It is tried in round
 * 0 and, when any PE cannot map it, is an error naming the PE and a base that
 * would work: never silently replaced by another (issue 17). */
static int agree(struct shmi_seg *seg, shmi_boot_t *b, uintptr_t first, uintptr_t hint,
                 char *err, size_t errlen)
{
    struct round_msg *all = calloc((size_t)b->size, sizeof *all);
    if (!all) return SHMI_ENOMEM;
    uintptr_t base = first;
    int rc = SHMI_EBOOT, nomem = 1;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        struct round_msg me = { propose(seg->size), 0, ENOMEM };
        void *at = NULL;
        if (base) {
            me.ok = shmi_mkind_host.map(seg->fd, seg->size, (void *)base, 1, &at) == SHMI_OK;
            me.err = me.ok ? 0 : errno;
        }
        if ((rc = shmi_boot_allgather(b, &me, all, sizeof me)) != SHMI_OK) break;
        int bad = -1;
        for (int i = 0; i < b->size && bad < 0; i++)
            if (!all[i].ok) bad = i;
        if (bad < 0) {
            SHMI_ASSERT(at == (void *)base); /* mapped exactly at the agreed base */
            seg->base = at;
            free(all);
            return SHMI_OK;
        }
        if (me.ok) shmi_mkind_host.unmap(at, seg->size);
        for (int i = 0; i < b->size; i++)
            if (!all[i].ok && all[i].err != ENOMEM) nomem = 0;
        if (hint && round == 0) {
            char sz[32], alt[64] = "0 to let the PEs agree on one";
            if (all[0].candidate)
                snprintf(alt, sizeof alt, "e.g. %#lx (free on PE 0 now), or 0",
                         (unsigned long)all[0].candidate);
            snprintf(err, errlen, "SHMEM_HEAP_BASE=%#lx cannot be used: PE %d cannot map the "
                     "%s heap there (%s%s); use %s", (unsigned long)hint, bad,
                     shmi_fmt_size(seg->size, sz, sizeof sz), strerror(all[bad].err),
                     all[bad].err == EEXIST ? ": part of the range is already in use" : "", alt);
            free(all);
            return SHMI_EINVAL;
        }
        shmi_log_debug("heap base %#lx refused by PE %d (%s); trying PE %d's proposal",
                       (unsigned long)base, bad, strerror(all[bad].err), (round + 1) % b->size);
        base = all[(round + 1) % b->size].candidate;
        rc = SHMI_ENOMEM;
    }
    free(all);
    if (rc == SHMI_ENOMEM && nomem && as_limited(err, errlen, seg->size)) {
        /* said above */
    } else if (rc == SHMI_ENOMEM) {
        char sz[32];
        int symrun = b->ops && b->ops->name && !strcmp(b->ops->name, "symrun");
        snprintf(err, errlen,
                 "could not find an address range of %s free in every PE after %d tries; "
                 "lower SHMEM_SYMMETRIC_SIZE%s",
                 shmi_fmt_size(seg->size, sz, sizeof sz), MAX_ROUNDS,
                 symrun ? "" : ", or start the PEs with symrun (it disables address "
                               "randomization so every PE has the same layout)");
    } else {
        snprintf(err, errlen, "lost contact with the other PEs while placing the heap (%s)",
                 shmi_strerror(rc));
    }
    return rc;
}

int shmi_heap_reserve(struct shmi_seg *seg, shmi_boot_t *b, size_t size, uintptr_t hint,
                      char *err, size_t errlen)
{
    char sz[32];
    memset(seg, 0, sizeof *seg);
    seg->name = "heap";
    seg->size = (size + 4095) & ~(size_t)4095;
    seg->fd = -1;
    SHMI_ASSERT(b->size >= 1 && b->rank >= 0 && b->rank < b->size);
    if (seg->size < size) {
        snprintf(err, errlen, "SHMEM_SYMMETRIC_SIZE=%zu is too large for this machine", size);
        return SHMI_EINVAL;
    }
    if (shmi_mkind_host.create("heap", seg->size, &seg->fd) != SHMI_OK) {
        snprintf(err, errlen, "cannot create the %s heap: memfd_create/ftruncate: %s; "
                 "lower SHMEM_SYMMETRIC_SIZE", shmi_fmt_size(seg->size, sz, sizeof sz),
                 strerror(errno));
        return SHMI_ESYS; /* fatal: the caller aborts every PE */
    }
    /* Round 0's base: the hint, else PE 0's proposal (everyone learns it). */
    uintptr_t first = hint;
    if (!first) {
        uintptr_t mine = propose(seg->size), *all = calloc((size_t)b->size, sizeof mine);
        if (!all) return SHMI_ENOMEM;
        int rc = shmi_boot_allgather(b, &mine, all, sizeof mine);
        first = all[0];
        free(all);
        if (rc != SHMI_OK) {
            snprintf(err, errlen, "lost contact with the other PEs (%s)", shmi_strerror(rc));
            return rc;
        }
    }
    int rc = agree(seg, b, first, hint, err, errlen);
    if (rc != SHMI_OK) {
        close(seg->fd);
        seg->fd = -1;
    }
    return rc;
}

void shmi_heap_release(struct shmi_seg *seg)
{
    if (seg->base) shmi_mkind_host.unmap(seg->base, seg->size);
    if (seg->fd >= 0) close(seg->fd);
    seg->base = NULL;
    seg->fd = -1;
}
