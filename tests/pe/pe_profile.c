/* pe_profile.c - the profiling interface: this program replaces shmem_putmem,
 * shmem_barrier_all and shmem_free with wrappers that count calls and call
 * pshmem_*, as a profiling tool does.  Built twice, against libsymheap.so
 * (pe_profile) and libsymheap.a (pe_profile_static): with either the
 * wrappers must win over the library's weak shmem_ names (else the counts
 * stay 0, or the static link fails with duplicate symbols), the real work
 * must still be done (the data arrives), and the library's own calls must
 * not reach the wrappers (shfree calls the library's free, not ours). */
#define SHMEM_NO_DEPRECATION_WARNINGS /* shmalloc/shfree below, on purpose */
#include <pshmem.h>
#include <shmemx.h>

#include "pe_test.h"

static int nput, nbar, nfree;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    nput++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_barrier_all(void)
{
    nbar++;
    pshmem_barrier_all();
}

void shmem_free(void *ptr)
{
    nfree++;
    pshmem_free(ptr);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *buf = shmem_malloc(4 * sizeof(long));
    CHECK(buf);
    long v = 1000 + me;
    shmem_putmem(&buf[0], &v, sizeof v, (me + 1) % n);
    shmem_barrier_all();
    CHECKF(buf[0] == 1000 + (me + n - 1) % n, "buf[0]=%ld", buf[0]);
    CHECKF(nput == 1 && nbar == 1, "wrappers called %d/%d times, want 1/1", nput, nbar);
    /* the typed put is not wrapped: it reaches the library directly */
    pshmem_long_p(&buf[1], 7, (me + 1) % n);
    shmem_long_p(&buf[2], 8, (me + 1) % n);
    pshmem_barrier_all(); /* the name-shifted entry point, not counted */
    CHECK(buf[1] == 7 && buf[2] == 8 && nbar == 1 && nput == 1);
    shmem_free(buf);
    CHECK(nfree == 1);
    shfree(shmalloc(64)); /* the library frees with its own pshmem_free */
    CHECKF(nfree == 1, "the library's internal free reached the wrapper (%d calls)", nfree);
    shmem_pcontrol(2, "flush");
    CHECK(shmemx_pcontrol_level() == 2);
    shmem_barrier_all();
    CHECK(nbar == 2);
    if (me == 0) printf("pe_profile: %d PEs ok\n", n);
    shmem_finalize();
    return 0;
}
