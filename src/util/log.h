/* log.h - messages to stderr, each line starting with the PE number.
 *
 * A message says what failed, the values and the fix:
 *   "[pe 3] shmem_malloc: symmetric heap full: need 3.0 GiB, 1.2 GiB free of
 *    4.0 GiB; set SHMEM_SYMMETRIC_SIZE=8G".
 * Library code reports with shmi_log_*; only public entry points call
 * shmi_fatal, which prints, tells the launcher (so every PE ends at once) and
 * exits non-zero.  Thread safe: each message is one write(2). */
#ifndef SHMI_LOG_H
#define SHMI_LOG_H

#include <stddef.h>

/* PE number printed in front of every line; -1 (prints "[pe ?]") until known. */
extern int shmi_log_pe;
/* Non-zero when SHMEM_DEBUG is set: shmi_log_debug prints. */
extern int shmi_log_verbose;

void shmi_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shmi_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shmi_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shmi_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "[pe N] symheap: <msg>", then run the abort hook (which tells the
 * launcher to end every PE) and _exit(code != 0 ? code : 1). */
_Noreturn void shmi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void shmi_fatal_code(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Called once by shmi_fatal before exiting; set by the API layer to the
 * bootstrap's abort.  msg is the already formatted line. */
void shmi_log_set_abort_hook(void (*hook)(int code, const char *msg));

/* "1.5 GiB", "512 B": human-readable size into buf (>= 32 bytes); returns buf. */
char *shmi_fmt_size(size_t n, char *buf, size_t len);

#endif
