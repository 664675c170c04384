/* layout_test.c - team rank translation and the node layout of teams
 * spanning nodes (layout.c), alone: no state, no bootstrap, no transport.
 * Directed cases (blocked and cyclic placement, a strided team, one node)
 * and randomized ones checked against the definition: a node's leader is
 * its lowest rank, leaders ascend, our node's members ascend. */
#include "core/team.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/unit_check.h"

static struct shmem_team_s team(int start, int stride, int size)
{
    struct shmem_team_s t;
    memset(&t, 0, sizeof t);
    t.start = start;
    t.stride = stride;
    t.size = size;
    return t;
}

static void test_rank_of(void)
{
    struct shmem_team_s all = team(0, 1, 8), odd = team(1, 2, 4), one = team(5, 0, 1);
    for (int pe = 0; pe < 8; pe++) CHECK(shmi_team_rank_of(&all, pe) == pe);
    CHECK(shmi_team_rank_of(&all, 8) == -1 && shmi_team_rank_of(&all, -1) == -1);
    CHECK(shmi_team_rank_of(&odd, 1) == 0 && shmi_team_rank_of(&odd, 3) == 1);
    CHECK(shmi_team_rank_of(&odd, 7) == 3);
    CHECK(shmi_team_rank_of(&odd, 0) == -1 && shmi_team_rank_of(&odd, 2) == -1);
    CHECK(shmi_team_rank_of(&odd, 9) == -1 && shmi_team_rank_of(&odd, -1) == -1);
    CHECK(shmi_team_rank_of(&one, 5) == 0 && shmi_team_rank_of(&one, 4) == -1);
    for (int start = 0; start < 5; start++) /* round trips */
        for (int stride = 1; stride < 5; stride++)
            for (int size = 1; size < 9; size++) {
                struct shmem_team_s t = team(start, stride, size);
                for (int i = 0; i < size; i++) CHECK(shmi_team_rank_of(&t, shmi_team_pe(&t, i)) == i);
                for (int pe = 0; pe < start + stride * size + 3; pe++) {
                    int r = shmi_team_rank_of(&t, pe);
                    CHECK(r == -1 || shmi_team_pe(&t, r) == pe);
                }
            }
}

static void layout(const int *node, int n, int rank, struct shmi_hier *h)
{
    static int lead[64], local[64];
    memset(h, 0, sizeof *h);
    h->lead = lead;
    h->local = local;
    shmi_layout_nodes(node, n, rank, h);
}

static int same(const int *a, const int *b, int n) { return !memcmp(a, b, (size_t)n * sizeof *a); }

static void test_directed(void)
{
    struct shmi_hier h;
    int blocked[] = { 0, 0, 2, 2 }, cyclic[] = { 0, 1, 0, 1 }, onenode[] = { 7, 7, 7 };
    layout(blocked, 4, 0, &h);
    CHECK(h.node == 0 && h.leader == 0 && h.nlead == 2 && h.lead_idx == 0 && h.nlocal == 2);
    CHECK(same(h.lead, (int[]){ 0, 2 }, 2) && same(h.local, (int[]){ 0, 1 }, 2));
    layout(blocked, 4, 3, &h);
    CHECK(h.node == 2 && h.leader == 2 && h.lead_idx == 1 && h.nlocal == 2);
    CHECK(same(h.local, (int[]){ 2, 3 }, 2));
    layout(cyclic, 4, 1, &h);
    CHECK(h.node == 1 && h.leader == 1 && h.nlead == 2 && h.lead_idx == 1);
    CHECK(same(h.lead, (int[]){ 0, 1 }, 2) && same(h.local, (int[]){ 1, 3 }, 2));
    layout(cyclic, 4, 2, &h);
    CHECK(h.leader == 0 && h.lead_idx == 0 && same(h.local, (int[]){ 0, 2 }, 2));
    layout(onenode, 3, 2, &h);
    CHECK(h.nlead == 1 && h.leader == 0 && h.nlocal == 3 && same(h.local, (int[]){ 0, 1, 2 }, 3));
}

static void test_random(void)
{
    srand(12345);
    for (int iter = 0; iter < 2000; iter++) {
        int n = 1 + rand() % 64, nodes = 1 + rand() % 6, node[64];
        for (int r = 0; r < n; r++) node[r] = 100 + rand() % nodes;
        int rank = rand() % n;
        struct shmi_hier h;
        layout(node, n, rank, &h);
        CHECK(h.node == node[rank]);
        int lowest = -1, count = 0, leaders = 0;
        for (int r = 0; r < n; r++) {
            if (node[r] == node[rank]) {
                if (lowest < 0) lowest = r;
                CHECK(count < h.nlocal && h.local[count] == r);
                count++;
            }
            int first = 1;
            for (int q = 0; q < r; q++) first &= node[q] != node[r];
            if (first) {
                CHECK(leaders < h.nlead && h.lead[leaders] == r);
                if (node[r] == node[rank]) CHECK(h.lead_idx == leaders);
                leaders++;
            }
        }
        CHECK(h.leader == lowest && h.nlocal == count && h.nlead == leaders);
    }
}

int main(void)
{
    test_rank_of();
    test_directed();
    test_random();
    if (fails) {
        fprintf(stderr, "layout_test: %d check(s) failed\n", fails);
        return 1;
    }
    printf("layout_test: ok\n");
    return 0;
}
