/* rma.c - puts and gets.  On one node a put is a memcpy into the peer's
 * mapping of the heap (or globals), a get a memcpy out of it; both complete
 * before returning, so the _nbi forms are the same routines and quiet only
 * orders.  After a put we ring the peer's doorbell (a load, plus a system
 * call only when the peer sleeps in a wait). Typed families are generated
 * from SHMEM_TYPE_TABLE; every body is one call to a size-based routine. */
#include "api/state.h"

#include <shmem.h>

#include <string.h>

static size_t bytes(const char *fn, size_t nelems, size_t elem)
{
    if (nelems > SIZE_MAX / elem)
        shmi_fatal("%s: nelems=%zu elements of %zu bytes overflows size_t: a negative count "
                   "converted to size_t?", fn, nelems, elem);
    return nelems * elem;
}

static void shmi_put(const char *fn, void *dest, const void *src, size_t nelems, size_t elem, int pe)
{
    shmi_check_pe(fn, pe);
    size_t n = bytes(fn, nelems, elem);
    if (n == 0) return;
    void *d = shmi_sym(fn, "dest", dest, n, pe);
    if (pe == shmi_g.me) memmove(d, src, n);
    else memcpy(d, src, n);
    shmi_ring(&shmi_ctl_of(pe)->bell);
}

static void shmi_get(const char *fn, void *dest, const void *src, size_t nelems, size_t elem, int pe)
{
    shmi_check_pe(fn, pe);
    size_t n = bytes(fn, nelems, elem);
    if (n == 0) return;
    const void *s = shmi_sym(fn, "source", src, n, pe);
    if (pe == shmi_g.me) memmove(dest, s, n);
    else memcpy(dest, s, n);
}

/* Strided: element i goes from source[i*sst] to dest[i*dst] (strides in
 * elements, >= 1).  The whole span on the symmetric side is checked once. */
static void strided(const char *fn, char *dest, const char *src, ptrdiff_t dst, ptrdiff_t sst,
                    size_t nelems, size_t elem, int pe, int is_put)
{
    shmi_check_pe(fn, pe);
    if (nelems == 0) return;
    if (dst < 1 || sst < 1)
        shmi_fatal("%s: strides dst=%td sst=%td must be >= 1", fn, dst, sst);
    ptrdiff_t sym_stride = is_put ? dst : sst;
    size_t span = bytes(fn, bytes(fn, nelems - 1, (size_t)sym_stride) + 1, elem);
    char *sym = shmi_sym(fn, is_put ? "dest" : "source", is_put ? dest : src, span, pe);
    char *d = is_put ? sym : dest;
    const char *s = is_put ? src : sym;
    for (size_t i = 0; i < nelems; i++)
        memcpy(d + (size_t)dst * i * elem, s + (size_t)sst * i * elem, elem);
    if (is_put) shmi_ring(&shmi_ctl_of(pe)->bell);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{ shmi_put(__func__, dest, source, nelems, 1, pe); }
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{ shmi_get(__func__, dest, source, nelems, 1, pe); }
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{ shmi_put(__func__, dest, source, nelems, 1, pe); }
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{ shmi_get(__func__, dest, source, nelems, 1, pe); }

#define SHMI_DEF_RMA(N, T, A, B, S, G)                                                    \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                 \
    { shmi_put(__func__, dest, source, nelems, sizeof(T), pe); }                          \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                 \
    { shmi_get(__func__, dest, source, nelems, sizeof(T), pe); }                          \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)             \
    { shmi_put(__func__, dest, source, nelems, sizeof(T), pe); }                          \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)             \
    { shmi_get(__func__, dest, source, nelems, sizeof(T), pe); }                          \
    void shmem_##N##_p(T *dest, T value, int pe)                                          \
    { shmi_put(__func__, dest, &value, 1, sizeof(T), pe); }                               \
    T shmem_##N##_g(const T *source, int pe)                                              \
    { T v; shmi_get(__func__, &v, source, 1, sizeof(T), pe); return v; }                  \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,         \
                          size_t nelems, int pe)                                          \
    { strided(__func__, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(T), pe, 1); } \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,         \
                          size_t nelems, int pe)                                          \
    { strided(__func__, (char *)dest, (const char *)source, dst, sst, nelems, sizeof(T), pe, 0); }
SHMEM_TYPE_TABLE(SHMI_DEF_RMA)

#define SHMI_DEF_SIZED(BITS, BYTES)                                                       \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)           \
    { shmi_put(__func__, dest, source, nelems, BYTES, pe); }                              \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)           \
    { shmi_get(__func__, dest, source, nelems, BYTES, pe); }                              \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)     \
    { shmi_put(__func__, dest, source, nelems, BYTES, pe); }                              \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)     \
    { shmi_get(__func__, dest, source, nelems, BYTES, pe); }                              \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                          size_t nelems, int pe)                                          \
    { strided(__func__, dest, source, dst, sst, nelems, BYTES, pe, 1); }                  \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                          size_t nelems, int pe)                                          \
    { strided(__func__, dest, source, dst, sst, nelems, BYTES, pe, 0); }
SHMEM_SIZE_TABLE(SHMI_DEF_SIZED)
