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

#include "heap/alloc.h"

enum shmi_check_level { SHMI_CHECKS_OFF = 0, SHMI_CHECKS_CHEAP = 1, SHMI_CHECKS_FULL = 2 };
extern int shmi_checks; /* from SHMEM_CHECKS */

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
#define SHMI_CALLER() __builtin_return_address(0)
/* The program's call site of the collective this thread is entering: public
 * collective entry points set it (SHMI_SITE()), the barrier publishes it, and
 * mismatch messages name it for every PE. */
extern __thread void *shmi_call_site;
#define SHMI_SITE() (shmi_call_site = SHMI_CALLER())
/* Load bias of the main executable (0 for a non-PIE one). */
uintptr_t shmi_exe_bias(void);
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

/* Blocks that a module above the heap manages (e.g. lazy arrays, dist_lazy.c)
 * and that shmem_free/shmem_realloc must refuse: the module sets this hook,
 * which stops the program with a message naming the right call when ptr is
 * one of them.  NULL (the default) costs one load per free. */
extern void (*shmi_free_hook)(const char *fn, const void *ptr);

#endif
