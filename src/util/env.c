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
#define SHMI_ENV_DESC(name, kind, def, help) { #name, #kind, def, help },
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

#define SHMI_ENV_STR_size(field) NULL
#define SHMI_ENV_STR_bool(field) NULL
#define SHMI_ENV_STR_str(field) (field)

int shmi_env_load(struct shmi_env *env, char *err, size_t errlen)
{
    const char *val;
#define SHMI_ENV_LOAD(name, kind, def, help)                                        \
    val = getenv("SHMEM_" #name);                                                   \
    if (SHMI_ENV_PARSE_##kind(def, &env->name) != SHMI_OK) return SHMI_ECORRUPT;    \
    if (val && SHMI_ENV_PARSE_##kind(val, &env->name) != SHMI_OK) {                 \
        snprintf(err, errlen,                                                       \
                 "SHMEM_" #name "='%s' is not valid: expected %s (default " def ")", \
                 val, syntax(#kind));                                               \
        return SHMI_EINVAL;                                                         \
    }
    SHMI_ENV_VARS(SHMI_ENV_LOAD)
#undef SHMI_ENV_LOAD
    /* str settings with a fixed set of values */
    const char *str, *choices;
#define SHMI_ENV_CHOICE(name, kind, def, help)                                      \
    str = SHMI_ENV_STR_##kind(env->name);                                           \
    choices = shmi_env_choices(#name);                                              \
    if (str && choices && !shmi_env_is_choice(str, choices)) {                      \
        snprintf(err, errlen, "SHMEM_" #name "='%s' is not valid: expected one of %s", \
                 str, choices);                                                     \
        return SHMI_EINVAL;                                                         \
    }
    SHMI_ENV_VARS(SHMI_ENV_CHOICE)
#undef SHMI_ENV_CHOICE
    if (env->SYMMETRIC_SIZE == 0) {
        snprintf(err, errlen,
                 "SHMEM_SYMMETRIC_SIZE=%s is too small: the heap needs at least 1M; "
                 "set e.g. SHMEM_SYMMETRIC_SIZE=1G", getenv("SHMEM_SYMMETRIC_SIZE"));
        return SHMI_EINVAL;
    }
    return SHMI_OK;
}
