/* <mpp/shmemx.h>: the header directory OpenSHMEM deprecates but still lists. */
#include <shmemx.h>
