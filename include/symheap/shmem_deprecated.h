/* shmem_deprecated.h - deprecated names the spec still lists (start_pes, shmalloc, *_to_all, ...).  Part of shmem.h; include shmem.h, not this file. */
#ifndef SHMEM_DEPRECATED_H
#define SHMEM_DEPRECATED_H
#endif
