/* state.c - the library's one global state (state.h), the core's hooks
 * (hooks.h), and the messages of the checks every entry point makes. */
#include "util/tls.h"
#include "core/state.h"

#include <stdint.h>
#include <string.h>

struct shmi_state shmi_g;
int shmi_checks = SHMI_CHECKS_CHEAP;
SHMI_TLS void *shmi_call_site;
int shmi_thread_checked;
pthread_t shmi_init_thread;

_Noreturn void shmi_wrong_thread(const char *fn)
{
    shmi_fatal("%s: called from a thread other than the one that called shmem_init, but the "
               "library was initialized with %s: only that thread may make SHMEM calls; "
               "initialize with shmem_init_thread(SHMEM_THREAD_SERIALIZED or "
               "SHMEM_THREAD_MULTIPLE, &provided) for threaded programs (SHMEM_CHECKS=off "
               "turns this check off)", fn,
               shmi_g.thread_level == SHMEM_THREAD_FUNNELED ? "SHMEM_THREAD_FUNNELED"
                                                            : "SHMEM_THREAD_SINGLE (shmem_init)");
}
struct shmi_hooks shmi_hooks;
atomic_int shmi_poll_pending;
SHMI_TLS const struct shmi_wait_desc *shmi_wait_cur;

_Noreturn void shmi_not_running(const char *fn)
{
    if (shmi_g.phase == SHMI_FINALIZED)
        shmi_fatal("%s called after shmem_finalize: OpenSHMEM calls are only valid between "
                   "shmem_init and shmem_finalize", fn);
    shmi_fatal("%s called before shmem_init: call shmem_init() (or shmem_init_thread) first", fn);
}

_Noreturn void shmi_bad_pe(const char *fn, int pe)
{
    shmi_fatal("%s: pe=%d is out of range: this job has %d PEs (0..%d); use a PE number "
               "below shmem_n_pes()", fn, pe, shmi_g.npes, shmi_g.npes - 1);
}

_Noreturn void shmi_bad_addr(const char *fn, const char *what, const void *addr, size_t n, int pe)
{
    const struct shmi_tp *tp = &shmi_g.tp;
    uintptr_t x = (uintptr_t)addr;
    for (int s = 0; s < tp->nseg; s++) {
        uintptr_t off = x - tp->seg[s].base;
        if (off < tp->seg[s].size)
            shmi_fatal("%s: %s=%p with %zu bytes (pe=%d) runs %zu bytes past the end of the "
                       "symmetric %s [%p, %p): shorten the transfer", fn, what, addr, n, pe,
                       n - (tp->seg[s].size - off), s == 0 ? "heap" : "globals",
                       (void *)tp->seg[s].base, (void *)(tp->seg[s].base + tp->seg[s].size));
        for (int p = 0; p < tp->npes; p++) {
            uintptr_t peer = (uintptr_t)tp->seg[s].peer[p];
            if (p != tp->me && x - peer < tp->seg[s].size)
                shmi_fatal("%s: %s=%p is PE %d's copy as returned by shmem_ptr, not a "
                           "symmetric address: pass the symmetric address (%p) instead",
                           fn, what, addr, p, (void *)(x - peer + tp->seg[s].base));
        }
    }
    char origin[256] = "memory outside the symmetric heap and globals";
    if (shmi_hooks.addr_origin) shmi_hooks.addr_origin(addr, origin, sizeof origin);
    shmi_fatal("%s: %s=%p is not a symmetric address: it is %s; use memory from shmem_malloc "
               "or a global/static variable", fn, what, addr,
               origin);
}

/* ---- the host heap's memory kind (state.h): memfd pages, which the CPU
 * loads and stores and which the kernel hands out zeroed -------------------- */

static int host_zero(void *p, size_t n)
{
    memset(p, 0, n);
    return SHMI_OK;
}

static int host_copy(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return SHMI_OK;
}

static const char *host_errstr(void) { return "no error"; }

const struct shmi_sheap_kind shmi_host_kind = {
    .name = "symmetric heap", .size_var = "SHMEM_SYMMETRIC_SIZE", .cpu = 1,
    .op_malloc = SHMI_OP_MALLOC, .zero = host_zero, .copy = host_copy, .errstr = host_errstr,
};
