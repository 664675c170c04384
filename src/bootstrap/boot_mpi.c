/* boot_mpi.c - start-up on an MPI communicator (NVSHMEMX_INIT_WITH_MPI_COMM):
 * the communicator's ranks become the PEs, a sub-communicator's too.
 *
 * The program is an MPI program, so its MPI library is already in the
 * process: the few MPI calls needed are found with dlsym, and libsymheap
 * neither links MPI nor needs its headers at build time.  Rank 0 of the
 * communicator makes a unique ID (boot_uid.c), MPI_Bcast hands it to the
 * others, and each joins the ID's job as its rank in the communicator; the
 * rendezvous then runs as for any unique ID.
 *
 * MPI's ABI differs between the two families: Open MPI's handles are
 * pointers (MPI_BYTE is &ompi_mpi_byte), the MPICH family's (MPICH, Intel
 * MPI, MVAPICH, Cray MPICH) are ints (MPI_BYTE is 0x4c00010d).  Open MPI is
 * recognized by its ompi_mpi_byte symbol; otherwise the MPICH ABI is
 * assumed when MPICH's MPIR_ symbols are present, and anything else is
 * refused with a message. */
#include "bootstrap/boot.h"
#include "util/err.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MPICH_MPI_BYTE 0x4c00010d

typedef int (*initialized_fn)(int *);
typedef int (*ompi_rank_fn)(void *, int *);
typedef int (*ompi_bcast_fn)(void *, int, void *, int, void *);
typedef int (*mpich_rank_fn)(int, int *);
typedef int (*mpich_bcast_fn)(void *, int, int, int, int);

int shmi_boot_mpi_join(const void *comm, char *err, size_t errlen)
{
    initialized_fn initialized = (initialized_fn)dlsym(RTLD_DEFAULT, "MPI_Initialized");
    void *rank_f = dlsym(RTLD_DEFAULT, "MPI_Comm_rank");
    void *size_f = dlsym(RTLD_DEFAULT, "MPI_Comm_size");
    void *bcast_f = dlsym(RTLD_DEFAULT, "MPI_Bcast");
    void *ompi_byte = dlsym(RTLD_DEFAULT, "ompi_mpi_byte");
    int mpich = !ompi_byte && dlsym(RTLD_DEFAULT, "MPIR_Err_return_comm") != NULL;
    if (!initialized || !rank_f || !size_f || !bcast_f) {
        snprintf(err, errlen, "no MPI library in this process (MPI_Comm_rank not found): link "
                 "the program with MPI (mpicc) and call MPI_Init first");
        return SHMI_EINVAL;
    }
    if (!ompi_byte && !mpich) {
        snprintf(err, errlen, "the MPI library in this process is neither Open MPI nor of the "
                 "MPICH family, whose ABIs symheap knows; start with nvshmem_init under the "
                 "MPI launcher instead (its ranks become the PEs)");
        return SHMI_ENOTSUP;
    }
    int up = 0;
    if (initialized(&up) != 0 || !up) {
        snprintf(err, errlen, "MPI is not initialized: call MPI_Init before");
        return SHMI_EINVAL;
    }
    if (!comm) {
        snprintf(err, errlen, "attr->mpi_comm is NULL: pass the address of an MPI_Comm with "
                 "nvshmemx_set_attr_mpi_comm_args");
        return SHMI_EINVAL;
    }
    int rank = -1, size = 0, rc;
    char id[SHMI_BOOT_UID_LEN];
    memset(id, 0, sizeof id);
    if (ompi_byte) {
        void *c = *(void *const *)comm;
        rc = ((ompi_rank_fn)rank_f)(c, &rank) | ((ompi_rank_fn)size_f)(c, &size);
    } else {
        int c = *(const int *)comm;
        rc = ((mpich_rank_fn)rank_f)(c, &rank) | ((mpich_rank_fn)size_f)(c, &size);
    }
    if (rc != 0 || rank < 0 || size < 1) {
        snprintf(err, errlen, "MPI_Comm_rank/MPI_Comm_size on the communicator failed (is "
                 "attr->mpi_comm the address of a valid MPI_Comm?)");
        return SHMI_EINVAL;
    }
    /* Rank 0 makes the ID; a failure there travels as an empty ID, so no rank
     * waits for a rendezvous that does not exist. */
    char why[400] = "";
    if (rank == 0 && shmi_boot_uid_create(id, sizeof id, why, sizeof why) != SHMI_OK) id[0] = 0;
    if (ompi_byte)
        rc = ((ompi_bcast_fn)bcast_f)(id, (int)sizeof id, ompi_byte, 0, *(void *const *)comm);
    else
        rc = ((mpich_bcast_fn)bcast_f)(id, (int)sizeof id, MPICH_MPI_BYTE, 0, *(const int *)comm);
    if (rc != 0) {
        snprintf(err, errlen, "MPI_Bcast of the unique ID on the communicator failed");
        return SHMI_EBOOT;
    }
    if (!id[0]) {
        snprintf(err, errlen, "rank 0 of the communicator could not make a unique ID%s%s",
                 why[0] ? ": " : "", why);
        return SHMI_EBOOT;
    }
    shmi_boot_uid_use(id, rank, size);
    return SHMI_OK;
}
