/* fdx_intruder.c DIR MODE UID GID - another local user attacks a job's
 * memory-handle exchange (issue 17).  Run as root by pmix_test.sh intrude.
 *
 * PE 0 of the job runs with listen_shim.so preloaded: when it listens on its
 * abstract memory-handle socket ("@symheap.<pid>.<nonce>", which everyone can
 * see in /proc/net/unix) the shim writes the name into DIR/name and waits for
 * DIR/go.  So the intruder connects, deterministically, before any real peer
 * can: as UID:GID it connects and sends nothing (MODE silent) or a fake
 * header with the right magic (MODE garbage), then creates DIR/go.  It holds
 * the connection until the PE closes it (at most 60 s).  Prints "intruder:
 * connected to @NAME ..." and "intruder: the PE closed the connection after
 * N ms"; exit 0, or 1 when it found nothing to attack. */
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: fdx_intruder DIR silent|garbage UID GID\n");
        return 2;
    }
    const char *dir = argv[1];
    int garbage = !strcmp(argv[2], "garbage");
    char path[4096], name[108] = "";
    snprintf(path, sizeof path, "%s/name", dir);
    long t0 = now_ms();
    for (;;) {
        FILE *f = fopen(path, "r");
        if (f) {
            int ok = fgets(name, sizeof name, f) != NULL;
            fclose(f);
            if (ok) break;
        }
        if (now_ms() - t0 > 60000) {
            printf("intruder: no socket of the job appeared\n");
            return 1;
        }
        usleep(10 * 1000);
    }
    name[strcspn(name, "\n")] = 0;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    size_t n = strlen(name);
    memcpy(a.sun_path + 1, name, n);
    /* as the other user: only the socket's credentials matter to the PE */
    if (setgroups(0, NULL) != 0 || setgid((gid_t)atoi(argv[4])) != 0 ||
        setuid((uid_t)atoi(argv[3])) != 0) {
        perror("intruder: setuid");
        return 1;
    }
    int rc = connect(s, (struct sockaddr *)&a,
                     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
    if (rc == 0 && garbage) { /* a plausible header: the right magic, rank 0, no descriptors */
        uint32_t h[4] = { 0x53484658u, 0, 1, 0 };
        if (write(s, h, sizeof h) != (ssize_t)sizeof h) rc = -1;
    }
    snprintf(path, sizeof path, "%s/go", dir);
    FILE *go = fopen(path, "w"); /* DIR is writable by everyone: made so by the test */
    if (go) fclose(go);
    if (rc != 0) {
        printf("intruder: could not connect to @%s\n", name);
        return 1;
    }
    printf("intruder: connected to @%s as uid %s (%s)\n", name, argv[3], argv[2]);
    fflush(stdout);
    long t1 = now_ms();
    char c;
    while (read(s, &c, 1) > 0 && now_ms() - t1 < 60000) {} /* until the PE closes it */
    printf("intruder: the PE closed the connection after %ld ms\n", now_ms() - t1);
    return 0;
}
