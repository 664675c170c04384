/* deprecated_warn.c - compiled, not run: a deprecated name must warn
 * (-Werror=deprecated-declarations fails) unless SHMEM_NO_DEPRECATION_WARNINGS
 * is defined (then it compiles cleanly).  Tests deprecated_warns /
 * deprecated_quiet in tests/pe/CMakeLists.txt. */
#include <shmem.h>

int main(void)
{
    start_pes(0);
    long *p = shmalloc(8);
    shfree(p);
    return 0;
}
