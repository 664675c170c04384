/* dl.c - see dl.h. */
#include "util/dl.h"

#include <dlfcn.h>
#include <stdio.h>

void *shmi_dl_load(const char *const *paths, size_t npaths, const char *const *names,
                   void **fns, size_t n, int *missing, char *err, size_t errlen)
{
    void *lib = NULL;
    char why[256] = "";
    const char *name = npaths ? paths[0] : "";
    *missing = 0;
    for (size_t i = 0; i < npaths && !lib; i++) {
        if (!paths[i] || !paths[i][0]) continue;
        lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) name = paths[i];
        else if (!why[0]) snprintf(why, sizeof why, "%s", dlerror());
    }
    if (!lib) {
        snprintf(err, errlen, "cannot load %s (%s)", name, why);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(fns[i] = dlsym(lib, names[i]))) {
            snprintf(err, errlen, "%s has no %s", name, names[i]);
            *missing = 1;
            dlclose(lib);
            return NULL;
        }
    }
    return lib;
}
