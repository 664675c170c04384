/* dl.h - load an optional library at run time (PMIx, UCX): symheap uses only
 * their headers at build time and never links them, so programs that do not
 * need them run where they are missing. */
#ifndef SHMI_UTIL_DL_H
#define SHMI_UTIL_DL_H

#include <stddef.h>

/* dlopen the first of paths[0..npaths) that loads (empty strings skipped),
 * then dlsym names[i] into fns[i] for i < n.  Returns the handle, or NULL
 * with a one-line reason in err: "cannot load libx.so.1 (why)", or
 * "libx.so.1 has no name" (*missing is then 1, else 0); nothing stays loaded
 * on failure. */
void *shmi_dl_load(const char *const *paths, size_t npaths, const char *const *names,
                   void **fns, size_t n, int *missing, char *err, size_t errlen);

#endif
