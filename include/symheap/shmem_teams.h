/* shmem_teams.h - teams, team-based collectives and reductions.  Part of shmem.h; include shmem.h, not this file. */
#ifndef SHMEM_TEAMS_H
#define SHMEM_TEAMS_H
#endif
