/* pmix_prog.c MODE [MARKER] - a PE program for the PMIx tests.
 *
 *   local  every PE is on this node: SHMEM_TEAM_SHARED is the world,
 *          shmem_ptr reaches every PE, a put ring over heap and globals,
 *          prints "pmix_prog: local ok, N PEs" (PE 0)
 *   kill   after init, an allocation and a barrier, the last PE kills itself
 *          with SIGKILL while the others wait in a barrier (the launcher must
 *          end them; nothing may remain)
 *   fatal  the last PE makes a library-fatal call (bad PE number) while the
 *          others wait in a barrier
 * The marker argument is ignored (tests use it to find leftover processes). */
#include <shmem.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long ring; /* a symmetric global */

#define CHECK(c, ...)                                                              \
    do {                                                                           \
        if (!(c)) {                                                                \
            fprintf(stderr, "[pe %d] pmix_prog: FAILED %s: ", shmem_my_pe(), #c);  \
            fprintf(stderr, __VA_ARGS__);                                          \
            fprintf(stderr, "\n");                                                 \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "local";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *heap = shmem_malloc(sizeof(long));
    CHECK(heap != NULL, "shmem_malloc(8) gave NULL");
    shmem_barrier_all();
    if (!strcmp(mode, "local")) {
        CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == n, "SHMEM_TEAM_SHARED has %d PEs, world %d",
              shmem_team_n_pes(SHMEM_TEAM_SHARED), n);
        for (int pe = 0; pe < n; pe++)
            CHECK(shmem_ptr(heap, pe) && shmem_ptr(&ring, pe), "shmem_ptr to PE %d is NULL", pe);
        shmem_long_p(heap, me, (me + 1) % n);
        shmem_long_p(&ring, 1000 + me, (me + 1) % n);
        shmem_barrier_all();
        CHECK(*heap == (me + n - 1) % n, "heap holds %ld", *heap);
        CHECK(ring == 1000 + (me + n - 1) % n, "global holds %ld", ring);
        if (me == 0) printf("pmix_prog: local ok, %d PEs\n", n);
    } else if (!strcmp(mode, "kill") || !strcmp(mode, "fatal")) {
        printf("ready %d %ld\n", me, (long)getpid());
        fflush(stdout);
        shmem_barrier_all();
        if (me == n - 1 && n > 1) {
            if (!strcmp(mode, "kill")) raise(SIGKILL);
            shmem_long_p(heap, 1, n + 5);
        }
        shmem_barrier_all(); /* never completes with n > 1 */
        if (n > 1) return 2;
    } else {
        fprintf(stderr, "pmix_prog: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
