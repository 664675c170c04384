/* startup.c: a program that only starts and stops OpenSHMEM.  compare.sh times whole
 * launches of it (symrun -n 4 / oshrun -np 4): launcher, process start, shmem_init,
 * shmem_finalize and exit.  Builds with symcc/CMake and with oshcc. */
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_finalize();
    return 0;
}
