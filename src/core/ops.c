/* ops.c - the collective ops' names and how a signature of each is printed,
 * generated from the one list SHMI_COLL_OPS (state.h, issue 13).
 *
 * A signature (struct shmi_sig) holds an op and three argument words; the
 * list names, per op, the format that turns those words back into the call
 * the program made ("shmem_malloc(64)", "shmem_long_sum_reduce(dest=0x...,
 * nelems=4)") for the collective-mismatch messages of sync.c.  Each format
 * is one function fmt_<name> below; what the words hold is decided where
 * the op enters its barrier (mem.c, team.c, coll.c, reduce.c, mem_device.c). */
#include "core/team.h"

#include <stdio.h>
#include <string.h>

#define SHMI_OP_NAME(E, NAME, FMT) [SHMI_OP_##E] = NAME,
static const char *const op_name[SHMI_OP_COUNT] = { SHMI_COLL_OPS(SHMI_OP_NAME) };

const char *shmi_op_name(enum shmi_coll_op op)
{
    return op < SHMI_OP_COUNT && op_name[op] ? op_name[op] : "?";
}

/* ---- Formats: fmt_<name>(signature, public name, buf, len) ------------------
 * Each writes the call; 1 when the "[collective call #seq]" suffix follows. */

typedef int (*fmt_fn)(const struct shmi_sig *s, const char *name, char *buf, size_t len);

/* A symmetric address as shmi_sym_key encoded it: segment and offset. */
static void where(uint64_t key, char *buf, size_t len)
{
    int s = (int)(key >> 56) - 1;
    if (s < 0 || s >= shmi_g.tp.nseg) snprintf(buf, len, "NULL");
    else snprintf(buf, len, "%p", (void *)(shmi_g.tp.seg[s].base + (key & ((1ull << 56) - 1))));
}

static int fmt_none(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    (void)s;
    snprintf(buf, len, "%s()", name);
    return 1;
}

static int fmt_name(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    (void)s;
    snprintf(buf, len, "%s", name);
    return 1;
}

static int fmt_bare(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    (void)s;
    snprintf(buf, len, "%s", name);
    return 0;
}

static int fmt_size(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%lu)", name, (unsigned long)s->arg[0]);
    return 1;
}

static int fmt_two(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%lu, %lu)", name, (unsigned long)s->arg[0], (unsigned long)s->arg[1]);
    return 1;
}

static int fmt_heap_ptr(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%p)", name, (void *)(shmi_g.host.base + s->arg[0]));
    return 1;
}

static int fmt_heap_ptr_size(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%p, %lu)", name, (void *)(shmi_g.host.base + s->arg[0]),
             (unsigned long)s->arg[1]);
    return 1;
}

static int fmt_gpu_ptr(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%p)", name, (void *)(shmi_g.gpu.base + s->arg[0]));
    return 1;
}

static int fmt_gpu_ptr_size(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(%p, %lu)", name, (void *)(shmi_g.gpu.base + s->arg[0]),
             (unsigned long)s->arg[1]);
    return 1;
}

static int fmt_split(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(start=%ld, stride=%ld, size=%ld)", name, (long)s->arg[0],
             (long)s->arg[1], (long)s->arg[2]);
    return 1;
}

static int fmt_split_2d(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(xrange=%ld)", name, (long)s->arg[0]);
    return 1;
}

static int fmt_destroy(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s(team in slot %lu)", name, (unsigned long)s->arg[0]);
    return 1;
}

/* broadcast: bytes, root << 8 | element size, dest */
static int fmt_broadcast(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    unsigned long a0 = (unsigned long)s->arg[0], a1 = (unsigned long)s->arg[1];
    char d[32];
    where(s->arg[2], d, sizeof d);
    snprintf(buf, len, "%s(dest=%s, %lu bytes in %lu-byte elements, PE_root=%lu)", name, d, a0,
             a1 & 0xff, a1 >> 8);
    return 1;
}

/* collect: element size, 0, dest */
static int fmt_collect(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    char d[32];
    where(s->arg[2], d, sizeof d);
    snprintf(buf, len, "%s(dest=%s, %lu-byte elements)", name, d, (unsigned long)s->arg[0]);
    return 1;
}

/* fcollect, alltoall: bytes per PE, element size, dest */
static int fmt_per_pe(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    char d[32];
    where(s->arg[2], d, sizeof d);
    snprintf(buf, len, "%s(dest=%s, %lu bytes per PE in %lu-byte elements)", name, d,
             (unsigned long)s->arg[0], (unsigned long)s->arg[1]);
    return 1;
}

/* alltoalls: nelems, dst << 36 | sst << 8 | element size, dest */
static int fmt_alltoalls(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    unsigned long a0 = (unsigned long)s->arg[0], a1 = (unsigned long)s->arg[1];
    char d[32];
    where(s->arg[2], d, sizeof d);
    snprintf(buf, len, "%s(dest=%s, dst=%lu, sst=%lu, nelems=%lu, %lu-byte elements)", name, d,
             a1 >> 36, (a1 >> 8) & 0xfffffff, a0, a1 & 0xff);
    return 1;
}

/* reductions and scans: nelems, routine code (reduce.c), dest; named by
 * the routine ("shmem_long_sum_reduce"), not the op */
static int fmt_reduce(const struct shmi_sig *s, const char *name, char *buf, size_t len)
{
    (void)name;
    char d[32], rn[64];
    where(s->arg[2], d, sizeof d);
    snprintf(buf, len, "%s(dest=%s, nelems=%lu)", shmi_reduce_name(s->arg[1], rn, sizeof rn), d,
             (unsigned long)s->arg[0]);
    return 1;
}

#define SHMI_OP_FMT(E, NAME, FMT) [SHMI_OP_##E] = fmt_##FMT,
static const fmt_fn op_fmt[SHMI_OP_COUNT] = { SHMI_COLL_OPS(SHMI_OP_FMT) };

void shmi_op_describe(const struct shmi_sig *s, char *buf, size_t len)
{
    const char *name = shmi_op_name(s->op);
    if (!(s->op < SHMI_OP_COUNT ? op_fmt[s->op] : fmt_none)(s, name, buf, len)) return;
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, " [collective call #%lu]", (unsigned long)s->seq);
}
