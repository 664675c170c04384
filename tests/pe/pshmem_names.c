/* pshmem_names.c - every routine of pshmem.h's list has both names, shmem_X
 * and pshmem_X, in the library: this program takes the address of each, so
 * it links only if all exist (built against libsymheap.so and libsymheap.a),
 * and checks at run time that none is NULL (a weak symbol left undefined). */
#define SHMEM_NO_DEPRECATION_WARNINGS
#include <pshmem.h>
#include <stdio.h>

typedef void (*fn_t)(void);
#define SHMI_REF(n) { #n, (fn_t)n, (fn_t)p##n },
static const struct { const char *name; fn_t x, px; } refs[] = { SHMI_PSHMEM_NAMES(SHMI_REF) };

int main(void)
{
    size_t n = sizeof refs / sizeof refs[0], bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!refs[i].x || !refs[i].px) {
            fprintf(stderr, "pshmem_names: %s or p%s is missing\n", refs[i].name, refs[i].name);
            bad++;
        }
    printf("pshmem_names: %zu routines, %zu missing\n", n, bad);
    return bad || n < 1000;
}
