/* coll.c - collectives on teams (world and shared only, for now).
 *
 * Broadcast on one node: once the root has entered (first barrier), every PE
 * copies the root's source into its own dest with one memcpy from the root's
 * mapping; a second barrier keeps the root from changing source before all
 * have read it.  As in OpenSHMEM 1.5+, the root's dest is written too. */
#include "api/state.h"

#include <shmem.h>

#include <string.h>

static void check_team(const char *fn, shmem_team_t team)
{
    if (team != SHMEM_TEAM_WORLD && team != SHMEM_TEAM_SHARED)
        shmi_fatal("%s: team=%p is not a valid team: use SHMEM_TEAM_WORLD or a team from "
                   "shmem_team_split_*", fn, (void *)team);
}

static int broadcast(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nelems, size_t elem, int root)
{
    shmi_check_running(fn);
    check_team(fn, team);
    if (root < 0 || root >= shmi_g.npes)
        shmi_fatal("%s: PE_root=%d is out of range: the team has %d PEs (0..%d)", fn, root,
                   shmi_g.npes, shmi_g.npes - 1);
    if (nelems > SIZE_MAX / elem)
        shmi_fatal("%s: nelems=%zu overflows size_t", fn, nelems);
    size_t n = nelems * elem;
    void *d = n ? shmi_sym(fn, "dest", dest, n, shmi_g.me) : dest;
    const void *s = n ? shmi_sym(fn, "source", source, n, root) : source;
    shmi_quiet();
    shmi_barrier();
    if (n) memmove(d, s, n);
    shmi_barrier();
    return 0;
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{ return broadcast(__func__, team, dest, source, nelems, 1, PE_root); }

#define SHMI_DEF_BCAST(N, T, A, B, S, G)                                                   \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, \
                              int PE_root)                                                \
    { return broadcast(__func__, team, dest, source, nelems, sizeof(T), PE_root); }
SHMEM_TYPE_TABLE(SHMI_DEF_BCAST)
