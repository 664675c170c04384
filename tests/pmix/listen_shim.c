/* listen_shim.c - LD_PRELOAD for pmix_test.sh intrude (fdx_intruder.c): in
 * PE 0 (PMIX_RANK=0), after listen() on an abstract socket "symheap.*", write
 * its name into $SHIM_DIR/name and wait (at most 20 s) for $SHIM_DIR/go, so
 * that the intruder's connection is queued before any peer's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int listen(int fd, int backlog)
{
    int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "listen");
    int rc = real(fd, backlog);
    const char *dir = getenv("SHIM_DIR"), *rank = getenv("PMIX_RANK");
    struct sockaddr_un a;
    socklen_t al = sizeof a;
    if (rc != 0 || !dir || !rank || strcmp(rank, "0") ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0 || a.sun_family != AF_UNIX ||
        a.sun_path[0] != 0 || strncmp(a.sun_path + 1, "symheap.", 8))
        return rc;
    char tmp[4096], path[4096];
    snprintf(tmp, sizeof tmp, "%s/name.tmp", dir);
    snprintf(path, sizeof path, "%s/name", dir);
    FILE *f = fopen(tmp, "w");
    if (!f) return rc;
    fprintf(f, "%.*s\n", (int)(al - offsetof(struct sockaddr_un, sun_path) - 1), a.sun_path + 1);
    fclose(f);
    rename(tmp, path);
    snprintf(path, sizeof path, "%s/go", dir);
    for (int i = 0; i < 2000 && access(path, F_OK) != 0; i++) usleep(10 * 1000);
    return rc;
}
