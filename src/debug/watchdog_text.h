/* watchdog_text.h - the watchdog's pure pieces, testable alone
 * (watchdog_test.c): how long a PE has waited, and a process's state from
 * the text of /proc/PID/stat.  No state, no system calls. */
#ifndef SHMI_WATCHDOG_TEXT_H
#define SHMI_WATCHDOG_TEXT_H

#include <stddef.h>
#include <string.h>

/* Seconds a PE has waited, given the clock read after its description was
 * copied (now) and when it started (since): never negative.  A description
 * published after the reporter read its clock (a peer that started a new
 * wait while a long report was being printed: 1024 PEs on 2 CPUs) reads as
 * 0, not as minus the printing time.  -1 when since was never set. */
static inline double shmi_wd_age(double now, double since)
{
    if (!(since > 0)) return -1;
    return now > since ? now - since : 0;
}

/* The state letter of /proc/PID/stat's text (n bytes): the field after the
 * command, which is in parentheses and may itself hold ") ".  0 when the
 * text has no such field. */
static inline char shmi_wd_proc_state(const char *text, size_t n)
{
    const char *close = NULL;
    for (size_t i = 0; i < n; i++)
        if (text[i] == ')') close = text + i;
    if (!close || (size_t)(close - text) + 2 >= n || close[1] != ' ') return 0;
    return close[2];
}

#endif
