/* env.c - parse the environment variables of env.h's table. */
#include "env.h"
#include "err.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct shmi_env_desc shmi_env_table[] = {
#define SHMI_ENV_DESC(name, kind, def, min, max, alias, help)                        \
    { #name, "SHMEM_" #name, #kind, def, min, max, alias, help },
    SHMI_ENV_VARS(SHMI_ENV_DESC)
#undef SHMI_ENV_DESC
};
const int shmi_env_count = (int)(sizeof shmi_env_table / sizeof shmi_env_table[0]);

int shmi_parse_size(const char *s, size_t *out)
{
    if (!s) return SHMI_EINVAL;
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return SHMI_EINVAL; /* no sign, no empty */
    errno = 0;
    char *end;
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    unsigned long long v = strtoull(s, &end, hex ? 16 : 10); /* "010M" is 10 MiB, not octal */
    if (errno || end == s) return SHMI_EINVAL;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') end++;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return SHMI_EINVAL;
    if (shift && v > (UINT64_MAX >> shift)) return SHMI_EINVAL;
    v <<= shift;
    if (v > SIZE_MAX) return SHMI_EINVAL;
    *out = (size_t)v;
    return SHMI_OK;
}

int shmi_parse_count(const char *s, size_t *out)
{
    if (!s) return SHMI_EINVAL;
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return SHMI_EINVAL;
    size_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (SIZE_MAX - d) / 10) return SHMI_EINVAL;
        v = v * 10 + d;
    }
    while (isspace((unsigned char)*s)) s++;
    if (*s) return SHMI_EINVAL;
    *out = v;
    return SHMI_OK;
}

int shmi_parse_kind(const char *kind, const char *s, size_t *out)
{
    if (!strcmp(kind, "size") || !strcmp(kind, "addr")) return shmi_parse_size(s, out);
    if (!strcmp(kind, "count") || !strcmp(kind, "seconds")) return shmi_parse_count(s, out);
    return SHMI_ENOTSUP;
}

int shmi_parse_bool(const char *s, int *out)
{
    static const char *yes[] = { "1", "yes", "on", "true", "y" };
    static const char *no[] = { "0", "no", "off", "false", "n", "" };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!strcasecmp(s, yes[i])) { *out = 1; return SHMI_OK; }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (!strcasecmp(s, no[i])) { *out = 0; return SHMI_OK; }
    return SHMI_EINVAL;
}

static const char *syntax(const char *kind)
{
    return !strcmp(kind, "size")      ? "a size in bytes with an optional k/K/m/M/g/G/t/T suffix"
           : !strcmp(kind, "count")   ? "a whole number"
           : !strcmp(kind, "seconds") ? "a whole number of seconds"
           : !strcmp(kind, "addr")    ? "an address (0x hex)"
           : !strcmp(kind, "bool")    ? "one of 1/0, yes/no, on/off, true/false"
                                      : "text";
}

#define SHMI_ENV_PARSE_size(v, p) shmi_parse_size(v, p)
#define SHMI_ENV_PARSE_count(v, p) shmi_parse_count(v, p)
#define SHMI_ENV_PARSE_seconds(v, p) shmi_parse_count(v, p)
#define SHMI_ENV_PARSE_addr(v, p) shmi_parse_size(v, p)
#define SHMI_ENV_PARSE_bool(v, p) shmi_parse_bool(v, p)
#define SHMI_ENV_PARSE_str(v, p) (*(p) = (v), SHMI_OK)

/* The str settings that take one of a fixed set of values. */
static const struct { const char *name, *choices; } env_choices[] = {
    { "CHECKS", "off|cheap|full" },
    { "BARRIER", "auto|central|dissemination" },
    { "BOOTSTRAP", "auto|symrun|pmix|single" },
};

const char *shmi_env_choices(const char *name)
{
    for (size_t i = 0; i < sizeof env_choices / sizeof *env_choices; i++)
        if (!strcmp(env_choices[i].name, name)) return env_choices[i].choices;
    return NULL;
}

int shmi_env_is_choice(const char *v, const char *choices)
{
    size_t n = strlen(v);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == n && !strncmp(c, v, n)) return 1;
        c += len + (bar != NULL);
    }
    return 0;
}

/* Values of an NVSHMEM alias that NVSHMEM spells differently: variable (without
 * SHMEM_), NVSHMEM's value (any case), ours.  NVSHMEM_DEBUG takes a level
 * (messages at INFO and above are our debugging messages); NVSHMEM_BOOTSTRAP
 * names how NVSHMEM finds its PEs, which auto works out here (symrun, or the
 * PMIx of mpirun / srun, whose ranks are MPI_COMM_WORLD's).  Other values pass
 * through unchanged and are checked as ours. */
static const struct { const char *name, *theirs, *ours; } alias_values[] = {
    { "DEBUG", "VERSION", "0" }, { "DEBUG", "WARN", "0" }, { "DEBUG", "INFO", "1" },
    { "DEBUG", "ABORT", "1" },   { "DEBUG", "TRACE", "1" },
    { "BOOTSTRAP", "PMI", "auto" }, { "BOOTSTRAP", "MPI", "auto" },
    { "BOOTSTRAP", "SHMEM", "auto" },
};

const char *shmi_env_get(const char *name, const char **from)
{
    for (int i = 0; i < shmi_env_count; i++) {
        const struct shmi_env_desc *d = &shmi_env_table[i];
        if (strcmp(d->name, name) != 0) continue;
        const char *v = getenv(d->var);
        if (v) {
            if (from) *from = d->var;
            return v;
        }
        if (!d->alias[0] || !(v = getenv(d->alias))) return NULL;
        if (from) *from = d->alias;
        for (size_t j = 0; j < sizeof alias_values / sizeof *alias_values; j++)
            if (!strcmp(alias_values[j].name, name) && !strcasecmp(alias_values[j].theirs, v))
                return alias_values[j].ours;
        return v;
    }
    return NULL;
}

/* " (NVSHMEM's name for SHMEM_X, which also takes ...)" when from is an alias. */
static const char *alias_note(const char *name, const char *from, char *buf, size_t len)
{
    if (!from || !strncmp(from, "SHMEM_", 6)) return "";
    int n = snprintf(buf, len, " (read as SHMEM_%s", name);
    const char *sep = ", which also takes NVSHMEM's ";
    for (size_t j = 0; j < sizeof alias_values / sizeof *alias_values && n > 0 && (size_t)n < len; j++)
        if (!strcmp(alias_values[j].name, name)) {
            n += snprintf(buf + n, len - (size_t)n, "%s%s", sep, alias_values[j].theirs);
            sep = ", ";
        }
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, ")");
    return buf;
}

#define SHMI_ENV_STR_size(field) NULL
#define SHMI_ENV_STR_count(field) NULL
#define SHMI_ENV_STR_seconds(field) NULL
#define SHMI_ENV_STR_addr(field) NULL
#define SHMI_ENV_STR_bool(field) NULL
#define SHMI_ENV_STR_str(field) (field)
#define SHMI_ENV_NUM_size(field) (field)
#define SHMI_ENV_NUM_count(field) (field)
#define SHMI_ENV_NUM_seconds(field) (field)
#define SHMI_ENV_NUM_addr(field) (field)
#define SHMI_ENV_NUM_bool(field) 0
#define SHMI_ENV_NUM_str(field) 0

/* A numeric value against its variable's range (env.h): 0, or SHMI_ERANGE
 * with "VAR='value' is too small/large: ..." in err. */
static int check_range(const struct shmi_env_desc *d, size_t v, const char *from, const char *note,
                       char *err, size_t errlen)
{
    size_t lo = 0, hi = SIZE_MAX;
    if (d->min[0] && shmi_parse_kind(d->kind, d->min, &lo) != SHMI_OK) return SHMI_ECORRUPT;
    if (d->max[0] && shmi_parse_kind(d->kind, d->max, &hi) != SHMI_OK) return SHMI_ECORRUPT;
    if (v >= lo && v <= hi) return SHMI_OK;
    snprintf(err, errlen, "%s='%s'%s is too %s: at %s %s (%s from %s to %s, default %s)", from,
             getenv(from), note, v < lo ? "small" : "large", v < lo ? "least" : "most",
             v < lo ? d->min : d->max, syntax(d->kind), d->min[0] ? d->min : "0",
             d->max[0] ? d->max : "any", d->def);
    return SHMI_ERANGE;
}

/* SHMEM_HEAP_BASE: 0, or a multiple of the heap's largest alignment with the
 * whole heap below the top of the address space (issue 17). */
static int check_heap_base(const struct shmi_env *env, char *err, size_t errlen)
{
    size_t b = env->HEAP_BASE, al = SHMI_ENV_HEAP_BASE_ALIGN;
    const char *from = NULL, *v = shmi_env_get("HEAP_BASE", &from);
    if (!b) return SHMI_OK;
    if (b % al) {
        size_t down = b / al * al, up = down + al;
        char alt[48] = "";
        if (down) snprintf(alt, sizeof alt, "%#zx or ", down);
        snprintf(err, errlen, "%s=%s is not a multiple of 1 GiB (0x40000000), the largest "
                 "alignment shmem_align gives, so aligned blocks would be misaligned: use "
                 "%s%#zx, or 0 to let the PEs agree on a base", from, v, alt, up);
        return SHMI_EINVAL;
    }
    size_t span = (env->SYMMETRIC_SIZE + al - 1) / al * al + al; /* heap, control block */
    if (span > SHMI_ENV_ADDR_TOP || b > SHMI_ENV_ADDR_TOP - span) {
        size_t top = span <= SHMI_ENV_ADDR_TOP ? SHMI_ENV_ADDR_TOP - span : 0;
        snprintf(err, errlen, "%s=%s cannot hold the heap: %zu bytes from there pass the top of "
                 "a process's address space (0x800000000000, 128 TiB); use a base from "
                 "0x40000000 to %#zx in steps of 0x40000000, or 0 to let the PEs agree on one",
                 from, v, env->SYMMETRIC_SIZE, top);
        return SHMI_EINVAL;
    }
    return SHMI_OK;
}

int shmi_env_load(struct shmi_env *env, char *err, size_t errlen)
{
    const char *val, *from = NULL;
    char note[160];
    int i = 0, rc;
#define SHMI_ENV_LOAD(name, kind, def, min, max, alias, help)                       \
    val = shmi_env_get(#name, &from);                                               \
    if (SHMI_ENV_PARSE_##kind(def, &env->name) != SHMI_OK) return SHMI_ECORRUPT;    \
    if (val && SHMI_ENV_PARSE_##kind(val, &env->name) != SHMI_OK) {                 \
        snprintf(err, errlen, "%s='%s'%s is not valid: expected %s%s%s%s%s (default " def ")", \
                 from, getenv(from), alias_note(#name, from, note, sizeof note),     \
                 syntax(#kind), min[0] ? " from " : "", min, max[0] ? " to " : "", max); \
        return SHMI_EINVAL;                                                         \
    }                                                                               \
    if (val && (min[0] || max[0]) &&                                                \
        (rc = check_range(&shmi_env_table[i], (size_t)SHMI_ENV_NUM_##kind(env->name), from, \
                          alias_note(#name, from, note, sizeof note), err, errlen)) != SHMI_OK) \
        return rc == SHMI_ERANGE ? SHMI_EINVAL : rc;                                \
    i++;
    SHMI_ENV_VARS(SHMI_ENV_LOAD)
#undef SHMI_ENV_LOAD
    /* str settings with a fixed set of values */
    const char *str, *choices;
#define SHMI_ENV_CHOICE(name, kind, def, min, max, alias, help)                     \
    str = SHMI_ENV_STR_##kind(env->name);                                           \
    choices = shmi_env_choices(#name);                                              \
    if (str && choices && !shmi_env_is_choice(str, choices)) {                      \
        shmi_env_get(#name, &from);                                                 \
        snprintf(err, errlen, "%s='%s'%s is not valid: expected one of %s",         \
                 from, getenv(from), alias_note(#name, from, note, sizeof note),     \
                 choices);                                                          \
        return SHMI_EINVAL;                                                         \
    }
    SHMI_ENV_VARS(SHMI_ENV_CHOICE)
#undef SHMI_ENV_CHOICE
    return check_heap_base(env, err, errlen);
}
