/* exe.h - where the program's executable is loaded.  Call sites published by
 * one PE (a return address) are read by another PE whose executable may be
 * loaded elsewhere (ASLR): moving an address by the difference of the two
 * load biases makes it ours, if it lies in the executable. */
#ifndef SHMI_EXE_H
#define SHMI_EXE_H

#include <stdint.h>

/* Load bias of the main executable (0 for a non-PIE one).  Thread-safe. */
uintptr_t shmi_exe_bias(void);
/* Address a lies in one of the executable's loaded segments. */
int shmi_exe_contains(uintptr_t a);

#endif
