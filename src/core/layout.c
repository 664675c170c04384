/* layout.c - the pure arithmetic of teams: rank translation and the node
 * layout of a team spanning nodes.  No global state, so it is tested alone
 * (layout_test.c). */
#include "core/team.h"

int shmi_team_rank_of(const struct shmem_team_s *t, int pe)
{
    if (t->stride == 0) return pe == t->start ? 0 : -1;
    int d = pe - t->start;
    if (d % t->stride) return -1;
    int i = d / t->stride;
    return i >= 0 && i < t->size ? i : -1;
}

void shmi_layout_nodes(const int *node, int n, int rank, struct shmi_hier *h)
{
    int mine = node[rank];
    h->node = mine;
    h->nlead = h->lead_idx = h->nlocal = 0;
    for (int r = 0; r < n; r++) {
        int first = 1; /* the node's lowest rank: a leader */
        for (int k = 0; k < h->nlead && first; k++) first = node[h->lead[k]] != node[r];
        if (first) {
            if (node[r] == mine) h->lead_idx = h->nlead;
            h->lead[h->nlead++] = r;
        }
        if (node[r] == mine) {
            if (!h->nlocal) h->leader = r;
            h->local[h->nlocal++] = r;
        }
    }
}
