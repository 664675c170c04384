/* hello_address.c - the brief's first debugging trick (§4.2.1, §4.6): print
 * the symmetric address on every PE and check that they are all equal.
 *
 * Printing alone proves nothing (lines are easy to misread), so every PE also
 * sends its address to every other PE and compares; and nvshmem_ptr(p, me),
 * the local view of a symmetric address, must be p itself.
 * Run: symrun -n 4 ./hello_address */
#include <nvshmem.h>

#include <stdint.h>
#include <stdio.h>

int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
    int ok = 1;

    /* The brief allocates 256 MB; 1 MiB shows the same thing. */
    int *sym_addr = (int *)nvshmem_malloc(1 << 20);
    int *local_addr = (int *)nvshmem_ptr(sym_addr, me);
    printf("PE %d: symmetric address = %p, nvshmem_ptr(p, %d) = %p\n", me,
           (void *)sym_addr, me, (void *)local_addr);
    fflush(stdout);
    if (sym_addr == NULL || local_addr != sym_addr) {
        printf("PE %d: FAIL: nvshmem_ptr(p, my_pe) != p\n", me);
        ok = 0;
    }

    /* Collective check: addrs[q] on every PE gets PE q's address. */
    uint64_t *addrs = (uint64_t *)nvshmem_calloc((size_t)npes, sizeof *addrs);
    for (int pe = 0; pe < npes; pe++)
        nvshmem_uint64_p(&addrs[me], (uint64_t)(uintptr_t)sym_addr, pe);
    nvshmem_barrier_all(); /* every p has landed everywhere */
    for (int q = 0; q < npes; q++) {
        if (addrs[q] != (uint64_t)(uintptr_t)sym_addr) {
            printf("PE %d: FAIL: PE %d has %#llx, I have %p\n", me, q,
                   (unsigned long long)addrs[q], (void *)sym_addr);
            ok = 0;
        }
    }
    /* Tell PE 0 how many PEs disagreed, so it can give one verdict. */
    int *bad = (int *)nvshmem_calloc(1, sizeof *bad);
    if (!ok) nvshmem_int_atomic_inc(bad, 0);
    nvshmem_barrier_all();
    if (me == 0)
        printf("%s: the address is the same on all %d PEs (checked by exchange)\n",
               *bad == 0 ? "OK" : "FAIL", npes);
    int failed = nvshmem_int_g(bad, 0) != 0;

    nvshmem_free(bad);
    nvshmem_free(addrs);
    nvshmem_free(sym_addr);
    nvshmem_finalize();
    return failed;
}
