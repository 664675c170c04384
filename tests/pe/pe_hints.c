/* pe_hints.c - shmem_malloc_with_hints takes any hint word (spec: hints are
 * advice): the standard bits, unknown bits (tests-sos passes
 * ~SHMEM_MALLOC_ATOMICS_REMOTE), and SHMEMX_MALLOC_DEVICE where there is no
 * GPU heap (run with SHMEM_GPU=0) all give host memory the CPU can use,
 * at the same address on every PE, usable for RMA and atomics. */
#include "pe_test.h"
#include <shmemx.h>

static void use(long hints)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *p = shmem_malloc_with_hints(64 * sizeof(long), hints);
    CHECKF(p, "hints=%#lx gave NULL", (unsigned long)hints);
    for (int i = 0; i < 64; i++) p[i] = me; /* host memory: the CPU writes it */
    shmem_barrier_all();
    shmem_long_atomic_add(&p[0], 1, (me + 1) % n);
    shmem_long_p(&p[1], 100 + me, (me + 1) % n);
    shmem_barrier_all();
    CHECKF(p[0] == me + 1 && p[1] == 100 + (me + n - 1) % n && p[63] == me,
           "hints=%#lx: p[0]=%ld p[1]=%ld", (unsigned long)hints, p[0], p[1]);
    shmem_free(p);
}

int main(void)
{
    shmem_init();
    use(0);
    use(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    use(~SHMEM_MALLOC_ATOMICS_REMOTE); /* unknown bits, GPU bits among them */
    use(1L << 40);
    use(SHMEMX_MALLOC_DEVICE);         /* no GPU heap here (SHMEM_GPU=0) */
    use(SHMEMX_MALLOC_DEVICE | SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(shmem_malloc_with_hints(0, SHMEMX_MALLOC_DEVICE) == NULL);
    if (shmem_my_pe() == 0) printf("pe_hints: ok\n");
    shmem_finalize();
    return 0;
}
