/* exe.c - the executable's load bias and address range (exe.h), read once
 * from the dynamic loader's list: its first object is the executable. */
#include "util/exe.h"

#include <link.h>
#include <stddef.h>

static struct { uintptr_t bias, lo, hi; int known; } exe;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    exe.bias = (uintptr_t)info->dlpi_addr;
    exe.lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = exe.bias + ph->p_vaddr, b = a + ph->p_memsz;
        if (a < exe.lo) exe.lo = a;
        if (b > exe.hi) exe.hi = b;
    }
    return 1; /* the first object is the executable */
}

static void know(void)
{
    if (!__atomic_load_n(&exe.known, __ATOMIC_ACQUIRE)) {
        dl_iterate_phdr(first_object, NULL);
        __atomic_store_n(&exe.known, 1, __ATOMIC_RELEASE);
    }
}

uintptr_t shmi_exe_bias(void)
{
    know();
    return exe.bias;
}

int shmi_exe_contains(uintptr_t a)
{
    know();
    return a >= exe.lo && a < exe.hi;
}
