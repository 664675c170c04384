/* log.c - see log.h.  Every line is formatted into one buffer and written with
 * one write(2) so lines of different PEs and threads never interleave. */
#include "log.h"
#include "util/assert.h"
#include "err.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int shmi_log_pe = -1;
int shmi_log_verbose = 0;
static void (*abort_hook)(int, const char *);

const char *shmi_strerror(int err)
{
    switch (err) {
#define SHMI_ERR_CASE(name, val, text) case val: return text;
        SHMI_ERRORS(SHMI_ERR_CASE)
#undef SHMI_ERR_CASE
    }
    return "unknown error";
}

static int vformat(char *buf, size_t len, const char *level, const char *fmt, va_list ap)
{
    int n;
    if (shmi_log_pe >= 0)
        n = snprintf(buf, len, "[pe %d] symheap%s: ", shmi_log_pe, level);
    else
        n = snprintf(buf, len, "[pe ?] symheap%s: ", level);
    if (n < 0 || (size_t)n >= len) n = 0;
    int m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
    if (m < 0) m = 0;
    size_t used = (size_t)n + (size_t)m;
    if (used > len - 2) used = len - 2;
    if (used == 0 || buf[used - 1] != '\n') buf[used++] = '\n';
    buf[used] = 0;
    return (int)used;
}

static void vlog(const char *level, const char *fmt, va_list ap)
{
    char buf[2048];
    int n = vformat(buf, sizeof buf, level, fmt, ap);
    ssize_t r = write(2, buf, (size_t)n);
    (void)r;
}

#define SHMI_DEF_LOG(fn, level, cond)                  \
    void fn(const char *fmt, ...)                      \
    {                                                  \
        if (!(cond)) return;                           \
        va_list ap;                                    \
        va_start(ap, fmt);                             \
        vlog(level, fmt, ap);                          \
        va_end(ap);                                    \
    }
SHMI_DEF_LOG(shmi_log_error, " error", 1)
SHMI_DEF_LOG(shmi_log_warn, " warning", 1)
SHMI_DEF_LOG(shmi_log_info, "", 1)
SHMI_DEF_LOG(shmi_log_debug, " debug", shmi_log_verbose)

void shmi_log_set_abort_hook(void (*hook)(int code, const char *msg)) { abort_hook = hook; }

static _Noreturn void vfatal(int code, const char *fmt, va_list ap)
{
    char buf[2048];
    int n = vformat(buf, sizeof buf, " error", fmt, ap);
    ssize_t r = write(2, buf, (size_t)n);
    (void)r;
    if (code == 0) code = 1;
    void (*hook)(int, const char *) = abort_hook;
    abort_hook = NULL; /* a failure inside the hook must not recurse */
    if (hook) hook(code, buf);
    _exit(code);
}

_Noreturn void shmi_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfatal(1, fmt, ap);
}

_Noreturn void shmi_fatal_code(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfatal(code, fmt, ap);
}

char *shmi_fmt_size(size_t n, char *buf, size_t len)
{
    static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
    double v = (double)n;
    int u = 0;
    while (v >= 1024.0 && u < 5) { v /= 1024.0; u++; }
    if (u == 0) snprintf(buf, len, "%zu B", n);
    else snprintf(buf, len, "%.1f %s", v, units[u]);
    return buf;
}

/* The path from src/ on (what the build passes is absolute). */
static const char *short_path(const char *file)
{
    const char *p = strstr(file, "/src/");
    return p ? p + 5 : file;
}

_Noreturn void shmi_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    shmi_log_error("internal assertion failed: %s:%d: %s (in %s)", short_path(file), line, expr,
                   func);
    abort();
}
