/* clock.h - the monotonic clock, in seconds, written once.
 *
 * For timeouts, watchdog intervals and measured waits: CLOCK_MONOTONIC never
 * jumps with the wall clock.  A double keeps a resolution of a few
 * nanoseconds over years of uptime, more than these need. */
#ifndef SHMI_CLOCK_H
#define SHMI_CLOCK_H

#include <time.h>

/* Seconds since an arbitrary fixed point (boot), monotonic; async-signal safe. */
static inline double shmi_clock_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
