/* heap.h - symmetric segments: address ranges every PE can reach.
 *
 * A segment is one range of this PE's memory, backed by a memory kind ("host":
 * a memfd, so nothing is ever left in /dev/shm and the memory goes away with
 * the last process that maps it; the GPU heap's segment is of the "cuda"
 * kind, mkind_cuda.h).  Two host segments exist:
 *   - the heap: reserved at the SAME virtual address on every PE (PEs agree on
 *     a base that is free in all of them, see shmi_heap_reserve);
 *   - the globals: the executable's data+bss moved onto a memfd in place, so
 *     peers can map it (its address is the same on every PE when address
 *     randomization is off, which symrun arranges; translation never relies on
 *     that).
 * Reserving costs no memory: MAP_NORESERVE shared mappings of a sparse memfd;
 * pages are committed when first touched.  The transport maps the peers'
 * segments (it receives the fds), the allocator carves the heap. */
#ifndef SHMI_HEAP_H
#define SHMI_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/boot.h"

struct shmi_seg {
    char *base;        /* this PE's mapping */
    size_t size;
    int fd;            /* backing memfd, -1 once the peers have mapped it */
    const char *name;  /* "heap" or "globals", for messages */
};

/* Memory kinds: how a segment's memory is created and mapped.  Two rows:
 * shmi_mkind_host (heap.c) and shmi_mkind_cuda (mkind_cuda.c: CUDA VMM
 * memory for the GPU heap, whose address reservation is its own). */
struct shmi_mkind_ops {
    const char *name;
    int (*create)(const char *name, size_t size, int *fd);
    /* Map fd at exactly `at` (fixed != 0, never replacing a mapping) or
     * anywhere (fixed == 0); *out gets the address. */
    int (*map)(int fd, size_t size, void *at, int fixed, void **out);
    void (*unmap)(void *addr, size_t size);
};
extern const struct shmi_mkind_ops shmi_mkind_host;

/* Collective: create this PE's heap of `size` bytes and map it at an address
 * all PEs agree on (hint: try this address first when non-zero).  On failure
 * writes one line into err (what, values, fix) and returns a negative code;
 * every PE returns the same code. */
#define SHMI_HEAP_BASE_ALIGN ((size_t)1 << 30) /* the agreed base is a multiple */
int shmi_heap_reserve(struct shmi_seg *seg, shmi_boot_t *b, size_t size, uintptr_t hint,
                      char *err, size_t errlen);
void shmi_heap_release(struct shmi_seg *seg);

/* Move the executable's writable data+bss onto a memfd in place (contents
 * kept, RELRO re-protected).  Call while no other thread writes globals.
 * Returns 0 and fills seg, or a negative code with the reason in err. */
int shmi_globals_share(struct shmi_seg *seg, char *err, size_t errlen);

#endif
