/* nvshmemx.h - NVSHMEM-style extensions of symheap (host only).
 *
 * NVSHMEM programs usually include both nvshmem.h and nvshmemx.h; this one
 * adds the extension names that make sense without a GPU, and symheap's own
 * shmemx_ extensions (shmemx_heap_info ...), which keep their shmemx_ names.
 * Nothing here has CUDA streams or device code: a CPU has neither. */
#ifndef SYMHEAP_NVSHMEMX_H
#define SYMHEAP_NVSHMEMX_H

#include <nvshmem.h>
#include <shmemx.h>

/* Every PE of this node; symheap runs on one node, so all of them. */
#define NVSHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

#endif /* SYMHEAP_NVSHMEMX_H */
