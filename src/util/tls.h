/* tls.h - the one spelling of thread-local storage (issue 13).
 *
 * SHMI_TLS uses the initial-exec model: an access is one %fs-relative load
 * or store.  Plain _Thread_local in a shared library is general-dynamic: a
 * call to __tls_get_addr per function that touches it (22 instructions per
 * shmem_barrier_all, measured with callgrind, for the call site the barrier
 * publishes).  Initial-exec variables live in the static TLS block, of which
 * glibc keeps a small surplus for libraries loaded with dlopen (Python's
 * import of the symheap module): the hot ones here take under 100 bytes.
 * SHMI_TLS_COLD is for large buffers off the fast paths (error text), which
 * stay general-dynamic so as not to spend that surplus. */
#ifndef SHMI_TLS_H
#define SHMI_TLS_H

#define SHMI_TLS __attribute__((tls_model("initial-exec"))) _Thread_local
#define SHMI_TLS_COLD _Thread_local

#endif
