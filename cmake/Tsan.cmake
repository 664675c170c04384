# Tsan.cmake - SYMHEAP_TSAN=ON: everything built with ThreadSanitizer
# (included by the top CMakeLists.txt before any target; see docs/testing.md).
#
# TSan sees the threads of one process: the races it can find are between
# threads of one PE (SHMEM_THREAD_MULTIPLE, the watchdog's hook, signal
# handlers).  Accesses by other PEs go through shared mappings in other
# processes and are invisible to it.  A report makes the PE exit with status
# 66 (TSan's default), which fails the test; ./dev test also fails when any
# test's output holds a report.
if(SYMHEAP_SANITIZE)
  message(FATAL_ERROR "SYMHEAP_TSAN and SYMHEAP_SANITIZE cannot be combined: use two build directories")
endif()
# gcc's TSan runtime is a shared library.  clang links its runtime into the
# executable, whose .bss then holds TSan's state; shmem_init moves that
# segment onto shared memory (src/heap/globals.c), the updates TSan makes
# meanwhile are lost and it crashes.  clang 14's -shared-libsan crashes at
# start instead (its runtime is initialized after libstdc++'s constructors).
if(NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "SYMHEAP_TSAN=ON needs gcc, the C compiler is ${CMAKE_C_COMPILER_ID} "
    "(${CMAKE_C_COMPILER}): configure a new build directory with -DCMAKE_C_COMPILER=gcc")
endif()
# -Wno-tsan: gcc warns that TSan does not model atomic_thread_fence; the
# fences here order stores for other processes, which TSan does not see.
add_compile_options(-fsanitize=thread -fno-omit-frame-pointer $<$<COMPILE_LANGUAGE:C>:-Wno-tsan>)
add_link_options(-fsanitize=thread)

# Tests that cannot run under TSan, each with the reason.  ctest reads this
# list from CTestCustom.cmake in the build tree and leaves them out (they
# still run in the plain and ASan builds).  Remove an entry once its cause
# is gone.
set(_shmi_tsan_skip
  "alloc_test: single-threaded, and its scaling run has a 10 s bound that TSan's 5-15x slowdown breaks"
  "dist_fail_lazy_recursion_np2: needs a SIGSEGV inside the SIGSEGV handler (SA_NODEFER), but TSan runs handlers with the signal blocked, so the nested fault kills the PE"
  "multinode_rma_2x1: across nodes UCX's own (uninstrumented) thread writes remote puts into our heap while we poll it: the same as another PE's store, but inside this process, so TSan reports it as a race"
  "multinode_rma_2x2: as multinode_rma_2x1"
  "multinode_rma_2x4: as multinode_rma_2x1"
  "multinode_coll_2x4: as multinode_rma_2x1"
  "multinode_coll_2x1: as multinode_rma_2x1"
  "multinode_coll_2x2: as multinode_rma_2x1"
  "multinode_aset_2x1: as multinode_rma_2x1"
  "multinode_aset_2x2: as multinode_rma_2x1"
  "multinode_selftest_2x1: as multinode_rma_2x1"
  "multinode_selftest_2x2: as multinode_rma_2x1"
  "multinode_dist_2x1: as multinode_rma_2x1"
  "multinode_dist_2x2: as multinode_rma_2x1"
  "multinode_dist_2x4: as multinode_rma_2x1"
  "multinode_dist_examples_2x2: as multinode_rma_2x1"
  "multinode_heat2d_2x2: as multinode_rma_2x1"
  "multinode_netdown_2x2: as multinode_rma_2x1"
  "multinode_freeze_2x2: as multinode_rma_2x1"
  "hardening_align_at_base_np2: TSan owns the address space outside its few application ranges (shadow and meta memory), so a heap at a chosen SHMEM_HEAP_BASE cannot be mapped there"
  "pmix_multinode: as multinode_rma_2x1 (two simulated nodes, UCX between them)"
  "multinode_uid_rma_2x2: as multinode_rma_2x1"
  "multinode_uid_coll_2x1: as multinode_rma_2x1"
  "multinode_uid_kill_2x2: as multinode_rma_2x1"
  "pe_uid_root_np3: rank 0 makes the ID, which starts its rendezvous thread, then forks the other PEs: TSan cannot follow a fork of a multithreaded process (the children hang in its runtime), the other pe_uid cases fork before any thread"
  "slurm_jobs: as multinode_rma_2x1 (the same cases under srun, where slurm_faults still runs)"
  "tools_symcc_cu: symcc's nvcc command leaves out the sanitizer link flags, so libtsan is not loaded first and crashes at start (tools/symcc.in: pass them with -Xcompiler)")
set(_shmi_names "")
foreach(entry ${_shmi_tsan_skip})
  string(REGEX REPLACE ":.*" "" name "${entry}")
  list(APPEND _shmi_names ${name})
  message(STATUS "symheap: TSan build leaves out ${entry}")
endforeach()
list(JOIN _shmi_names " " _shmi_names)
file(WRITE ${CMAKE_BINARY_DIR}/CTestCustom.cmake
  "# Written by cmake/Tsan.cmake: tests that cannot run under TSan (reasons there).\n"
  "set(CTEST_CUSTOM_TESTS_IGNORE ${_shmi_names})\n")
