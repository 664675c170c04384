/* hooks.h - what the core asks of the layers above it, without calling up.
 *
 * The core (barrier engine, collectives, teams) names the program's call
 * site in mismatch messages, checks collective buffers against live heap
 * blocks, and serves reports asked for by a signal; all three are the debug
 * layer's business.  The core reaches them only through this table, which
 * shmem_init fills (debug's shmi_debug_install) and which is empty otherwise:
 * an empty hook costs one load and does nothing.  Dependencies thus point
 * down only: api -> debug -> core (issue 13). */
#ifndef SHMI_HOOKS_H
#define SHMI_HOOKS_H

#include "util/tls.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* SHMEM_CHECKS (off | cheap | full), set by shmem_init before anything else. */
enum shmi_check_level { SHMI_CHECKS_OFF = 0, SHMI_CHECKS_CHEAP = 1, SHMI_CHECKS_FULL = 2 };
extern int shmi_checks;

/* The program's call site of the collective this thread is entering: public
 * collective entry points set it (SHMI_SITE()), the barrier publishes it, and
 * mismatch messages name it for every PE. */
extern SHMI_TLS void *shmi_call_site;
#define SHMI_CALLER() __builtin_return_address(0)
#define SHMI_SITE() (shmi_check_thread(__func__), shmi_call_site = SHMI_CALLER())

/* SHMEM_THREAD_SINGLE and _FUNNELED: only the thread that called shmem_init
 * may call the library.  With SHMEM_CHECKS on, shmem_init sets
 * shmi_thread_checked and records the thread; the collective entry points
 * (those that name their call site, SHMI_SITE, e.g. barrier_all and the
 * allocation calls) compare: one load when off, pthread_self when on. */
extern int shmi_thread_checked;
extern pthread_t shmi_init_thread;
_Noreturn void shmi_wrong_thread(const char *fn);
static inline void shmi_check_thread(const char *fn)
{
    if (__builtin_expect(shmi_thread_checked, 0) && !pthread_equal(pthread_self(), shmi_init_thread))
        shmi_wrong_thread(fn);
}

struct shmi_hooks {
    /* The n bytes at heap address p (what: the argument's name) lie inside
     * one live block; else stop, naming the block (debug: SHMEM_CHECKS). */
    void (*check_span)(const char *fn, const char *what, const void *p, size_t n,
                       const char *hint);
    /* " at file.c:12 (main)" for a site another PE published, or "". */
    char *(*site_of_pe)(uint64_t site, uint64_t exe, char *buf, size_t len);
    /* Serve what a signal handler asked for (shmi_poll_pending set). */
    void (*poll)(void);
    /* "a local variable on the stack", "memory from malloc", ... for messages. */
    char *(*addr_origin)(const void *addr, char *buf, size_t len);
    /* shmem_free/shmem_realloc of ptr: stop when a module above the heap
     * manages the block (e.g. lazy arrays, ext/dist); NULL costs one load. */
    void (*free_check)(const char *fn, const void *ptr);
};
extern struct shmi_hooks shmi_hooks;

/* Set (from a signal handler) when a hook's poll has work. */
extern atomic_int shmi_poll_pending;
static inline void shmi_poll(void)
{
    if (__builtin_expect(atomic_load_explicit(&shmi_poll_pending, memory_order_relaxed), 0) &&
        shmi_hooks.poll)
        shmi_hooks.poll();
}

static inline void shmi_check_span(const char *fn, const char *what, const void *p, size_t n,
                                   const char *hint)
{
    if (shmi_checks != SHMI_CHECKS_OFF && shmi_hooks.check_span)
        shmi_hooks.check_span(fn, what, p, n, hint);
}

/* " at file.c:12 (main)" when the debug layer can tell, else "". */
static inline char *shmi_site_of(uint64_t site, uint64_t exe, char *buf, size_t len)
{
    if (len) buf[0] = 0;
    return shmi_hooks.site_of_pe ? shmi_hooks.site_of_pe(site, exe, buf, len) : buf;
}

#endif
