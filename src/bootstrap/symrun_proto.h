/* symrun_proto.h - the wire protocol between symrun and its PEs.
 *
 * One place for the message layout, shared by the launcher (tools/symrun.c)
 * and the PE side (boot_symrun.c); it needs nothing but libc.
 *
 * Transport: each PE owns one end of an AF_UNIX SOCK_STREAM socketpair made by
 * symrun before the fork; the descriptor number is in SYMRUN_FD.  A stream
 * (not SEQPACKET) because an allgather reply may be far larger than a socket
 * buffer.  Every message is a 16-byte header followed by hdr.len payload
 * bytes.  Descriptors travel as SCM_RIGHTS attached to the sendmsg that
 * carries the header (at most SHMI_SYMRUN_FDS_PER_MSG per message), so the
 * receiver gets them on the recvmsg that reads the header's first byte.  Both
 * sides read exactly the bytes they need, never into the next message, so
 * descriptors can never be picked up with the wrong header.  Host byte order:
 * both ends run on the same machine.
 *
 *   PE -> symrun                          symrun -> PE
 *   HELLO  arg=version, payload rank,size  -
 *   ALLGATHER len=block, payload block     ALLGATHER len=size*block, all blocks
 *   BARRIER                                BARRIER
 *   FDS    arg=fds per PE, nfds=k (chunk)  FDS arg=size*fds per PE, nfds=k, in
 *                                          rank order, until all are sent
 *   ABORT  arg=exit code, payload=text     -
 *   FINI                                   -
 *   EXECFAIL arg=errno (written by the forked child when exec fails)
 *
 * Collectives are rounds: symrun answers when every PE has sent the same op
 * with the same len/arg; a mismatch or a PE that can no longer join ends the
 * job with a message naming both PEs. */
#ifndef SHMI_SYMRUN_PROTO_H
#define SHMI_SYMRUN_PROTO_H

#include <stdint.h>

#define SHMI_SYMRUN_MAGIC 0x5352u /* "SR" */
/* Bump on any change of this file: symrun refuses PEs of another version. */
#define SHMI_SYMRUN_VERSION 1
/* Below the kernel's SCM_MAX_FD (253); both sides size cmsg buffers by it. */
#define SHMI_SYMRUN_FDS_PER_MSG 64
/* ABORT text beyond this is cut (the PE has printed it in full already). */
#define SHMI_SYMRUN_ABORT_MSG_MAX 1024

enum shmi_symrun_op {
    SHMI_SYMRUN_HELLO = 1,
    SHMI_SYMRUN_ALLGATHER,
    SHMI_SYMRUN_BARRIER,
    SHMI_SYMRUN_FDS,
    SHMI_SYMRUN_ABORT,
    SHMI_SYMRUN_FINI,
    SHMI_SYMRUN_EXECFAIL,
};

struct shmi_symrun_hdr {
    uint16_t magic; /* SHMI_SYMRUN_MAGIC: catches a desynchronized stream */
    uint8_t op;     /* enum shmi_symrun_op */
    uint8_t nfds;   /* descriptors attached to this message */
    int32_t arg;    /* op-specific, see the table above */
    uint64_t len;   /* payload bytes that follow */
};

_Static_assert(sizeof(struct shmi_symrun_hdr) == 16, "wire header must be 16 bytes");

#endif
