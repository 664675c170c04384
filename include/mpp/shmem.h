/* <mpp/shmem.h>: the header directory OpenSHMEM deprecates but still lists. */
#include <shmem.h>
