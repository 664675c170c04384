/* boot_single.c - the bootstrap of a program started without a launcher.
 *
 * One PE (rank 0 of 1): allgather is a copy, barrier does nothing, the fd
 * exchange hands back duplicates, abort only returns (the caller exits), so
 * every SHMEM program also runs as a plain command. */
#include "bootstrap/boot_impl.h"
#include "util/err.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int single_init(shmi_boot_t *b)
{
    b->rank = 0;
    b->size = 1;
    b->priv = NULL;
    return 0;
}

static int single_allgather(shmi_boot_t *b, const void *in, void *out, size_t len)
{
    (void)b;
    if (len && in != out) memmove(out, in, len); /* in may alias out */
    return 0;
}

static int single_barrier(shmi_boot_t *b)
{
    (void)b;
    return 0;
}

static int single_exchange_fds(shmi_boot_t *b, const int *fds, int nfds, int *all)
{
    (void)b;
    int rc = 0;
    if (nfds < 0) return SHMI_EINVAL;
    for (int k = 0; k < nfds; k++) all[k] = -1;
    for (int k = 0; k < nfds; k++) {
        all[k] = fcntl(fds[k], F_DUPFD_CLOEXEC, 0);
        if (all[k] < 0) { rc = SHMI_ESYS; goto out; }
    }
out:
    if (rc != 0)
        for (int k = 0; k < nfds; k++)
            if (all[k] >= 0) { close(all[k]); all[k] = -1; }
    return rc;
}

static void single_abort(shmi_boot_t *b, int code, const char *msg)
{
    (void)b; (void)code; (void)msg; /* no other PE to tell; the caller exits */
}

static void single_fini(shmi_boot_t *b)
{
    b->priv = NULL;
}

const struct shmi_boot_ops shmi_boot_single_ops = {
    .name = "single",
    .init = single_init,
    .allgather = single_allgather,
    .barrier = single_barrier,
    .exchange_fds = single_exchange_fds,
    .abort = single_abort,
    .fini = single_fini,
};
