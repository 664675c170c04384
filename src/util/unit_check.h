/* unit_check.h - the one CHECK of the unit tests that run a module alone
 * (alloc_test, team layout, dist layout, watchdog_test, the barrier engine):
 * a failed check prints file:line and the expression and counts in `fails`;
 * main returns non-zero when fails > 0.  For test programs only (one per executable). */
#ifndef SHMI_UNIT_CHECK_H
#define SHMI_UNIT_CHECK_H

#include <stdio.h>

static int fails;

#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); \
            fails++;                                                              \
        }                                                                         \
    } while (0)

#endif
