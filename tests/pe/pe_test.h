/* pe_test.h - tiny helpers for multi-PE tests: CHECK prints the PE, file,
 * line and expression, then ends the whole job with shmem_global_exit(1). */
#ifndef PE_TEST_H
#define PE_TEST_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                        \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "[pe %d] %s:%d: CHECK(%s) failed\n", shmem_my_pe(), __FILE__, \
                    __LINE__, #c);                                                      \
            shmem_global_exit(1);                                                       \
        }                                                                               \
    } while (0)

#define CHECKF(c, ...)                                                                  \
    do {                                                                                \
        if (!(c)) {                                                                     \
            fprintf(stderr, "[pe %d] %s:%d: CHECK(%s) failed: ", shmem_my_pe(), __FILE__, \
                    __LINE__, #c);                                                      \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
            shmem_global_exit(1);                                                       \
        }                                                                               \
    } while (0)
#endif
