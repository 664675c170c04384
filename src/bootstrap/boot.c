/* boot.c - picks the bootstrap: a table of implementations (STYLE §2).
 *
 * "symrun" when the process was started by our launcher (SYMRUN_FD is set),
 * else "single": one PE, rank 0, so a SHMEM program also runs without a
 * launcher.  A new bootstrap (PMIx) is one more row and one more rule in
 * pick().  On failure b->ops stays NULL, so shmi_boot_abort/fini are no-ops. */
#include "bootstrap/boot_impl.h"
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const struct shmi_boot_ops *ops;
} boots[] = {
    { "symrun", &shmi_boot_symrun_ops },
    { "single", &shmi_boot_single_ops },
};

/* Where shmi_boot_seterr writes; set only while shmi_boot_init runs. */
static char *err_buf;
static size_t err_len;

void shmi_boot_seterr(const char *fmt, ...)
{
    if (!err_buf || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf, err_len, fmt, ap);
    va_end(ap);
}

static const char *pick(void)
{
    return getenv("SYMRUN_FD") ? "symrun" : "single";
}

static const struct shmi_boot_ops *find(const char *name)
{
    for (size_t i = 0; i < sizeof boots / sizeof boots[0]; i++)
        if (strcmp(boots[i].name, name) == 0) return boots[i].ops;
    return NULL;
}

int shmi_boot_init(shmi_boot_t *b, char *err, size_t errlen)
{
    const char *name = pick();
    const struct shmi_boot_ops *ops = find(name);
    memset(b, 0, sizeof *b);
    if (err && errlen) err[0] = 0;
    if (!ops) { /* only reachable if pick() and the table disagree */
        if (err) snprintf(err, errlen, "no bootstrap named '%s'", name);
        return SHMI_EINVAL;
    }
    err_buf = err;
    err_len = err ? errlen : 0;
    b->ops = ops;
    int rc = ops->init(b);
    if (rc != 0) {
        if (err && errlen && !err[0])
            snprintf(err, errlen, "bootstrap '%s' failed: %s", name, shmi_strerror(rc));
        b->ops = NULL;
    }
    err_buf = NULL;
    err_len = 0;
    return rc;
}
