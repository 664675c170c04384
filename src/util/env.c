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
#define SHMI_ENV_DESC(name, kind, def, alias, help) { #name, "SHMEM_" #name, #kind, def, alias, help },
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
    return !strcmp(kind, "size")   ? "a number with an optional k/K/m/M/g/G/t/T suffix, e.g. 512M or 64G"
           : !strcmp(kind, "bool") ? "one of 1/0, yes/no, on/off, true/false"
                                   : "text";
}

#define SHMI_ENV_PARSE_size(v, p) shmi_parse_size(v, p)
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
#define SHMI_ENV_STR_bool(field) NULL
#define SHMI_ENV_STR_str(field) (field)

int shmi_env_load(struct shmi_env *env, char *err, size_t errlen)
{
    const char *val, *from = NULL;
    char note[160];
#define SHMI_ENV_LOAD(name, kind, def, alias, help)                                 \
    val = shmi_env_get(#name, &from);                                               \
    if (SHMI_ENV_PARSE_##kind(def, &env->name) != SHMI_OK) return SHMI_ECORRUPT;    \
    if (val && SHMI_ENV_PARSE_##kind(val, &env->name) != SHMI_OK) {                 \
        snprintf(err, errlen, "%s='%s'%s is not valid: expected %s (default " def ")", \
                 from, getenv(from), alias_note(#name, from, note, sizeof note),     \
                 syntax(#kind));                                                    \
        return SHMI_EINVAL;                                                         \
    }
    SHMI_ENV_VARS(SHMI_ENV_LOAD)
#undef SHMI_ENV_LOAD
    /* str settings with a fixed set of values */
    const char *str, *choices;
#define SHMI_ENV_CHOICE(name, kind, def, alias, help)                               \
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
    if (env->SYMMETRIC_SIZE == 0) {
        val = shmi_env_get("SYMMETRIC_SIZE", &from);
        snprintf(err, errlen,
                 "%s=%s is too small: the heap needs at least 1M; "
                 "set e.g. %s=1G", from, val, from);
        return SHMI_EINVAL;
    }
    return SHMI_OK;
}
