/* mem_device.h - the GPU symmetric heap seen from the rest of the API layer
 * (issue 7).  mem_device.c owns the heap (allocator, growth, device state),
 * the transport's copy-engine row (transport/cuda.c) the host operations on
 * GPU memory.
 *
 * The heap's allocator and range are shmi_g.gpu (0/0 until the GPU heap
 * exists, always in a build without CUDA), its device side shmi_g.dev.
 * Host operations on GPU memory are routed by the transport (tp.h): the
 * CPU cannot load or store it. */
#ifndef SHMI_MEM_DEVICE_H
#define SHMI_MEM_DEVICE_H

#include "core/state.h"

#include <stddef.h>
#include <stdint.h>

/* ---- set-up (init.c) -------------------------------------------------------- */
/* Collective, at shmem_init after the host heap: sets the GPU heap up now
 * when the program has symheap CUDA code (a registered device module) or
 * SHMEM_MALLOC_GPU=1; otherwise the first GPU allocation does.  Without a
 * usable GPU this does nothing (and says why with SHMEM_DEBUG=1). */
void shmi_gpu_init(void);
/* After the finalize barrier: wait for this PE's GPU work, unmap, release. */
void shmi_gpu_fini(void);

/* Device code's registration (shmemx_gpu_register): fn gets the device state
 * now if the GPU heap is up, and whenever it comes up.  Callable before
 * shmem_init (static constructors of CUDA code).  0, or -1. */
int shmi_gpu_register(shmemx_gpu_publish_t fn, unsigned version);
/* The device state of a CUmodule (library 0) or CUlibrary (1) the program
 * loaded itself (nvshmemx_cumodule_init): attach: it gets the state now if
 * the GPU heap is up, and whenever it comes up; else it is forgotten.  Loads
 * the CUDA driver if the heap has not yet.  0, or a code with the reason in
 * err: SHMI_EINVAL (no usable GPU, no state in the module, detaching one not
 * attached), SHMI_ERANGE (state of another size), SHMI_ENOMEM
 * (SHMI_GPU_MODULES attached), SHMI_ESYS (a driver call failed). */
int shmi_gpu_module(void *obj, int library, int attach, char *err, size_t errlen);
/* 1 while the GPU heap is up. */
int shmi_gpu_up(void);

/* ---- teams in kernels (issue 14) ------------------------------------------------
 * Entry index (an NVSHMEM team index, NVSHMEM_TEAMS_MIN and up) of this PE's
 * device team table (shmemx_gpu.h) now names team t (NULL: none).  With the
 * GPU heap up and t given, collective over t: every member zeroes the team's
 * control block (its own, by the team's slot) and the members synchronize
 * before returning, so no member's kernel writes a flag into a block its
 * owner has not zeroed yet.  Entries set before the heap comes up are
 * written when it does.  Fatal (naming fn) when the GPU cannot be written. */
struct shmem_team_s;
void shmi_gpu_team_set(const char *fn, int index, struct shmem_team_s *t);

/* ---- allocation (api/mem.c's one path takes the kind below) -------------------
 * Same rules as the host heap: collective, same address on every PE,
 * checked across PEs (op codes SHMI_OP_GPU_*), all-or-nothing NULL when the
 * heap or the GPU is full. */
/* Which heap a call without GPU hints uses: 1 when SHMEM_MALLOC_GPU=1. */
int shmi_gpu_default(void);
/* 1 when hints ask for GPU memory and it is (or, for
 * SHMEMX_MALLOC_DEVICE_AUTO, would be) available; sets the heap up lazily. */
int shmi_gpu_hinted(const char *fn, long hints);
/* The same for shmem_malloc_with_hints, where hints are advice (spec): with
 * SHMEMX_MALLOC_DEVICE and no GPU heap, 0 (host memory) and a warning, once. */
int shmi_gpu_hinted_soft(const char *fn, long hints);
/* Collective: the GPU heap is up after this (set up now if it is not), or
 * the program stops saying why. */
void shmi_gpu_ensure(const char *fn);
/* The GPU heap's memory kind (shmi_g.gpu.kind once it is up). */
extern const struct shmi_sheap_kind shmi_gpu_kind;
/* PE pe's copy of GPU symmetric address a (checked; a itself for our PE). */
void *shmi_gpu_ptr(const char *fn, const void *a, size_t n, int pe);

/* Collective (nvshmemx_buffer_register_symmetric): map each PE's GPU buffer
 * [buf, buf+size) (a cuMemCreate allocation exportable as a POSIX fd, size a
 * multiple of the granularity, the same on every PE) at one symmetric
 * address, past the allocator's part of the GPU segment, and every peer's
 * into its slot.  The address, or NULL on every PE with the reason in err. */
void *shmi_gpu_adopt(const char *fn, void *buf, size_t size, char *err, size_t errlen);
/* Collective: undo it (p and size as registered); 0 or SHMI_EINVAL with err. */
int shmi_gpu_unadopt(const char *fn, void *p, size_t size, char *err, size_t errlen);

/* Peer pe's copy of GPU or host symmetric address a (checked), for messages
 * and the checks before a transport's operation (tp.h). */
void *shmi_sym_any(const char *fn, const char *what, const void *a, size_t n, int pe);

#endif
