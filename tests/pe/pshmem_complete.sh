#!/usr/bin/env bash
# pshmem_complete.sh LIB PSHMEM_H - the generated pshmem.h covers every routine
# of the library.
#
# pshmem.h's list (SHMI_PSHMEM_NAMES) is parsed from the preprocessed
# prototypes (cmake/pshmem_gen.cmake); a prototype that parse misses would
# leave its routine without a pshmem_ name, without the weak alias, and out
# of a profiling tool's reach, silently.  This test takes the other source of
# truth, the routines LIB exports under a public name (shmem_*, shmemx_*, the
# deprecated start_pes, _my_pe, _num_pes, shmalloc, shfree, shrealloc,
# shmemalign), and fails naming each one the list lacks.  The other
# direction, every listed name defined by the library as X and pX, is
# pshmem_names.
set -u
lib=$1 hdr=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' |
    grep -E '^(shmemx?_[A-Za-z0-9_]+|start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign)$' |
    sort -u)
listed=$(sed -n 's/^ *X(\([A-Za-z0-9_]*\)) *\\$/\1/p' "$hdr" | sort -u)
[ -n "$exported" ] || { echo "pshmem_complete: no public routine found in $lib (nm -D)" >&2; exit 1; }
[ -n "$listed" ] || { echo "pshmem_complete: no SHMI_PSHMEM_NAMES entry found in $hdr" >&2; exit 1; }
missing=$(comm -23 <(echo "$exported") <(echo "$listed"))
if [ -n "$missing" ]; then
    echo "pshmem_complete: $lib exports these routines, but $hdr does not list them (no" \
         "pshmem_ name; is their prototype written in a form cmake/pshmem_gen.cmake does" \
         "not parse?):" >&2
    echo "$missing" | sed 's/^/  /' >&2
    exit 1
fi
echo "pshmem_complete: all $(echo "$exported" | wc -l) exported routines are in pshmem.h" \
     "($(echo "$listed" | wc -l) listed)"
