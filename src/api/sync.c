/* sync.c - ordering and the world barriers (OpenSHMEM 1.6 sections 9.8, 9.9):
 * quiet, fence, barrier_all, sync_all.  The barrier engine is the core's
 * (core/sync.c); quiet and fence go to every transport in use (core/peer.c). */
#include "core/state.h"
#include "core/team.h"

#include <shmem.h>

void shmem_quiet(void)
{
    shmi_check_running("shmem_quiet");
    shmi_quiet();
}

void shmem_fence(void)
{
    shmi_check_running("shmem_fence");
    shmi_fence(); /* every transport in use (peer.c) */
}

void shmem_barrier_all(void)
{
    shmi_check_running("shmem_barrier_all");
    SHMI_SITE();
    shmi_poll();
    shmi_quiet();
    shmi_team_barrier_op(SHMEM_TEAM_WORLD, "shmem_barrier_all", SHMI_OP_BARRIER);
}

void shmem_sync_all(void)
{
    shmi_check_running("shmem_sync_all");
    SHMI_SITE();
    shmi_poll();
    shmi_team_barrier_op(SHMEM_TEAM_WORLD, "shmem_sync_all", SHMI_OP_BARRIER);
}
