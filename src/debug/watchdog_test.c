/* watchdog_test.c - the watchdog's durations and process states
 * (watchdog_text.h), alone.  Pins issue 17's "for -34 s": a description
 * newer than the reporter's clock reads as 0 s, an unset one as unknown. */
#include "debug/watchdog_text.h"

#include <stdio.h>
#include <string.h>

#include "util/unit_check.h"

static char state(const char *s) { return shmi_wd_proc_state(s, strlen(s)); }

int main(void)
{
    CHECK(shmi_wd_age(100.0, 40.0) == 60.0);
    CHECK(shmi_wd_age(100.0, 134.0) == 0.0); /* published after the clock was read */
    CHECK(shmi_wd_age(100.0, 100.0) == 0.0);
    CHECK(shmi_wd_age(100.0, 0.0) == -1.0);  /* never set */
    CHECK(shmi_wd_age(100.0, -5.0) == -1.0);
    for (double since = 1; since < 1e6; since *= 3.7)
        for (double now = 1; now < 1e6; now *= 2.9) CHECK(shmi_wd_age(now, since) >= 0);

    CHECK(state("1234 (pe_misuse) T 1 1234 1234 0 -1") == 'T');
    CHECK(state("1234 (a) b) c) S 1 2") == 'S'); /* a command with ") " in it */
    CHECK(state("77 (x) t 1") == 't');
    CHECK(state("77 (x) R") == 'R');
    CHECK(state("77 (x)") == 0);
    CHECK(state("77 (x) ") == 0);
    CHECK(state("") == 0);
    CHECK(state("garbage") == 0);
    if (fails) return 1;
    printf("watchdog_test: ok\n");
    return 0;
}
