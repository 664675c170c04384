/* sigchain.h - hand a signal our handler does not take to the handler that
 * was installed before ours (prev, as sigaction(2) returned it), as a chain
 * of fault handlers must: the program's own handler, or the default action.
 * For handlers of synchronous faults (SIGSEGV: the RMA fault guard of
 * api/rma.c, the lazy arrays of ext/dist). */
#ifndef SHMI_SIGCHAIN_H
#define SHMI_SIGCHAIN_H

#include <signal.h>
#include <string.h>

static inline void shmi_sig_chain(const struct sigaction *prev, int sig, siginfo_t *si, void *uc)
{
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, si, uc);
        return;
    }
    if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0) raise(sig); /* sent by kill/raise: it will not recur by itself */
    /* A fault recurs on return, now with the default action. */
}

#endif
