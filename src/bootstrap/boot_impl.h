/* boot_impl.h - private to src/bootstrap: what the bootstrap implementations
 * share with boot.c, which fills the table.  Not for other layers (they use
 * boot.h). */
#ifndef SHMI_BOOT_IMPL_H
#define SHMI_BOOT_IMPL_H

#include "bootstrap/boot.h"

extern const struct shmi_boot_ops shmi_boot_symrun_ops;
extern const struct shmi_boot_ops shmi_boot_single_ops;
extern const struct shmi_boot_ops shmi_boot_pmix_ops; /* when SHMI_HAVE_PMIX */
extern const struct shmi_boot_ops shmi_boot_uid_ops;

/* exchange_fds over abstract unix sockets and the bootstrap's allgather
 * (boot_fdx.c), for bootstraps without a launcher socket (pmix, uid). */
int shmi_boot_fdx_exchange(shmi_boot_t *b, const int *fds, int nfds, int *all);
/* A unique ID waits for the next shmi_boot_init (boot_uid.c). */
int shmi_boot_uid_pending(void);

/* From an implementation's init: the one-line reason shmi_boot_init returns
 * in its err buffer (what failed, the values, the fix).  Only valid while
 * shmi_boot_init runs; the last call wins. */
void shmi_boot_seterr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
