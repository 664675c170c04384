/* num.h - checked size arithmetic, written once.
 *
 * A count of elements times an element size comes from the user and may be
 * a negative int converted to size_t; every byte count derived from one goes
 * through shmi_mul_overflows (the compiler's overflow builtin: one multiply
 * and a flag test, no division).  Callers decide what an overflow means:
 * shmem_calloc returns NULL, RMA and collectives stop (shmi_nbytes). */
#ifndef SHMI_NUM_H
#define SHMI_NUM_H

#include <stdbool.h>
#include <stddef.h>

#include "util/log.h"

/* True when a * b does not fit in size_t.  Otherwise stores a * b in *prod
 * when prod is not NULL. */
static inline bool shmi_mul_overflows(size_t a, size_t b, size_t *prod)
{
    size_t p;
    if (__builtin_mul_overflow(a, b, &p)) return true;
    if (prod) *prod = p;
    return false;
}

/* nelems * elem bytes for the routine fn, or shmi_fatal naming fn and both
 * values when the product overflows size_t.  For public entry points only
 * (it may end the job). */
static inline size_t shmi_nbytes(const char *fn, size_t nelems, size_t elem)
{
    size_t n;
    if (shmi_mul_overflows(nelems, elem, &n))
        shmi_fatal("%s: nelems=%zu elements of %zu bytes overflow size_t: a negative count "
                   "converted to size_t?", fn, nelems, elem);
    return n;
}

#endif
