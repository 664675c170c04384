/* env_fuzz.c - libFuzzer target: the environment parsers (issue #3).
 *
 * The first input byte picks what is fed the rest of the input (as a C
 * string, up to its first NUL byte):
 *   0  shmi_parse_size, compared with a reference parser written straight
 *      from env.h's contract (decimal or 0x hex, one k/m/g/t suffix in either
 *      case meaning x1024^n, an optional b/B, spaces around, no sign, no
 *      overflow); an accepted value must parse back to itself from "%zu",
 *      from "0x%zx" and from every exact suffix form ("3M", "3mb").
 *   1  shmi_parse_bool, against the list of accepted words; an accepted
 *      value is 0 or 1 and parses back from "%d".
 *   2  shmi_env_load with one SHMEM_ variable (picked by the next byte) set to
 *      the string and the others unset: it accepts exactly what that
 *      variable's kind accepts (size and addr: the size syntax; count and
 *      seconds: decimal digits only), inside the variable's range (the
 *      table's min and max, read with the reference parsers), and for
 *      SHMEM_HEAP_BASE 0 or a multiple of 1 GiB with the default 4 GiB heap
 *      (plus its 1 GiB-rounded control block) below 2^47; a refusal writes a
 *      NUL-terminated message naming the variable into an error buffer of
 *      any length.
 *   3  shmi_fmt_size of 8 bytes into a buffer of 1..64 bytes: never writes
 *      past it, always terminates, and with room says n to within 5 %.
 * Nothing may crash; a mismatch prints the case and abort()s. */
#include "util/env.h"
#include "util/err.h"
#include "util/log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static _Noreturn void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("env_fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* ---- reference parsers: the C locale's classes, spelled out ----------------- */

static int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int hex_val(char c)
{
    if (is_digit(c))
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

static int ref_size(const char *s, uint64_t *out)
{
    while (is_space(*s))
        s++;
    if (!is_digit(*s))
        return SHMI_EINVAL;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] | 0x20) == 'x' && hex_val(s[2]) >= 0) {
        base = 16;
        s += 2;
    }
    uint64_t v = 0;
    int d, over = 0;
    while ((d = hex_val(*s)) >= 0 && (unsigned)d < base) {
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            over = 1;
        v = v * base + (uint64_t)d;
        s++;
    }
    unsigned shift = 0;
    switch (*s | 0x20) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: break;
    }
    if (shift)
        s++;
    if ((*s | 0x20) == 'b')
        s++;
    while (is_space(*s))
        s++;
    if (*s || over || v > (UINT64_MAX >> shift) || (v << shift) > SIZE_MAX)
        return SHMI_EINVAL;
    *out = v << shift;
    return SHMI_OK;
}

/* count and seconds: decimal digits, spaces around, no overflow of size_t. */
static int ref_count(const char *s, uint64_t *out)
{
    while (is_space(*s))
        s++;
    if (!is_digit(*s))
        return SHMI_EINVAL;
    uint64_t v = 0;
    int over = 0;
    for (; is_digit(*s); s++) {
        if (v > (SIZE_MAX - (uint64_t)(*s - '0')) / 10)
            over = 1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    while (is_space(*s))
        s++;
    if (*s || over)
        return SHMI_EINVAL;
    *out = v;
    return SHMI_OK;
}

/* The reference parser of a numeric kind, or -2 for bool/str. */
static int ref_num(const char *kind, const char *s, uint64_t *out)
{
    if (!strcmp(kind, "size") || !strcmp(kind, "addr"))
        return ref_size(s, out);
    if (!strcmp(kind, "count") || !strcmp(kind, "seconds"))
        return ref_count(s, out);
    return -2;
}

/* env.h lists 0/1/yes/no/on/off/true/false; env.c also takes y, n and the
 * empty string (an empty variable means "no"). */
static int ref_bool(const char *s, int *out)
{
    static const char *const words[] = { "1", "yes", "on", "true", "y",
                                         "0", "no", "off", "false", "n", "" };
    for (int i = 0; i < 11; i++)
        if (!strcasecmp(s, words[i])) {
            *out = i < 5;
            return SHMI_OK;
        }
    return SHMI_EINVAL;
}

/* ---- cases ------------------------------------------------------------------ */

static void size_back(const char *text, size_t want)
{
    size_t v = 0;
    int rc = shmi_parse_size(text, &v);
    if (rc || v != want)
        fail("shmi_parse_size(\"%s\") = %d, %zu; want %zu", text, rc, v, want);
}

static void case_size(const char *s)
{
    size_t v = 777;
    uint64_t r = 0;
    int rc = shmi_parse_size(s, &v), want = ref_size(s, &r);
    if (rc != want || (!rc && v != r))
        fail("shmi_parse_size(\"%s\") = %d (%zu), reference %d (%llu)", s, rc, v, want,
             (unsigned long long)r);
    if (rc) {
        if (v != 777)
            fail("shmi_parse_size(\"%s\") failed but wrote %zu", s, v);
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%zu", v);
    size_back(buf, v);
    snprintf(buf, sizeof buf, "0x%zx", v);
    size_back(buf, v);
    static const char units[] = "kmgt";
    for (unsigned i = 0; i < 4; i++) {
        unsigned shift = 10 * (i + 1);
        if (v % ((size_t)1 << shift))
            break;
        snprintf(buf, sizeof buf, "%zu%c", v >> shift, units[i] - 0x20);
        size_back(buf, v);
        snprintf(buf, sizeof buf, " %zu%cb ", v >> shift, units[i]);
        size_back(buf, v);
    }
}

static void case_bool(const char *s)
{
    int v = 7, r = 7;
    int rc = shmi_parse_bool(s, &v), want = ref_bool(s, &r);
    if (rc != want || (!rc && v != r))
        fail("shmi_parse_bool(\"%s\") = %d (%d), reference %d (%d)", s, rc, v, want, r);
    if (rc)
        return;
    char buf[8];
    snprintf(buf, sizeof buf, "%d", v);
    int back = 7;
    if (shmi_parse_bool(buf, &back) || back != v)
        fail("shmi_parse_bool(\"%s\") does not give back %d", buf, v);
}

static void unset_all(void)
{
    char name[64];
    for (int i = 0; i < shmi_env_count; i++) {
        snprintf(name, sizeof name, "SHMEM_%s", shmi_env_table[i].name);
        unsetenv(name);
    }
}

static void case_load(const char *s, unsigned pick, unsigned errlen)
{
    const struct shmi_env_desc *d = &shmi_env_table[pick % (unsigned)shmi_env_count];
    char name[64];
    snprintf(name, sizeof name, "SHMEM_%s", d->name);
    unset_all();
    /* putenv of a buffer kept across runs: glibc's setenv never frees the
     * values it copied, so millions of distinct values would fill the RSS
     * limit. */
    static char *kv;
    static size_t kvcap;
    size_t need = strlen(name) + 1 + strlen(s) + 1;
    if (need > kvcap) {
        free(kv);
        kvcap = 2 * need;
        if (!(kv = malloc(kvcap)))
            abort();
    }
    snprintf(kv, kvcap, "%s=%s", name, s);
    if (putenv(kv))
        abort();
    int want = SHMI_OK, b;
    uint64_t v = 0, lo = 0, hi = UINT64_MAX;
    int num = ref_num(d->kind, s, &v);
    if (num == SHMI_EINVAL)
        want = SHMI_EINVAL;
    if (!strcmp(d->kind, "bool") && ref_bool(s, &b))
        want = SHMI_EINVAL;
    if (num == SHMI_OK) {
        if ((d->min[0] && ref_num(d->kind, d->min, &lo)) ||
            (d->max[0] && ref_num(d->kind, d->max, &hi)))
            fail("%s: the table's range '%s'..'%s' does not parse", name, d->min, d->max);
        if (v < lo || v > hi)
            want = SHMI_EINVAL;
    }
    if (!strcmp(d->name, "HEAP_BASE") && !want && v &&
        (v % (1ull << 30) || v > (1ull << 47) - (5ull << 30)))
        want = SHMI_EINVAL;
    const char *choices = shmi_env_choices(d->name); /* e.g. "off|cheap|full" */
    if (choices) {
        int found = 0;
        for (const char *c = choices; *c;) { /* the oracle's own split of the list */
            size_t len = strcspn(c, "|");
            found |= strlen(s) == len && !memcmp(c, s, len);
            c += len + (c[len] == '|');
        }
        if (!found)
            want = SHMI_EINVAL;
    }
    /* The error buffer is exactly errlen bytes of the heap: ASan sees a write
     * past it. */
    size_t len = 1 + errlen % 256;
    char *err = malloc(len);
    if (!err)
        abort();
    memset(err, 'x', len);
    struct shmi_env env;
    int rc = shmi_env_load(&env, err, len);
    if (rc != want)
        fail("%s='%s': shmi_env_load = %d, want %d", name, s, rc, want);
    if (rc) {
        if (!memchr(err, 0, len))
            fail("%s='%s': error message not terminated in %zu bytes", name, s, len);
        if (strncmp(err, name, len - 1 < strlen(name) ? len - 1 : strlen(name)))
            fail("%s='%s': error message \"%s\" does not name the variable", name, s, err);
    }
    free(err);
    unsetenv(name);
}

static void case_fmt(const uint8_t *p, size_t n)
{
    uint64_t x = 0;
    for (size_t i = 0; i < 8; i++)
        x = x << 8 | (i < n ? p[i] : 0);
    size_t len = 1 + (n > 8 ? p[8] % 64 : 63);
    char *buf = malloc(len);
    if (!buf)
        abort();
    char *r = shmi_fmt_size((size_t)x, buf, len);
    if (r != buf || !memchr(buf, 0, len))
        fail("shmi_fmt_size(%llu, %zu bytes): not terminated", (unsigned long long)x, len);
    if (len >= 32) {
        double v;
        char unit[8];
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
        if (sscanf(buf, "%lf %7s", &v, unit) != 2)
            fail("shmi_fmt_size(%llu) = \"%s\"", (unsigned long long)x, buf);
        double scale = 1;
        int u = 0;
        while (u < 6 && strcmp(unit, units[u])) {
            u++;
            scale *= 1024;
        }
        double got = v * scale, want = (double)x;
        if (u == 6 || got < want * 0.95 || got > want * 1.05 + 1)
            fail("shmi_fmt_size(%llu) = \"%s\"", (unsigned long long)x, buf);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0] % 4, arg1 = size > 1 ? data[1] : 0, arg2 = size > 2 ? data[2] : 0;
    /* The string: the bytes after the mode byte, up to the first NUL. */
    char *s = malloc(size);
    if (!s)
        abort();
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;
    switch (mode) {
    case 0: case_size(s); break;
    case 1: case_bool(s); break;
    case 2: {
        /* Two bytes pick the variable and the error buffer's length. */
        if (size >= 3)
            case_load(s + 2, arg1, arg2);
        break;
    }
    default: case_fmt(data + 1, size - 1); break;
    }
    free(s);
    return 0;
}
