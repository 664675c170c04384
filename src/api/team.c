/* team.c - the teams' entry points (OpenSHMEM 1.6 section 9.4): queries,
 * translation, team pointers, team sync, splits and destroy.  The teams
 * themselves (slots, layouts, the algorithm table) are the core's
 * (core/team.c). */
#include "core/team.h"
#include "core/hooks.h" /* SHMI_SITE */

#include <shmem.h>

int shmem_team_my_pe(shmem_team_t team)
{
    shmi_check_running(__func__);
    return team == SHMEM_TEAM_INVALID ? -1 : shmi_team_get(__func__, team)->rank;
}

int shmem_team_n_pes(shmem_team_t team)
{
    shmi_check_running(__func__);
    return team == SHMEM_TEAM_INVALID ? -1 : shmi_team_get(__func__, team)->size;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    shmi_check_running(__func__);
    if (team == SHMEM_TEAM_INVALID) return -1;
    const struct shmem_team_s *t = shmi_team_get(__func__, team);
    if (config_mask && !config)
        shmi_fatal("%s: config is NULL with config_mask=%#lx: pass a shmem_team_config_t to "
                   "fill, or mask 0", __func__, (unsigned long)config_mask);
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = t->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    shmi_check_running(__func__);
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
    const struct shmem_team_s *s = shmi_team_get(__func__, src_team);
    const struct shmem_team_s *d = shmi_team_get(__func__, dest_team);
    if (src_pe < 0 || src_pe >= s->size) return -1;
    return shmi_team_rank_of(d, shmi_team_pe(s, src_pe));
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    shmi_check_running(__func__);
    if (team == SHMEM_TEAM_INVALID) return NULL;
    const struct shmem_team_s *t = shmi_team_get(__func__, team);
    if (pe < 0 || pe >= t->size)
        shmi_fatal("%s: pe=%d is out of range: the team has %d PEs (0..%d); pe is a team "
                   "rank (shmem_team_translate_pe converts)", __func__, pe, t->size, t->size - 1);
    int wpe = shmi_team_pe(t, pe);
    void *p = shmi_sym(__func__, "dest", dest, 0, wpe);
    /* mapped into our address space, or NULL: another node */
    const struct shmi_tp_ops *via = shmi_tp_route(&shmi_g.tp, dest, NULL, wpe);
    return SHMI_TP_DIRECT(via) || via->mapped ? p : NULL;
}

int shmem_team_sync(shmem_team_t team)
{
    shmi_check_running(__func__);
    SHMI_SITE();
    if (team == SHMEM_TEAM_INVALID) return -1;
    shmi_team_barrier_op(shmi_team_get(__func__, team), __func__, SHMI_OP_BARRIER);
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    shmi_check_running(__func__);
    SHMI_SITE();
    return shmi_team_split_strided(__func__, parent_team, start, stride, size, config,
                                   config_mask, new_team);
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    shmi_check_running(__func__);
    SHMI_SITE();
    return shmi_team_split_2d(__func__, parent_team, xrange, xaxis_config, xaxis_mask,
                              xaxis_team, yaxis_config, yaxis_mask, yaxis_team);
}

void shmem_team_destroy(shmem_team_t team)
{
    shmi_check_running(__func__);
    SHMI_SITE();
    shmi_team_destroy(__func__, team);
}
