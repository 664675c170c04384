/* debug.h - built-in debugging: call sites, guard zones, address origins,
 * the watchdog and self-test (issue #3).  Controlled by SHMEM_CHECKS
 * (off | cheap | full), SHMEM_WATCHDOG, SHMEM_SELFTEST, SHMEM_HEAP_REPORT.
 *
 * Every heap block carries, in its allocator tag, the id of the call site that
 * allocated it and the size of its front guard:
 *     [front guard][user bytes][back guard]
 * Guards are filled with SHMI_GUARD_BYTE and checked at free, realloc,
 * finalize and shmemx_heap_check.  With SHMEM_CHECKS=off there are none. */
#ifndef SHMI_DEBUG_H
#define SHMI_DEBUG_H

#include <stddef.h>
#include <stdint.h>

#include "core/hooks.h" /* shmi_checks, SHMI_SITE */
#include "heap/alloc.h"


#define SHMI_GUARD 32            /* back guard, and front guard for align <= 32 */
#define SHMI_GUARD_BYTE 0xfd     /* guard zone filling */
#define SHMI_POISON_BYTE 0xdd    /* freed memory with SHMEM_CHECKS=full */

/* ---- Call sites ----------------------------------------------------------
 * A site is the return address of the public call (who called shmem_malloc)
 * plus the operation's name.  Interned into a small table; id 0 = unknown. */
uint32_t shmi_site_intern(void *ret, const char *op);
void *shmi_site_ret(uint32_t id);
const char *shmi_site_op(uint32_t id);
/* "file.c:12 (main)" when debug info and addr2line are there, else
 * "main+0x1c (prog)" from dladdr, else the raw address.  Slow: for reports. */
char *shmi_site_describe(void *ret, char *buf, size_t len);
/* " at file.c:12 (main)" for a call site that a PE whose executable has load
 * bias exe published; "" when it cannot be told (0, or not in the program).
 * Slow: for error messages. */
char *shmi_site_of_pe(uint64_t site, uint64_t exe, char *buf, size_t len);

/* ---- Block layout ------------------------------------------------------- */
static inline uint64_t shmi_tag_make(uint32_t site, uint32_t front)
{ return ((uint64_t)site << 32) | front; }
static inline uint32_t shmi_tag_site(uint64_t tag) { return (uint32_t)(tag >> 32); }
static inline uint32_t shmi_tag_front(uint64_t tag) { return (uint32_t)tag; }
/* Front guard for a given alignment (0 when checks are off, or when the
 * alignment is above 4 KiB: padding that large would waste too much). */
size_t shmi_guard_front(size_t align);
size_t shmi_guard_back(void);
/* User view of an allocator block. */
struct shmi_ublock {
    size_t off;       /* allocator offset (block start, front guard first) */
    char *user;       /* what the user got */
    size_t size;      /* user bytes */
    size_t front, back;
    uint32_t site;
};
void shmi_ublock_of(const struct shmi_block_info *bi, struct shmi_ublock *ub);
void shmi_guard_fill(const struct shmi_ublock *ub);
/* 0 when intact; otherwise fills a one-line description of the damage
 * (which side, how many bytes changed, how far the write went). */
int shmi_guard_check(const struct shmi_ublock *ub, char *why, size_t len);

/* ---- Where an address comes from (for error messages) --------------------
 * "a local variable on the stack", "memory from malloc", "a freed symmetric
 * block (128 bytes from main.c:10)", "static data of libfoo.so", ... */
char *shmi_addr_origin(const void *addr, char *buf, size_t len);

/* ---- Checks run by the API layer ---------------------------------------- */
/* Check every live block's guards (and quarantined blocks' poison); report
 * each damaged block on stderr; return how many. */
int shmi_heap_check(void);
/* SHMEM_SELFTEST: the brief's manual checks on a fresh block (collective). */
void shmi_selftest_block(const char *fn, char *user, size_t size, int zeroed);
/* At finalize, PE 0 prints how many blocks the self-test checked (SHMEM_SELFTEST). */
void shmi_selftest_summary(void);

/* SHMEM_CHECKS cheap or full: the n bytes at heap address p (what: the
 * argument's name) lie inside one live block's user bytes; else stop with the
 * block, its size and allocation site, and how far the range runs past it
 * (hint: appended, e.g. how big the buffer must be).  Addresses outside the
 * heap (globals) are not checked.  Costs a tree lookup: for collectives. */
void shmi_mem_check_span(const char *fn, const char *what, const void *p, size_t n,
                         const char *hint);

/* ---- Releasing blocks, quarantine (quarantine.c) ------------------------ */
/* Give a freed block back: at once, or (SHMEM_CHECKS=full) poisoned into the
 * quarantine, whose oldest block is then checked and released. */
void shmi_block_release(const char *fn, const struct shmi_ublock *ub);
/* Release every quarantined block (checking its poison); how many. */
size_t shmi_quar_flush(const char *fn);
/* Heap offset off lies in a quarantined (freed) block: a double free. */
int shmi_quar_covers(size_t off);
/* A quarantined block is free as far as the user knows (reports, heap info). */
int shmi_mem_quarantined(size_t off);
void shmi_quar_stats(size_t *bytes, size_t *blocks);
/* The last shmem_finalize drops the allocator: forget the quarantine. */
void shmi_mem_fini(void);
/* Stop: "fn: the block at p (n bytes, from shmem_malloc at f.c:3) was why". */
_Noreturn void shmi_block_damaged(const char *fn, const struct shmi_ublock *ub, const char *why);

/* Fill core's hooks (core/hooks.h) with this layer's checks and reports;
 * shmem_init calls it once SHMEM_CHECKS is known. */
void shmi_debug_install(void);

#endif
