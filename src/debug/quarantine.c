/* quarantine.c - freed blocks kept poisoned before reuse (SHMEM_CHECKS=full),
 * and the heap check over every block's guards (see debug.h).
 *
 * With SHMEM_CHECKS=full, freed blocks are poisoned and kept in a quarantine
 * (FIFO) before their memory is reused; the poison is verified when they
 * leave it: a write after free is reported with the block's size and call
 * site.  The quarantine is the same on every PE (same calls), so allocation
 * stays deterministic. */
#include "debug/debug.h"
#include "core/state.h"
#include "util/err.h"

#include <stdio.h>
#include <string.h>

/* ---- Quarantine (SHMEM_CHECKS=full) -------------------------------------- */

#define QUAR_MAX 64
static size_t quar[QUAR_MAX];
static int quar_head, quar_len;
static size_t quar_bytes; /* spans of quarantined blocks: reported as free */

static size_t span_of(size_t off)
{
    struct shmi_block_info bi;
    shmi_alloc_find(shmi_g.host.alloc, off, &bi);
    return bi.span;
}

_Noreturn void shmi_block_damaged(const char *fn, const struct shmi_ublock *ub, const char *why)
{
    char site[256];
    shmi_fatal("%s: the block at %p (%zu bytes, from %s at %s) was %s", fn, (void *)ub->user,
               ub->size, shmi_site_op(ub->site), shmi_site_describe(shmi_site_ret(ub->site),
               site, sizeof site), why);
}

/* 0 when the quarantined block at off still holds its poison and guards. */
static int poison_damage(size_t off, struct shmi_ublock *ub, char *why, size_t len)
{
    struct shmi_block_info bi;
    shmi_alloc_find(shmi_g.host.alloc, off, &bi);
    shmi_ublock_of(&bi, ub);
    for (size_t i = 0; i < ub->size; i++)
        if ((unsigned char)ub->user[i] != SHMI_POISON_BYTE) {
            snprintf(why, len, "freed, then written after free (byte %zu of the freed block "
                     "changed): a use-after-free", i);
            return -1;
        }
    return shmi_guard_check(ub, why, len);
}

static void poison_check(const char *fn, size_t off)
{
    struct shmi_ublock ub;
    char why[200];
    if (poison_damage(off, &ub, why, sizeof why)) shmi_block_damaged(fn, &ub, why);
}

static void quar_release(const char *fn)
{
    size_t off = quar[quar_head];
    quar_head = (quar_head + 1) % QUAR_MAX;
    quar_len--;
    quar_bytes -= span_of(off);
    poison_check(fn, off);
    shmi_alloc_free(shmi_g.host.alloc, off);
}

/* For reports: a quarantined block is free as far as the user knows. */
int shmi_mem_quarantined(size_t off)
{
    for (int i = 0; i < quar_len; i++)
        if (quar[(quar_head + i) % QUAR_MAX] == off) return 1;
    return 0;
}

size_t shmi_quar_flush(const char *fn)
{
    size_t n = 0;
    for (; quar_len; n++) quar_release(fn);
    return n;
}

int shmi_quar_covers(size_t off)
{
    struct shmi_block_info bi;
    for (int i = 0; i < quar_len; i++) {
        size_t q = quar[(quar_head + i) % QUAR_MAX];
        if (q <= off && shmi_alloc_find(shmi_g.host.alloc, q, &bi) == SHMI_OK && off < bi.off + bi.size)
            return 1;
    }
    return 0;
}

/* The last shmem_finalize drops the allocator: forget the quarantined offsets
 * with it, so that a later shmem_init starts from an empty quarantine. */
void shmi_mem_fini(void)
{
    quar_head = quar_len = 0;
    quar_bytes = 0;
}

void shmi_block_release(const char *fn, const struct shmi_ublock *ub)
{
    if (shmi_checks < SHMI_CHECKS_FULL) {
        shmi_alloc_free(shmi_g.host.alloc, ub->off);
        return;
    }
    memset(ub->user, SHMI_POISON_BYTE, ub->size);
    if (quar_len == QUAR_MAX) quar_release(fn);
    quar[(quar_head + quar_len++) % QUAR_MAX] = ub->off;
    quar_bytes += span_of(ub->off);
}

void shmi_quar_stats(size_t *bytes, size_t *blocks)
{
    *bytes = quar_bytes;
    *blocks = (size_t)quar_len;
}

/* ---- Heap check ---------------------------------------------------------- */

static void report_damage(const struct shmi_ublock *ub, const char *why)
{
    char site[256];
    shmi_log_error("heap check: the block at %p (%zu bytes, from %s at %s) was %s",
                   (void *)ub->user, ub->size, shmi_site_op(ub->site),
                   shmi_site_describe(shmi_site_ret(ub->site), site, sizeof site), why);
}

static int check_one(const struct shmi_block_info *bi, void *arg)
{
    int *bad = arg;
    struct shmi_ublock ub;
    char why[200];
    if (!bi->live) return 0;
    for (int i = 0; i < quar_len; i++)
        if (quar[(quar_head + i) % QUAR_MAX] == bi->off) return 0;
    shmi_ublock_of(bi, &ub);
    if (shmi_guard_check(&ub, why, sizeof why) == 0) return 0;
    report_damage(&ub, why);
    (*bad)++;
    return 0;
}

int shmi_heap_check(void)
{
    int bad = 0;
    if (shmi_checks == SHMI_CHECKS_OFF) return 0;
    shmi_alloc_foreach(shmi_g.host.alloc, check_one, &bad);
    for (int i = 0; i < quar_len; i++) {
        struct shmi_ublock ub;
        char why[200];
        if (poison_damage(quar[(quar_head + i) % QUAR_MAX], &ub, why, sizeof why)) {
            report_damage(&ub, why);
            bad++;
        }
    }
    return bad;
}
