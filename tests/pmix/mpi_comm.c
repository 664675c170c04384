/* mpi_comm.c MODE - an MPI program whose communicator's ranks become the PEs
 * (shmemx_init_mpi_comm, nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM)),
 * run under mpirun:
 *   world   MPI_COMM_WORLD through nvshmemx_init_attr: PE = rank, a ring put,
 *           a sum; prints "mpi_comm: world ok, N PEs" (rank 0)
 *   split   MPI_Comm_split into even and odd ranks: each half is a job of its
 *           own (shmemx_init_mpi_comm); PE = rank in the half, a sum over the
 *           half; prints "mpi_comm: split ok, half H of N" (each half's PE 0)
 *   noinit  MPI is not initialized: one line, non-zero exit */
#include <mpi.h>
#include <shmem.h>
#include <shmemx.h>
#include <symheap/nvshmemx.h>

#include <stdio.h>
#include <string.h>

/* Open MPI and its PMIx keep what they allocate until exit, in components
 * they unload at MPI_Finalize (so no suppression can name them): no leak
 * check in this program; the unique-ID start-up it ends in is leak-checked
 * by pe_uid_* in the same build. */
#if defined(__SANITIZE_ADDRESS__)
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
#endif

static int check(int rank, int size, const char *what)
{
    if (shmem_my_pe() != rank || shmem_n_pes() != size) {
        fprintf(stderr, "mpi_comm: %s: PE %d of %d, expected %d of %d\n", what, shmem_my_pe(),
                shmem_n_pes(), rank, size);
        return 1;
    }
    long *ring = shmem_calloc(1, sizeof(long));
    int *sum = shmem_malloc(sizeof(int));
    long v = rank;
    shmem_long_put(ring, &v, 1, (rank + 1) % size);
    shmem_barrier_all();
    *sum = rank + 1;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, sum, sum, 1);
    int bad = *ring != (rank + size - 1) % size || *sum != size * (size + 1) / 2;
    if (bad) fprintf(stderr, "mpi_comm: %s: ring %ld, sum %d\n", what, *ring, *sum);
    shmem_free(sum);
    shmem_free(ring);
    return bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "world";
    if (!strcmp(mode, "noinit")) {
        MPI_Comm c = MPI_COMM_WORLD;
        shmemx_init_mpi_comm(&c);
        return 0; /* not reached */
    }
    MPI_Init(&argc, &argv);
    int rank, size, bad;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (!strcmp(mode, "world")) {
        MPI_Comm comm = MPI_COMM_WORLD;
        nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
        nvshmemx_set_attr_mpi_comm_args(&comm, &attr);
        nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
        bad = check(rank, size, "world");
        if (!bad && rank == 0) printf("mpi_comm: world ok, %d PEs\n", size);
    } else {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        int hr, hs;
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hs);

        shmemx_init_mpi_comm(&half);
        bad = check(hr, hs, "split");
        if (!bad && hr == 0) printf("mpi_comm: split ok, half %d of %d\n", rank % 2, hs);
        MPI_Comm_free(&half);
    }
    shmem_finalize();
    MPI_Finalize();
    return bad;
}
