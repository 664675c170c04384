/* mkind_cuda.h - the "cuda" memory kind: GPU memory through the CUDA driver's
 * virtual memory management (VMM), loaded lazily (issue 7).
 *
 * libsymheap never links libcuda: shmi_cuda_load() dlopens libcuda.so.1 and
 * resolves every entry point with cuGetProcAddress, so the library runs
 * unchanged on machines without a driver or GPU (the kind then reports why
 * it is unavailable and the heap stays host-only).
 *
 * The kind's memory is made of chunks: each chunk is a cuMemCreate
 * allocation (pinned device memory, exportable as a POSIX fd), mapped with
 * cuMemMap into a range reserved beforehand with cuMemAddressReserve.  The
 * fd is what travels to the peers (SCM_RIGHTS through the bootstrap), exactly
 * like a host memfd.  shmi_mkind_cuda fills the same table as the host kind:
 *   create(name, size, &fd)  a new chunk of `size` bytes (a multiple of the
 *                            granularity) on our GPU, exported as fd;
 *   map(fd, size, at, 1, &p) map a chunk (ours or a peer's fd) at `at`, which
 *                            must lie in a range from shmi_cuda_reserve
 *                            (fixed == 0 is refused: VMM needs a reservation);
 *   unmap(addr, size)        undo map.
 * A chunk's memory lives while some process maps it; shmi_cuda_drop(fd)
 * releases the creator's handle and closes the fd once every peer mapped it.
 *
 * Thread safety: load/init once (shmem_init or the first GPU allocation, both
 * collective and single-threaded); copies may be called from any thread (the
 * context is made current where none is). */
#ifndef SHMI_MKIND_CUDA_H
#define SHMI_MKIND_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "heap/heap.h"

extern const struct shmi_mkind_ops shmi_mkind_cuda;

struct shmi_cuda_info {
    int device;            /* CUdevice ordinal used by this PE */
    int ndevices;
    int driver_version;    /* e.g. 13000 */
    size_t granularity;    /* cuMemGetAllocationGranularity (minimum) */
    char name[96];         /* device name */
    size_t total_mem, free_mem;
};

/* Load the driver and pick this PE's GPU: the device of the calling thread's
 * current context when there is one (the program called cudaSetDevice),
 * else device (local_rank % device count), whose primary context is made
 * current.  Idempotent.  0, or a negative code with one line in err saying
 * why (no driver, no GPU, no VMM / fd-export support) and what to do. */
int shmi_cuda_load(int local_rank, struct shmi_cuda_info *info, char *err, size_t errlen);
/* 1 once shmi_cuda_load succeeded. */
int shmi_cuda_ready(void);

/* Reserve `size` bytes of GPU virtual addresses aligned to `align`, at `hint`
 * if non-zero; *out gets the start, which may differ from hint (the caller
 * checks).  0 or a negative code (text via shmi_cuda_errstr). */
int shmi_cuda_reserve(size_t size, size_t align, uintptr_t hint, uintptr_t *out);
void shmi_cuda_unreserve(uintptr_t addr, size_t size);

/* Release the handle create() kept for fd (if any) and close fd. */
void shmi_cuda_drop(int fd);

/* A chunk made of the program's own GPU memory (nvshmemx_buffer_register_
 * symmetric): ptr must start a cuMemCreate allocation of at least len bytes on
 * our GPU, mapped at ptr, whose requested handle types include POSIX file
 * descriptors.  Exports it as fd like create() (map() and shmi_cuda_drop()
 * then treat it as a chunk; the drop releases only our extra reference: the
 * program keeps its allocation and mapping).  0, or SHMI_EINVAL with the
 * reason in shmi_cuda_errstr. */
int shmi_cuda_adopt(void *ptr, size_t len, int *fd);

/* Text of the last failed driver call of this thread ("cuMemCreate:
 * CUDA_ERROR_OUT_OF_MEMORY (out of memory)"), for messages. */
const char *shmi_cuda_errstr(void);

/* ---- the device (copies: transport/cuda.h) --------------------------------
 * All return 0 or SHMI_ESYS.  shmi_cuda_zero clears GPU memory (calloc of the
 * kind) and returns once it is done. */
int shmi_cuda_zero(void *dst, size_t n);
int shmi_cuda_stream_sync(void *stream);
int shmi_cuda_device_sync(void);
/* Free and total memory of our GPU now (cuMemGetInfo). */
int shmi_cuda_meminfo(size_t *free_bytes, size_t *total_bytes);

#endif
