/* cuda.h - the GPU segment: one range of GPU virtual addresses at the SAME
 * address on every PE, backed on demand by chunks of GPU memory, and every
 * peer's copy mapped into ours (issue 7).
 *
 * Layout in each PE's GPU address space:
 *
 *   base .. base+size        our segment (same number on every PE)
 *   slots + p*size ..        PE p's segment, for every p != me
 *
 * so PE p's copy of symmetric address a is a - base + slots + p*size: no
 * table, two constants.  Both ranges are only reserved at first; growth maps
 * chunk by chunk from the bottom (the allocator's end) and the control chunk
 * at the top.  Every call here is collective unless stated otherwise, made by
 * every PE in the same order with the same arguments (the allocator above is
 * deterministic, so growth needs are identical), and is all-or-nothing: when
 * any PE fails, every PE undoes its part and gets the same error code. */
#ifndef SHMI_TP_CUDA_H
#define SHMI_TP_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/boot.h"

struct shmi_cuda_chunk {
    size_t off, len;            /* [off, off+len) of the segment */
};

struct shmi_cuda_seg {
    uintptr_t base;             /* same on every PE */
    size_t size;                /* reserved bytes, a multiple of gran */
    uintptr_t slots;            /* peers' copies, npes * size reserved */
    size_t gran;                /* mapping granularity */
    size_t low;                 /* [0, low) is backed (grows up) */
    size_t high;                /* [high, size) is backed (control chunk) */
    int me, npes;
    struct shmi_cuda_chunk *chunk;
    int nchunk, cap;
};

/* Reserve the segment at an address every PE agrees on (up to 8 rounds of
 * proposals, as for the host heap) plus the peer slots, then back the top
 * ctl_size bytes (rounded up to gran) on every PE, zeroed.  err gets one
 * line on failure. */
int shmi_cuda_seg_create(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t size,
                         size_t ctl_size, size_t gran, char *err, size_t errlen);

/* Make [0, need) backed: when it is not yet, add one chunk of at least
 * `chunk` bytes (rounded up to gran, capped at the free gap) on every PE and
 * map every peer's.  SHMI_ENOMEM (GPU memory exhausted on some PE; nothing
 * changed anywhere) or another code with err filled. */
int shmi_cuda_seg_grow(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t need, size_t chunk,
                       char *err, size_t errlen);

/* Map the program's own GPU memory [ptr, ptr+len) (see shmi_cuda_adopt) at
 * [off, off+len) of the segment, on every PE, each PE's own buffer, and every
 * peer's into its slot; all-or-nothing like growth.  [off, off+len) must be
 * unbacked (the caller keeps such ranges apart from the allocator's). */
int shmi_cuda_seg_adopt(struct shmi_cuda_seg *s, shmi_boot_t *b, size_t off, size_t len,
                        void *ptr, char *err, size_t errlen);
/* Unmap the adopted range [off, off+len) here and in every peer's slot (not
 * collective: each PE calls it once nobody uses the range).  SHMI_EINVAL
 * when no chunk is exactly that range. */
int shmi_cuda_seg_remove(struct shmi_cuda_seg *s, size_t off, size_t len);

/* ---- copy engines (cuda_copy.c; UVA: pointers may be host or device memory)
 * All return 0 or SHMI_ESYS (text: shmi_cuda_errstr).  The synchronous ones
 * return once the copy is complete and visible to every PE; they go through
 * the kind's private non-blocking stream, never the legacy default stream. */
int shmi_cuda_copy(void *dst, const void *src, size_t n);
/* Element i (elem bytes) goes from src + i*spitch to dst + i*dpitch. */
int shmi_cuda_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t elem,
                     size_t count);
/* Stream-ordered: enqueued on stream (a CUstream / cudaStream_t), returns at once. */
int shmi_cuda_copy_async(void *dst, const void *src, size_t n, void *stream);
/* Address and size of global `name` in a CUmodule (library 0) or CUlibrary
 * (1) the program loaded: 0, SHMI_EINVAL when it has none by that name. */
int shmi_cuda_global(void *obj, int library, const char *name, uint64_t *dptr, size_t *size);

/* Unmap everything and free the reservations (not collective). */
void shmi_cuda_seg_destroy(struct shmi_cuda_seg *s);

/* PE pe's copy of symmetric address a (not checked). */
static inline void *shmi_cuda_seg_peer(const struct shmi_cuda_seg *s, const void *a, int pe)
{
    uintptr_t x = (uintptr_t)a;
    return pe == s->me ? (void *)x : (void *)(x - s->base + s->slots + (size_t)pe * s->size);
}

/* Bytes of GPU memory this PE has backed (its own chunks). */
static inline size_t shmi_cuda_seg_backed(const struct shmi_cuda_seg *s)
{
    return s->low + (s->size - s->high);
}

#endif
