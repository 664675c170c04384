/* pe_hardening.c MODE - issue 17: misuse that used to crash bare or stop the
 * job wrongly, and what must keep working.
 *
 * Modes that must succeed (exit 0, PE 0 prints "pe_hardening: MODE ok"):
 *   fork          every PE forks after shmem_init; the child exits 0 (its
 *                 at-exit finalize must not run as the PE), the job goes on
 *   align         shmem_align(2^k) is 2^k-aligned for k = 0..30; alignment
 *                 0, 3, 48 and 2 GiB give NULL on every PE (one warning each)
 *                 and the job goes on
 *   threads_ok    SHMEM_THREAD_MULTIPLE: a second thread allocates and
 *                 synchronizes on every PE
 *   no_finalize   every PE returns from main without shmem_finalize: finalized
 *                 at exit, the job exits 0
 *   usr1          SIGUSR1 to itself, then a barrier: a heap report where
 *                 the default name puts it (report_security.sh checks where)
 * Modes that must end the job with symheap's one line (expect_fail.sh):
 *   ctx_garbage   shmem_ctx_long_p((shmem_ctx_t)0x1234, ...)
 *   put_null      shmem_putmem(sym, NULL, 8, pe)
 *   get_null      shmem_long_get(NULL, sym, 4, pe)
 *   put_wild      shmem_putmem from an unmapped private page
 *   get_wild      shmem_long_get into an unmapped private page
 *   iget_wild     shmem_long_iget into an unmapped private page
 *   thread_malloc shmem_init (SHMEM_THREAD_SINGLE), then shmem_malloc from a
 *                 second thread
 *   thread_barrier  the same with shmem_barrier_all */
#include <shmem.h>

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(c, ...)                                                                \
    do {                                                                             \
        if (!(c)) {                                                                  \
            fprintf(stderr, "[pe %d] pe_hardening: FAILED %s: ", shmem_my_pe(), #c); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* A private page that is no longer mapped. */
static void *unmapped_page(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    munmap(p, 4096);
    return p;
}

static void *thread_body(void *arg)
{
    const char *m = arg;
    if (!strcmp(m, "thread_malloc")) shmem_free(shmem_malloc(64));
    else if (!strcmp(m, "thread_barrier")) shmem_barrier_all();
    else { /* threads_ok */
        long *p = shmem_malloc(sizeof *p);
        *p = shmem_my_pe();
        shmem_barrier_all();
        long v = shmem_long_g(p, (shmem_my_pe() + 1) % shmem_n_pes());
        shmem_barrier_all();
        shmem_free(p);
        return (void *)(intptr_t)(v == (shmem_my_pe() + 1) % shmem_n_pes());
    }
    return NULL;
}

static int run_thread(const char *m)
{
    pthread_t t;
    void *r = NULL;
    if (pthread_create(&t, NULL, thread_body, (void *)m) != 0) abort();
    pthread_join(t, &r);
    return (int)(intptr_t)r;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "threads_ok")) {
        int provided;
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    } else {
        shmem_init();
    }
    int me = shmem_my_pe(), n = shmem_n_pes(), peer = (me + 1) % n;
    long *sym = shmem_calloc(64, sizeof(long));
    shmem_barrier_all();

    if (!strcmp(m, "fork")) {
        pid_t c = fork();
        CHECK(c >= 0, "fork failed");
        if (c == 0) exit(0); /* runs the at-exit handlers of the child */
        int st;
        CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "the child ended with status %#x", st);
        shmem_long_p(sym, me, peer);
        shmem_barrier_all();
        CHECK(sym[0] == (me + n - 1) % n, "sym[0] = %ld after the fork", sym[0]);
    } else if (!strcmp(m, "align")) {
        for (int k = 0; k <= 30; k++) {
            size_t a = (size_t)1 << k;
            char *p = shmem_align(a, 100);
            CHECK(p != NULL, "shmem_align(%zu, 100) gave NULL", a);
            CHECK(((uintptr_t)p & (a - 1)) == 0, "shmem_align(%zu, 100) gave %p", a, (void *)p);
            p[99] = 1;
            shmem_free(p);
        }
        static const size_t bad[] = { 0, 3, 48, (size_t)1 << 31 };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
            CHECK(shmem_align(bad[i], 64) == NULL, "shmem_align(%zu, 64) did not give NULL",
                  bad[i]);
        long *q = shmem_malloc(sizeof *q); /* the job goes on, allocations stay in step */
        CHECK(q != NULL, "shmem_malloc after the refused alignments gave NULL");
        shmem_free(q);
    } else if (!strcmp(m, "threads_ok")) {
        CHECK(run_thread(m), "the second thread read a wrong value");
    } else if (!strcmp(m, "no_finalize")) {
        shmem_barrier_all();
        if (me == 0) printf("pe_hardening: no_finalize ok\n");
        return 0;
    } else if (!strcmp(m, "usr1")) {
        CHECK(raise(SIGUSR1) == 0, "raise");
        shmem_barrier_all(); /* writes the report */
    } else if (!strcmp(m, "ctx_garbage")) {
        shmem_ctx_long_p((shmem_ctx_t)0x1234, sym, 1, peer);
    } else if (!strcmp(m, "put_null")) {
        shmem_putmem(sym, NULL, 8, peer);
    } else if (!strcmp(m, "get_null")) {
        shmem_long_get(NULL, sym, 4, peer);
    } else if (!strcmp(m, "put_wild")) {
        shmem_putmem(sym, unmapped_page(), 64, peer);
    } else if (!strcmp(m, "get_wild")) {
        shmem_long_get(unmapped_page(), sym, 4, peer);
    } else if (!strcmp(m, "iget_wild")) {
        shmem_long_iget(unmapped_page(), sym, 2, 1, 4, peer);
    } else if (!strcmp(m, "thread_malloc") || !strcmp(m, "thread_barrier")) {
        run_thread(m);
    } else {
        fprintf(stderr, "pe_hardening: unknown mode '%s'\n", m);
        return 2;
    }
    shmem_barrier_all();
    if (me == 0) printf("pe_hardening: %s ok\n", m);
    shmem_free(sym);
    shmem_finalize();
    return 0;
}
