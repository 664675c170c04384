/* coll_algs.c - the rows of the collective-algorithm table and the choice
 * of a team's row (coll.h, issue 13).
 *
 * The choice is made once per team, when it is made (shmi_team_init for the
 * predefined teams, a split for the others), from facts that do not change
 * while it lives: whether every member is mapped here (the transport's
 * answer, asked here and nowhere else) and, for the barrier, how many
 * members there are against the CPUs.  A new algorithm is a new row (or a
 * new entry in one), not a new branch in every call. */
#include "core/coll.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

/* Every member of t is mapped into our address space (on this node). */
static int all_mapped(const struct shmem_team_s *t)
{
    for (int i = 0; i < t->size; i++)
        if (!shmi_tp_mapped(&shmi_g.tp, shmi_team_pe(t, i))) return 0;
    return 1;
}

/* More members than CPUs: every member must get a CPU once to arrive and once
 * to leave, and dissemination makes it once per round.  Same answer on every
 * PE (online CPUs, not the affinity mask), so all members pick one scheme. */
static int central(int n)
{
    static int cpus; /* -1: always central, INT_MAX: never (SHMEM_BARRIER) */
    if (!cpus) {
        const char *b = shmi_g.env.BARRIER;
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        cpus = !strcmp(b, "central") ? -1 : !strcmp(b, "dissemination") ? INT_MAX
               : c > 0 ? (int)c : 1;
    }
    return n > cpus;
}

/* GPU memory: on one node the transport (copy engines) pulls the root's
 * broadcast; the other collectives are the host row's, whose checks reject
 * GPU addresses (not symmetric host memory) as before. */
#define SHMI_DEV_ROW(V, BCAST)                                                              \
    .broadcast = BCAST, .collect = shmi_collect_##V, .fcollect = shmi_fcollect_##V,        \
    .alltoall = shmi_alltoall_##V, .alltoalls = shmi_alltoalls_##V,                        \
    .reduce = shmi_reduce_##V, .scan = shmi_scan_##V

static const struct shmi_coll_algs dev_local = {
    .name = "node-local, through the transport", SHMI_DEV_ROW(local, shmi_bcast_tp),
};
static const struct shmi_coll_algs dev_nodes = {
    .name = "two-level, through the transport", SHMI_DEV_ROW(nodes, shmi_bcast_tp_nodes),
};

#define SHMI_HOST_ROW(V, DEV)                                                               \
    SHMI_DEV_ROW(V, shmi_bcast_##V), .dev = &DEV

static const struct shmi_coll_algs node_local = {
    .name = "node-local", .barrier = shmi_bar_dissemination, SHMI_HOST_ROW(local, dev_local),
};
/* More members than CPUs: the central barrier, and a small broadcast is pushed by its root, which
 * returns at once, instead of a barrier that needs every member to get a
 * CPU before anyone leaves (measured: docs/performance.md, issue 19). */
static const struct shmi_coll_algs node_local_push = {
    .name = "node-local, central barrier, push broadcast", .barrier = shmi_bar_central,
    SHMI_DEV_ROW(local, shmi_bcast_push), .dev = &dev_local, .push = 1,
};
/* Teams spanning nodes: the two-level barrier and broadcast, the fcollect
 * and collect gathered on each node with one transfer per node pair
 * (coll.c), and the reduction combined on each node first (reduce.c). */
static const struct shmi_coll_algs two_level = {
    .name = "two-level across nodes", .barrier = shmi_bar_two_level,
    .broadcast = shmi_bcast_nodes, .collect = shmi_collect_hier,
    .fcollect = shmi_fcollect_hier, .alltoall = shmi_alltoall_nodes,
    .alltoalls = shmi_alltoalls_nodes, .reduce = shmi_reduce_hier, .scan = shmi_scan_nodes,
    .dev = &dev_nodes,
};
/* One member per node: gathering on a node has nothing to gather, so the
 * flat forms (one transfer per member pair is one per node pair). */
static const struct shmi_coll_algs two_level_flat = {
    .name = "two-level across nodes, one PE per node", .barrier = shmi_bar_two_level,
    SHMI_HOST_ROW(nodes, dev_nodes),
};

/* No two members of t on one node (same answer on every PE). */
static int one_per_node(const struct shmem_team_s *t)
{
    for (int i = 0; i < t->size; i++)
        for (int j = 0; j < i; j++)
            if (shmi_node(shmi_team_pe(t, i)) == shmi_node(shmi_team_pe(t, j))) return 0;
    return 1;
}

const struct shmi_coll_algs *shmi_coll_choose(const struct shmem_team_s *t,
                                              const struct shmem_team_s *parent)
{
    /* a split of a node-local team is node-local: no member to ask about */
    int local = parent && parent->algs->barrier != shmi_bar_two_level ? 1 : all_mapped(t);
    if (!local) return one_per_node(t) ? &two_level_flat : &two_level;
    return central(t->size) ? &node_local_push : &node_local;
}
