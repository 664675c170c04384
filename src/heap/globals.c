/* globals.c - make the program's global and static variables symmetric.
 *
 * The spec requires RMA on globals and statics.  Their pages are private to
 * each process, so peers could not reach them.  At shmem_init we move the
 * executable's writable PT_LOAD segment (.data, .bss, and the RELRO part
 * before them) onto a memfd, in place:
 *   1. copy the segment's current bytes into a new memfd;
 *   2. mmap the memfd MAP_FIXED over the segment (atomic replacement, so the
 *      addresses of every variable stay the same);
 *   3. re-protect the RELRO pages read-only, as the dynamic loader had them.
 * The transport then maps every peer's memfd and translates an address by its
 * offset from the segment start, which is right even under address
 * randomization (all PEs run the same executable).
 *
 * Trade-offs, chosen over the alternatives (translating through
 * process_vm_writev: a system call per access; starting PEs without ASLR
 * alone: pages would still be private):
 *   - no other thread may write globals during shmem_init (steps 1-2);
 *   - a child made with fork() after shmem_init shares the executable's
 *     globals with its parent until it calls exec (MAP_SHARED);
 *   - globals of shared libraries other than the executable are not
 *     symmetric (their segments are not moved).
 * SHMEM_GLOBALS=0 turns the move off; RMA on globals is then refused. */
#include "heap/heap.h"
#include "util/err.h"
#include "util/log.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct exe_range {
    uintptr_t start, end;            /* writable PT_LOAD, page-rounded */
    uintptr_t relro_start, relro_end;
    int found;
};

static int find_exe(struct dl_phdr_info *info, size_t sz, void *arg)
{
    (void)sz;
    struct exe_range *r = arg;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    /* The first object is the executable itself. */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && !r->found) {
            r->start = lo & ~(page - 1);
            r->end = (hi + page - 1) & ~(page - 1);
            r->found = 1;
        } else if (ph->p_type == PT_GNU_RELRO) {
            /* ld.so protects [lo, hi rounded down) */
            r->relro_start = lo & ~(page - 1);
            r->relro_end = hi & ~(page - 1);
        }
    }
    return 1; /* stop after the executable */
}

/* Copy the whole segment, redzones included: AddressSanitizer poisons the gaps
 * between globals, so neither instrumented loads nor its memcpy may do this.
 * The volatile source keeps the compiler from turning the loop into memcpy. */
__attribute__((no_sanitize_address)) static void copy_raw(uint64_t *dst, uintptr_t src,
                                                          size_t len)
{
    const volatile uint64_t *s = (const volatile uint64_t *)src;
    for (size_t i = 0; i < len / sizeof *dst; i++) dst[i] = s[i];
}

int shmi_globals_share(struct shmi_seg *seg, char *err, size_t errlen)
{
    struct exe_range r = { 0 };
    memset(seg, 0, sizeof *seg);
    seg->fd = -1;
    seg->name = "globals";
    dl_iterate_phdr(find_exe, &r);
    if (!r.found) {
        snprintf(err, errlen, "the executable has no writable segment: globals stay private");
        return SHMI_ENOTSUP;
    }
    size_t len = r.end - r.start;
    int fd;
    if (shmi_mkind_host.create("globals", len, &fd) != SHMI_OK) goto sys_fail;
    void *tmp = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        close(fd);
        goto sys_fail;
    }
    /* From here to the MAP_FIXED mmap nothing may write the executable's
     * globals: only locals are used. */
    copy_raw(tmp, r.start, len);
    void *at = mmap((void *)r.start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    munmap(tmp, len);
    if (at == MAP_FAILED) {
        /* the old private pages are still in place: nothing was lost */
        close(fd);
        goto sys_fail;
    }
    if (r.relro_end > r.relro_start && r.relro_start >= r.start && r.relro_end <= r.end)
        mprotect((void *)r.relro_start, r.relro_end - r.relro_start, PROT_READ);
    seg->base = (char *)r.start;
    seg->size = len;
    seg->fd = fd;
    return SHMI_OK;
sys_fail:
    snprintf(err, errlen, "cannot move the program's globals to shared memory (%s); "
             "set SHMEM_GLOBALS=0 to run without symmetric globals", strerror(errno));
    return SHMI_ESYS;
}
