/* symrun.h - what the two halves of symrun share: the job's state.
 *
 * symrun.c owns the processes (options, spawning, signals, exit statuses,
 * --prefix output, the poll loop); symrun_serve.c owns the bootstrap protocol
 * (reading PE messages, collective rounds, the per-PE reply queues).  One
 * thread; nothing here is locked.  Private to tools/: symrun links nothing of
 * the library and shares only symrun_proto.h with it. */
#ifndef SYMRUN_H
#define SYMRUN_H

#include "bootstrap/symrun_proto.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

enum {
    ABORT_MAX = SHMI_SYMRUN_ABORT_MSG_MAX,
};
#define NEVER INT64_MAX /* no deadline */

/* A reply shared by every PE's queue: freed (fds closed) with the last ref. */
struct blob {
    int refs;
    char *data;
    int *fds, nfds;
};

struct out {
    struct out *next;
    struct shmi_symrun_hdr h;
    struct blob *blob;
    const char *pay;          /* h.len bytes */
    const int *fds;           /* sent with the first byte */
    int nfds;
    size_t sent;              /* of header + payload */
};

struct lbuf { /* --prefix: one output pipe of a PE */
    int fd, dst;
    char *buf;
    size_t len;
};

struct pe {
    int rank, running, status;
    pid_t pid;
    int sock, connected, finalized, exec_errno;
    int joined, done, fds_got; /* in the current round */
    int64_t eof_at;
    struct shmi_symrun_hdr h;  /* message being read */
    size_t hgot;
    uint64_t pgot;
    int pend[SHMI_SYMRUN_FDS_PER_MSG], npend;
    char text[ABORT_MAX + 1];  /* HELLO / ABORT payload */
    struct out *q, *qtail;
    struct lbuf io[2];
};

struct round {
    int nj, ndone, first;
    int op;
    int32_t arg;
    uint64_t len;
    char *buf;
    int *fds;
};

struct opts {
    int n, prefix, aslr, check;
    int no_mps;                       /* --no-mps (symrun_mps.c) */
    int bind;                         /* --bind-to: BIND_AUTO, BIND_CORE, BIND_NONE */
    int ncpu, cpu[1024];              /* CPUs the PEs are bound to, by rank % ncpu; 0: none */
    double timeout;
    char **argv;
};

enum { BIND_AUTO, BIND_CORE, BIND_NONE };

enum { NHANDLED = 6 }; /* SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT */

struct job {
    struct opts o;
    struct pe *pe;
    struct round r;
    int running, ending, status;
    int64_t kill_at, deadline;
    struct {                          /* a failure held back (symrun_blame) */
        int64_t at;                   /* when it is reported; 0: none held */
        int status, culprit;
        char cause[1536];
    } held;
    pid_t self;
    int sig[2];
    struct rlimit nofile;             /* as inherited; restored in the PEs */
    sigset_t mask;                    /* likewise */
    struct sigaction old[NHANDLED];   /* likewise */
};

/* symrun.c */
int64_t symrun_now_ms(void); /* CLOCK_MONOTONIC */
/* The first failure: one line "symrun: <cause>; ending the other K PEs", the
 * job's exit status, then SIGTERM (SIGKILL later) to every PE.  Later calls
 * do nothing.  culprit: the rank the cause is about, or -1. */
void symrun_fail(struct job *j, int status, int culprit, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A PE's failure that may be the consequence of another PE's death (a
 * non-zero exit, an exit without shmem_finalize, an abort): held back
 * BLAME_GRACE_MS (or until no PE runs), then reported as symrun_fail does.
 * A PE killed by a signal meanwhile is reported instead (symrun_fail drops
 * what is held); a second failure held meanwhile is dropped (the first
 * wins). */
void symrun_blame(struct job *j, int status, int culprit, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* symrun_serve.c */
/* Read and handle every message waiting on p's socket (non-blocking). */
void symrun_pe_read(struct job *j, struct pe *p);
/* Send what p's queue holds, as far as the socket takes it. */
void symrun_pe_send(struct pe *p);
/* Close symrun's end of p's socket; drop partial input and queued output. */
void symrun_pe_close_sock(struct pe *p);
/* End the job if a round some PE waits in can never complete. */
void symrun_check_stuck(struct job *j);
/* Forget the current round (closing the descriptors it holds). */
void symrun_round_clear(struct job *j);

/* symrun_mps.c: a private CUDA MPS daemon when PEs share a GPU (issue 7).
 * start: before the PEs; 1 when one was started (its directories are in the
 * environment the PEs inherit).  stop: after the last PE; quits it and
 * removes its directory; nothing when none was started. */
int symrun_mps_start(struct job *j);
void symrun_mps_stop(void);

#endif
