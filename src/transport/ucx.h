/* ucx.h - the network transport: UCX (UCP) for PEs on other nodes (issue 9).
 *
 * PEs of our node stay on load/store (shm.c); only PEs without a mapping
 * (tp->remote[pe], see tp.h) come here.  One UCP context and worker per PE;
 * worker addresses, the segments' bases and their packed remote keys are
 * exchanged with the bootstrap's allgather at init, and an endpoint is made
 * to every remote PE.  Every segment (heap, globals) is registered with
 * ucp_mem_map; the heap has the same address on every PE, the globals are
 * translated by offset (their base differs under ASLR).
 *
 * Completion: put returns when the source may be reused (local completion),
 * the _nbi forms when the operation is posted; get and fetching AMOs when
 * the value has arrived.  shmi_ucx_quiet flushes the worker: every operation
 * issued before it is complete at its target.  shmi_ucx_fence orders.
 *
 * Progress: a PE's memory is written by UCX only while its worker
 * progresses (the TCP transport emulates RMA with messages handled by the
 * target).  A progress thread sleeps on the worker's event fd, progresses
 * when something arrives and rings our doorbell, so waits (futex sleeps on
 * the doorbell) see remote writes without spinning, and a PE busy computing
 * still serves its peers.  Threads calling the operations progress too.
 *
 * libucp is loaded with dlopen when a job spans nodes (as libpmix): single-
 * node programs never load UCX (its signal handlers and memory hooks).
 *
 * Errors: functions return 0 or a negative shmi_err; shmi_ucx_why says what
 * happened with PE pe in one line, for the caller's fatal message. */
#ifndef SHMI_UCX_H
#define SHMI_UCX_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/boot.h"
#include "heap/heap.h"
#include "transport/tp.h" /* enum shmi_amo_op, shmi_tp_mode */

struct shmi_bell;

/* Collective over all PEs: load libucp, create context and worker, register
 * segs, exchange addresses and keys, connect to every PE with remote[pe] != 0.
 * bell: our doorbell, rung by the progress thread after remote writes.
 * timeout: seconds another node may stay silent before it is lost (tp.h,
 * shmi_tp_lost_hook); 0: never. */
int shmi_ucx_init(shmi_boot_t *b, const struct shmi_seg *segs, int nseg, const uint8_t *remote,
                  struct shmi_bell *bell, double timeout, char *err, size_t errlen);
/* Flush, close endpoints, stop the progress thread, free everything.  Call
 * after the last barrier (no peer needs us any more); idempotent. */
void shmi_ucx_fini(void);

/* dest/src on the PE side are OUR symmetric addresses (heap or globals),
 * already bounds-checked by the caller.  mode: enum shmi_tp_mode (tp.h). */
int shmi_ucx_put(void *dest, const void *src, size_t n, int pe, int mode);
int shmi_ucx_get(void *dest, const void *src, size_t n, int pe, int mode);
/* 4- or 8-byte AMO; *old gets the previous value for fetching ops (FETCH,
 * SWAP, CSWAP, and the others when old != NULL).  CSWAP: v is the new value,
 * c the comparand.  Blocking until the result (or local completion). */
int shmi_ucx_amo(void *dest, size_t size, enum shmi_amo_op op, uint64_t v, uint64_t c,
                 uint64_t *old, int pe);
/* The node of PE pe, as the lowest world PE on it (bootstrap's local PEs,
 * exchanged at init); pe itself when the transport is not up. */
int shmi_ucx_node(int pe);
int shmi_ucx_fence(void);
int shmi_ucx_quiet(void);
void shmi_ucx_progress(void);
/* "PE 3 on host 10.0.0.2: Connection reset by remote peer" */
const char *shmi_ucx_why(int pe, int rc, char *buf, size_t len);

#endif
