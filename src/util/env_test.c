/* env_test.c - the size/bool parsers and the env table, without a bootstrap. */
#include "util/env.h"
#include "util/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static void size_ok(const char *s, size_t want)
{
    size_t v = 12345;
    int rc = shmi_parse_size(s, &v);
    if (rc || v != want) {
        fprintf(stderr, "parse_size(\"%s\") = %d, %zu; want %zu\n", s, rc, v, want);
        fails++;
    }
}

static void size_bad(const char *s)
{
    size_t v;
    if (shmi_parse_size(s, &v) != SHMI_EINVAL) {
        fprintf(stderr, "parse_size(\"%s\") accepted, want error\n", s);
        fails++;
    }
}

int main(void)
{
    size_ok("0", 0);
    size_ok("4096", 4096);
    size_ok("1k", 1024);
    size_ok("1K", 1024);
    size_ok("512m", 512ull << 20);
    size_ok("64G", 64ull << 30);
    size_ok("2T", 2ull << 40);
    size_ok("1GB", 1ull << 30);
    size_ok("0x1000", 4096);
    size_ok("010M", 10ull << 20);
    size_ok(" 8M ", 8ull << 20);
    size_bad("");
    size_bad("-1");
    size_bad("abc");
    size_bad("1X");
    size_bad("1.5G");
    size_bad("1GG");
    size_bad("99999999999999999999");
    size_bad("16777216T"); /* 2^64: overflows */

    int b;
    CHECK(shmi_parse_bool("yes", &b) == 0 && b == 1);
    CHECK(shmi_parse_bool("OFF", &b) == 0 && b == 0);
    CHECK(shmi_parse_bool("maybe", &b) == SHMI_EINVAL);

    struct shmi_env env;
    char err[256];
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    CHECK(shmi_env_load(&env, err, sizeof err) == 0);
    CHECK(env.SYMMETRIC_SIZE == 4ull << 30);
    setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == SHMI_EINVAL);
    CHECK(strstr(err, "SHMEM_SYMMETRIC_SIZE='12Q'") != NULL);
    setenv("SHMEM_SYMMETRIC_SIZE", "64G", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.SYMMETRIC_SIZE == 64ull << 30);
    setenv("SHMEM_DEBUG", "perhaps", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == SHMI_EINVAL);
    unsetenv("SHMEM_DEBUG");

    /* Ranges per variable (issue 17): counts, seconds and sizes, 0 and 1 alike. */
    size_t c;
    CHECK(shmi_parse_count(" 200 ", &c) == 0 && c == 200);
    CHECK(shmi_parse_count("0x10", &c) == SHMI_EINVAL);
    CHECK(shmi_parse_count("1k", &c) == SHMI_EINVAL);
    CHECK(shmi_parse_count("-1", &c) == SHMI_EINVAL);
    CHECK(shmi_parse_count("99999999999999999999", &c) == SHMI_EINVAL);
    static const struct { const char *var, *val, *msg; } refused[] = {
        { "SHMEM_WAIT_SPIN", "0xffffffffffffffff",
          "SHMEM_WAIT_SPIN='0xffffffffffffffff' is not valid: expected a whole number from 0 to 1000000 (default 200)" },
        { "SHMEM_WAIT_SPIN", "1000001",
          "SHMEM_WAIT_SPIN='1000001' is too large: at most 1000000 (a whole number from 0 to 1000000, default 200)" },
        { "SHMEM_WATCHDOG", "1g",
          "SHMEM_WATCHDOG='1g' is not valid: expected a whole number of seconds from 0 to 604800 (default 60)" },
        { "SHMEM_WATCHDOG", "100T", "SHMEM_WATCHDOG='100T' is not valid: expected a whole number of seconds" },
        { "SHMEM_WATCHDOG", "604801", "SHMEM_WATCHDOG='604801' is too large: at most 604800" },
        { "SHMEM_SYMMETRIC_SIZE", "0",
          "SHMEM_SYMMETRIC_SIZE='0' is too small: at least 1M (a size in bytes with an optional "
          "k/K/m/M/g/G/t/T suffix from 1M to 64T, default 4G)" },
        { "SHMEM_SYMMETRIC_SIZE", "1", "SHMEM_SYMMETRIC_SIZE='1' is too small: at least 1M (" },
        { "SHMEM_SYMMETRIC_SIZE", "18446744073709551615",
          "SHMEM_SYMMETRIC_SIZE='18446744073709551615' is too large: at most 64T" },
        { "SHMEM_HEAP_BASE", "0x7ffec0001000",
          "SHMEM_HEAP_BASE=0x7ffec0001000 is not a multiple of 1 GiB (0x40000000), the largest "
          "alignment shmem_align gives, so aligned blocks would be misaligned: use 0x7ffec0000000 "
          "or 0x7fff00000000, or 0 to let the PEs agree on a base" },
        { "SHMEM_HEAP_BASE", "1", "SHMEM_HEAP_BASE=1 is not a multiple of 1 GiB (0x40000000)" },
        { "SHMEM_HEAP_BASE", "0xffffffffffffffff",
          "SHMEM_HEAP_BASE='0xffffffffffffffff' is too large: at most 0x7fffc0000000" },
        { "SHMEM_HEAP_BASE", "0x7fffc0000000",
          "SHMEM_HEAP_BASE=0x7fffc0000000 cannot hold the heap: 4294967296 bytes from there pass "
          "the top of a process's address space (0x800000000000, 128 TiB); use a base from "
          "0x40000000 to 0x7ffec0000000 in steps of 0x40000000" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        setenv(refused[i].var, refused[i].val, 1);
        err[0] = 0;
        int rc = shmi_env_load(&env, err, sizeof err);
        if (rc != SHMI_EINVAL || strncmp(err, refused[i].msg, strlen(refused[i].msg))) {
            fprintf(stderr, "%s=%s: rc %d, message \"%s\"; want \"%s...\"\n", refused[i].var,
                    refused[i].val, rc, err, refused[i].msg);
            fails++;
        }
        unsetenv(refused[i].var);
    }
    setenv("SHMEM_WAIT_SPIN", "1000000", 1);
    setenv("SHMEM_WATCHDOG", "0", 1);
    setenv("SHMEM_SYMMETRIC_SIZE", "1M", 1);
    setenv("SHMEM_HEAP_BASE", "0x7ffec0000000", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.WAIT_SPIN == 1000000 &&
          env.WATCHDOG == 0 && env.SYMMETRIC_SIZE == 1 << 20 && env.HEAP_BASE == 0x7ffec0000000);
    unsetenv("SHMEM_WAIT_SPIN");
    unsetenv("SHMEM_WATCHDOG");
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("SHMEM_HEAP_BASE");
    for (int i = 0; i < shmi_env_count; i++) { /* every range parses with its kind */
        size_t lo, hi;
        const struct shmi_env_desc *d = &shmi_env_table[i];
        CHECK(!d->min[0] || shmi_parse_kind(d->kind, d->min, &lo) == 0);
        CHECK(!d->max[0] || shmi_parse_kind(d->kind, d->max, &hi) == 0);
    }

    /* NVSHMEM's names as aliases: read when the SHMEM_ one is unset, which wins. */
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    setenv("NVSHMEM_SYMMETRIC_SIZE", "2G", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.SYMMETRIC_SIZE == 2ull << 30);
    setenv("SHMEM_SYMMETRIC_SIZE", "1G", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.SYMMETRIC_SIZE == 1ull << 30);
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    setenv("NVSHMEM_SYMMETRIC_SIZE", "3Z", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == SHMI_EINVAL);
    CHECK(strstr(err, "NVSHMEM_SYMMETRIC_SIZE='3Z' (read as SHMEM_SYMMETRIC_SIZE) is not valid") != NULL);
    unsetenv("NVSHMEM_SYMMETRIC_SIZE");
    const char *from = NULL;
    setenv("NVSHMEM_DEBUG", "info", 1); /* NVSHMEM's levels */
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.DEBUG == 1);
    CHECK(strcmp(shmi_env_get("DEBUG", &from), "1") == 0 && strcmp(from, "NVSHMEM_DEBUG") == 0);
    setenv("NVSHMEM_DEBUG", "WARN", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.DEBUG == 0);
    unsetenv("NVSHMEM_DEBUG");
    setenv("NVSHMEM_INFO", "1", 1);
    setenv("NVSHMEM_VERSION", "true", 1);
    setenv("NVSHMEM_CUMEM_GRANULARITY", "512M", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && env.INFO == 1 && env.VERSION == 1 &&
          env.GPU_CHUNK == 512ull << 20);
    unsetenv("NVSHMEM_INFO");
    unsetenv("NVSHMEM_VERSION");
    unsetenv("NVSHMEM_CUMEM_GRANULARITY");
    setenv("NVSHMEM_BOOTSTRAP", "PMI", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == 0 && strcmp(env.BOOTSTRAP, "auto") == 0);
    setenv("NVSHMEM_BOOTSTRAP", "UID", 1);
    CHECK(shmi_env_load(&env, err, sizeof err) == SHMI_EINVAL);
    CHECK(strstr(err, "NVSHMEM_BOOTSTRAP='UID' (read as SHMEM_BOOTSTRAP, which also takes "
                      "NVSHMEM's PMI, MPI, SHMEM) is not valid") != NULL);
    setenv("SHMEM_BOOTSTRAP", "single", 1);
    CHECK(strcmp(shmi_env_get("BOOTSTRAP", &from), "single") == 0 &&
          strcmp(from, "SHMEM_BOOTSTRAP") == 0);
    unsetenv("SHMEM_BOOTSTRAP");
    unsetenv("NVSHMEM_BOOTSTRAP");
    CHECK(shmi_env_get("BOOTSTRAP", &from) == NULL);
    CHECK(shmi_env_get("NO_SUCH_SETTING", NULL) == NULL);
    CHECK(shmi_env_count >= 4);
    for (int i = 0; i < shmi_env_count; i++)
        CHECK(shmi_env_table[i].help && shmi_env_table[i].help[0]);
    CHECK(strcmp(shmi_strerror(SHMI_ENOMEM), "out of memory") == 0);

    if (fails) { fprintf(stderr, "env_test: %d failures\n", fails); return 1; }
    printf("env_test: ok\n");
    return 0;
}
