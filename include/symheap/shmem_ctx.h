/* shmem_ctx.h - communication contexts, signals, distributed locks, multi-element waits, non-blocking AMOs.  Part of shmem.h; include shmem.h, not this file. */
#ifndef SHMEM_CTX_H
#define SHMEM_CTX_H
#endif
