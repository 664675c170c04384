/* fuzz_seeds.c - write the fuzz targets' starting corpora into the build tree.
 *
 *   fuzz_seeds ALLOC_DIR ENV_DIR
 *
 * Generated, never committed: a binary corpus in git cannot be reviewed.
 * alloc_fuzz reads any byte string as a program (alloc_fuzz.c's header), so
 * its seeds are pseudo-random programs, one per heap size and length, from a
 * fixed PRNG: the same seeds on every build.  env_fuzz's seeds are one of each
 * syntax its parsers accept or refuse (mode byte first, see env_fuzz.c).
 * libFuzzer grows its own corpus from these in a separate directory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        perror(path);
        exit(1);
    }
}

static void alloc_seeds(const char *dir)
{
    static const size_t lens[] = { 24, 200, 1500 };
    uint8_t buf[1500];
    uint64_t s = 1;
    char name[64];
    for (unsigned heap = 0; heap < 7; heap++) {
        for (unsigned l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            buf[0] = (uint8_t)heap;
            for (size_t i = 1; i < lens[l]; i++)
                buf[i] = (uint8_t)rnd(&s);
            snprintf(name, sizeof name, "heap%u-len%zu", heap, lens[l]);
            put(dir, name, buf, lens[l]);
        }
    }
}

static void env_seeds(const char *dir)
{
    /* mode 0 size, 1 bool, 2 env_load (variable, error length), 3 fmt_size */
    static const char *const texts[] = {
        "\0" "4G", "\0" "0x40000000", "\0" " 512mb ", "\0" "18446744073709551615",
        "\0" "16383T", "\0" "-1", "\0" "1.5G", "\1" "yes", "\1" "Off", "\1" "2",
        "\2\0\40" "8G", "\2\0\5" "0", "\2\1\200" "maybe", "\2\7\10" "full", "\2\5\40" "0xffffffffffffffff", "\2\11\40" "1g",
        "\2\11\40" "100T", "\2\0\40" "1", "\2\7\40" "0x7ffec0001000", "\2\7\40" "0x7ffec0000000",
        "\3\377\377\377\377\377\377\377\377\40", "\3\0\0\0\0\0\0\4\0\7",
    };
    char name[32];
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        /* The mode byte may be NUL: the length is 1 + the rest. */
        size_t n = 1 + strlen(texts[i] + 1);
        if (texts[i][0] == 2)
            n = 3 + strlen(texts[i] + 3);
        if (texts[i][0] == 3)
            n = 10;
        snprintf(name, sizeof name, "seed%zu", i);
        put(dir, name, texts[i], n);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ALLOC_DIR ENV_DIR\n", argv[0]);
        return 2;
    }
    alloc_seeds(argv[1]);
    env_seeds(argv[2]);
    return 0;
}
