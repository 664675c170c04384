/* pshmem_build.h - the profiling interface's two names, made while the API is
 * compiled: cmake/Layers.cmake force-includes this header into every source
 * of the layers that define public routines (api, ext), so no source names
 * it.
 *
 * For every routine X of SHMI_PSHMEM_NAMES (pshmem.h, generated during the
 * build into <build>/include from the prototypes of shmem.h and shmemx.h):
 *   - an asm label renames X to pX, so the routine is defined as the strong
 *     symbol pX and the library's own calls of X go to pX (a profiling tool
 *     that replaces X sees only the program's calls);
 *   - ".weak X; .set X, pX" makes X a weak alias of pX.  The assembler
 *     emits it only in the object that defines pX (in every other one pX is
 *     undefined and the pair is dropped), so one list serves every source.
 * A program or tool that defines X itself wins over the weak X, with
 * libsymheap.so and libsymheap.a alike, and calls pX for the real work. */
#ifndef SHMI_PSHMEM_BUILD_H
#define SHMI_PSHMEM_BUILD_H

#define SHMI_BUILDING_LIBRARY 1 /* headers leave out inline wrappers (shmemx.h) */
#include <shmem.h>
#include <shmemx.h>
#define SHMI_PSHMEM_NO_DECLS
#include <pshmem.h>

#define SHMI_PSHMEM_RENAME(n) extern __typeof__(n) n __asm__("p" #n);
SHMI_PSHMEM_NAMES(SHMI_PSHMEM_RENAME)
#define SHMI_PSHMEM_ALIAS(n) ".weak " #n "\n\t.set " #n ", p" #n "\n\t"
__asm__(SHMI_PSHMEM_NAMES(SHMI_PSHMEM_ALIAS));

#endif
