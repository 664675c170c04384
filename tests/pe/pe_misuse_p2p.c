/* pe_misuse_p2p.c MODE - one misuse of contexts, signals, waits or locks per
 * mode; expect_fail.sh checks that the job ends non-zero with the expected
 * one-line message and does not hang. */
#include "pe_test.h"
#include <pthread.h>
#include <string.h>

static shmem_ctx_t victim;

static void *destroy_it(void *arg)
{
    (void)arg;
    shmem_ctx_destroy(victim);
    return NULL;
}

static int ctx_modes(const char *m, long *sym, int me, int n)
{
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    if (!strcmp(m, "ctx_double_destroy")) {
        CHECK(shmem_ctx_create(0, &c) == 0);
        shmem_ctx_destroy(c);
        shmem_ctx_destroy(c);
    } else if (!strcmp(m, "ctx_after_destroy")) {
        CHECK(shmem_ctx_create(0, &c) == 0);
        shmem_ctx_destroy(c);
        shmem_ctx_long_p(c, sym, 1, (me + 1) % n);
    } else if (!strcmp(m, "ctx_invalid")) {
        shmem_ctx_long_atomic_inc(c, sym, 0);
    } else if (!strcmp(m, "ctx_garbage")) {
        static long not_a_ctx[8] = { 42 };
        shmem_ctx_quiet((shmem_ctx_t)(void *)not_a_ctx);
    } else if (!strcmp(m, "ctx_options")) {
        shmem_ctx_create(0x100, &c);
    } else if (!strcmp(m, "ctx_destroy_default")) {
        shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
    } else if (!strcmp(m, "ctx_private_thread")) {
        pthread_t t;
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &victim) == 0);
        pthread_create(&t, NULL, destroy_it, NULL);
        pthread_join(t, NULL);
    } else if (!strcmp(m, "team_ctx_pe")) {
        shmem_team_t odd;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd) == 0);
        if (odd != SHMEM_TEAM_INVALID) {
            CHECK(shmem_team_create_ctx(odd, 0, &c) == 0);
            shmem_ctx_long_p(c, sym, 1, n / 2); /* one past the team's last rank */
        }
        shmem_barrier_all();
        shmem_barrier_all();
    } else if (!strcmp(m, "pe_quiet_null")) {
        shmem_pe_quiet(NULL, 2);
    } else {
        return 0;
    }
    return 1;
}

static int p2p_modes(const char *m, long *sym, int me, int n)
{
    static uint64_t sig;
    int st[4] = { 0 };
    if (!strcmp(m, "bad_cmp")) {
        shmem_long_wait_until_any(sym, 4, st, 42, 0);
    } else if (!strcmp(m, "bad_cmp_test")) {
        shmem_long_test(sym, -1, 0);
    } else if (!strcmp(m, "null_indices")) {
        shmem_long_wait_until_some(sym, 4, NULL, st, SHMEM_CMP_EQ, 0);
    } else if (!strcmp(m, "null_cmp_values")) {
        shmem_long_test_all_vector(sym, 4, NULL, SHMEM_CMP_EQ, NULL);
    } else if (!strcmp(m, "wait_local")) {
        long local = 0;
        shmem_long_wait_until_all(&local, 1, NULL, SHMEM_CMP_EQ, 1);
    } else if (!strcmp(m, "bad_sig_op")) {
        shmem_long_put_signal(sym, sym + 8, 2, &sig, 1, 7, (me + 1) % n);
    } else if (!strcmp(m, "sig_overlap")) {
        shmem_putmem_signal(sym, sym + 8, 16, (uint64_t *)(void *)(sym + 1), 1,
                            SHMEM_SIGNAL_SET, (me + 1) % n);
    } else if (!strcmp(m, "sig_unaligned")) {
        shmem_signal_add((uint64_t *)(void *)((char *)sym + 4), 1, 0);
    } else if (!strcmp(m, "sig_local")) {
        uint64_t local = 0;
        shmem_signal_wait_until(&local, SHMEM_CMP_EQ, 1);
    } else if (!strcmp(m, "ibput_stride")) {
        shmem_long_ibput(sym, sym + 8, 2, 4, 4, 2, (me + 1) % n);
    } else if (!strcmp(m, "nbi_null_fetch")) {
        shmem_long_atomic_fetch_nbi(NULL, sym, 0);
    } else {
        return 0;
    }
    return 1;
}

static int lock_modes(const char *m, long *sym)
{
    static long lock;
    if (!strcmp(m, "lock_twice")) {
        shmem_set_lock(&lock);
        shmem_set_lock(&lock);
    } else if (!strcmp(m, "clear_unheld")) {
        shmem_clear_lock(&lock);
    } else if (!strcmp(m, "lock_not_zero")) {
        sym[3] = 5L << 32; /* this PE's half of the lock word */
        shmem_barrier_all();
        shmem_test_lock(&sym[3]);
    } else {
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *sym = shmem_calloc(16, sizeof(long));
    if (!ctx_modes(m, sym, me, n) && !p2p_modes(m, sym, me, n) && !lock_modes(m, sym)) {
        fprintf(stderr, "pe_misuse_p2p: unknown mode '%s'\n", m);
        return 2;
    }
    shmem_finalize();
    return 0; /* reaching here means the misuse went unnoticed */
}
