# info.cmake - symheap-info (what this build is, which variables it reads) and
# symcc (the compiler wrapper): build, tests, install.  Included by
# tools/CMakeLists.txt.

# ---- symheap-info ---------------------------------------------------------------
# Build facts reach the program as -D defines (no generated header to keep in sync).
add_executable(symheap-info ${CMAKE_CURRENT_LIST_DIR}/symheap-info.c $<TARGET_OBJECTS:shmi_util>)
target_include_directories(symheap-info PRIVATE ${CMAKE_SOURCE_DIR}/src)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _shmi_bt)
get_directory_property(_shmi_opts DIRECTORY ${CMAKE_SOURCE_DIR} COMPILE_OPTIONS)
list(JOIN _shmi_opts " " _shmi_opts)
string(STRIP "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${_shmi_bt}} ${_shmi_opts}" _shmi_flags)
string(REGEX REPLACE "  +" " " _shmi_flags "${_shmi_flags}")
if(SYMHEAP_SANITIZE)
  set(_shmi_san "address, undefined (SYMHEAP_SANITIZE=ON)")
elseif(SYMHEAP_TSAN)
  set(_shmi_san "thread (SYMHEAP_TSAN=ON)")
else()
  set(_shmi_san "off")
endif()
# Optional parts (loaded at run time when built in: libsymheap links none of them).
set(_shmi_parts "")
foreach(p "PMIX;PMIx bootstrap (mpirun, srun --mpi=pmix)" "UCX;UCX transport (PEs on other nodes)")
  list(GET p 0 _v)
  list(GET p 1 _d)
  if(SYMHEAP_${_v})
    string(APPEND _shmi_parts "  ${_d}: yes\\n")
  else()
    string(APPEND _shmi_parts "  ${_d}: no (-DSYMHEAP_${_v}=OFF or its header missing)\\n")
  endif()
endforeach()
if(SYMHEAP_HAVE_CUDA)
  string(APPEND _shmi_parts "  GPU heap (CUDA): yes, CUDA ${CUDAToolkit_VERSION}, arch ${CMAKE_CUDA_ARCHITECTURES} (driver loaded at run time)\\n")
else()
  string(APPEND _shmi_parts "  GPU heap (CUDA): no (no CUDA compiler at configure time, or -DSYMHEAP_CUDA=OFF)\\n")
endif()
if(SYMHEAP_HAVE_PYTHON) # cmake/Python.cmake
  string(APPEND _shmi_parts "  Python module (python/): yes, for ${Python3_EXECUTABLE} ${Python3_VERSION} with NumPy ${Python3_NumPy_VERSION}\\n")
else()
  string(APPEND _shmi_parts "  Python module (python/): no, ${SYMHEAP_PYTHON_WHY}\\n")
endif()
target_compile_definitions(symheap-info PRIVATE
  "SYMHEAP_PARTS=\"${_shmi_parts}\""
  "SYMHEAP_VERSION=\"${PROJECT_VERSION}\""
  "SYMHEAP_BUILD_TYPE=\"${CMAKE_BUILD_TYPE}\""
  "SYMHEAP_C_COMPILER=\"${CMAKE_C_COMPILER} (${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION})\""
  "SYMHEAP_C_FLAGS=\"${_shmi_flags}\""
  "SYMHEAP_SANITIZE=\"${_shmi_san}\""
  "SYMHEAP_PREFIX=\"${CMAKE_INSTALL_PREFIX}\""
  "SYMHEAP_BINDIR=\"${CMAKE_INSTALL_FULL_BINDIR}\""
  "SYMHEAP_LIBDIR=\"${CMAKE_INSTALL_FULL_LIBDIR}\""
  "SYMHEAP_INCLUDEDIR=\"${CMAKE_INSTALL_FULL_INCLUDEDIR}\"")
install(TARGETS symheap-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# docs/env.md is `symheap-info --markdown`, checked in; `cmake --build build
# --target env-doc` rewrites it after a change to src/util/env.h.
add_custom_target(env-doc
  COMMAND sh -c "\"$0\" --markdown > \"$1\"" $<TARGET_FILE:symheap-info>
          ${CMAKE_SOURCE_DIR}/docs/env.md
  COMMENT "Writing docs/env.md from symheap-info --markdown" VERBATIM)

# ---- symcc ------------------------------------------------------------------------
# Two copies from one template: build/tools/symcc uses the source include dir,
# the build's include dir (the generated pshmem.h) and the library in the build
# tree (absolute paths); the installed one finds
# include/ and lib/ relative to its own directory, so the tree can be moved.
if(SYMHEAP_SANITIZE)
  set(SYMCC_EXTRA_LINK "-fsanitize=address,undefined") # the library needs the runtimes
elseif(SYMHEAP_TSAN)
  set(SYMCC_EXTRA_LINK "-fsanitize=thread")
else()
  set(SYMCC_EXTRA_LINK "")
endif()
if(SYMHEAP_HAVE_CUDA) # symcc compiles .cu files with this nvcc (issue 7)
  set(SYMCC_NVCC "${CMAKE_CUDA_COMPILER}")
  list(GET CMAKE_CUDA_ARCHITECTURES 0 SYMCC_CUDA_ARCH)
  # nvshmem.h brings cuda_runtime.h and cuda.h into host C/C++ files too (issue 14)
  list(GET CUDAToolkit_INCLUDE_DIRS 0 SYMCC_CUDA_INC)
  set(SYMCC_CUDA_LIBDIR "${CUDAToolkit_LIBRARY_DIR}")
  set(SYMCC_CUDA_STUBS "")
  foreach(_d "${CUDAToolkit_LIBRARY_DIR}/stubs" "${CUDAToolkit_TARGET_DIR}/lib/stubs")
    if(NOT SYMCC_CUDA_STUBS AND EXISTS "${_d}/libcuda.so")
      set(SYMCC_CUDA_STUBS "${_d}")
    endif()
  endforeach()
else()
  set(SYMCC_NVCC "")
  set(SYMCC_CUDA_ARCH "")
  set(SYMCC_CUDA_INC "")
  set(SYMCC_CUDA_LIBDIR "")
  set(SYMCC_CUDA_STUBS "")
endif()
set(_shmi_exec_perms OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)

set(SYMCC_INCDIR "${CMAKE_SOURCE_DIR}/include")
set(SYMCC_GENINCDIR "${SHMI_GEN_INCLUDE}") # the generated pshmem.h
set(SYMCC_LIBDIR "$<TARGET_FILE_DIR:symheap>") # resolved by file(GENERATE)
configure_file(${CMAKE_CURRENT_LIST_DIR}/symcc.in ${CMAKE_CURRENT_BINARY_DIR}/symcc.build.in @ONLY)
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/symcc
  INPUT ${CMAKE_CURRENT_BINARY_DIR}/symcc.build.in FILE_PERMISSIONS ${_shmi_exec_perms})

file(RELATIVE_PATH SYMCC_INCDIR "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
set(SYMCC_GENINCDIR "") # installed: pshmem.h is in SYMCC_INCDIR
file(RELATIVE_PATH SYMCC_LIBDIR "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_FULL_LIBDIR}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/symcc.in ${CMAKE_CURRENT_BINARY_DIR}/install/symcc
  @ONLY FILE_PERMISSIONS ${_shmi_exec_perms})
install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/install/symcc DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- tests --------------------------------------------------------------------------
if(SYMHEAP_TESTS)
  # The docs say what the code does: docs/env.md == symheap-info --markdown.
  add_test(NAME docs_env_md
    COMMAND sh -c "\"$0\" --markdown > \"$2\" && diff -u \"$1\" \"$2\" || { echo 'docs/env.md differs from symheap-info --markdown (diff above); rewrite it: cmake --build <build> --target env-doc' >&2; exit 1; }"
            $<TARGET_FILE:symheap-info> ${CMAKE_SOURCE_DIR}/docs/env.md
            ${CMAKE_CURRENT_BINARY_DIR}/env.md.generated)
  set_tests_properties(docs_env_md PROPERTIES TIMEOUT 30 LABELS docs)

  # symcc builds a program (shared and --static) that then runs under symrun.
  add_test(NAME tools_symcc
    COMMAND sh -c "set -e; \"$0\" -O2 -o \"$2/hello_symcc\" \"$1\"; \"$0\" --static -o \"$2/hello_symcc_static\" \"$1\"; \"$3\" -n 2 \"$2/hello_symcc\"; \"$3\" -n 2 \"$2/hello_symcc_static\""
            ${CMAKE_CURRENT_BINARY_DIR}/symcc ${CMAKE_SOURCE_DIR}/examples/hello_address.c
            ${CMAKE_CURRENT_BINARY_DIR} $<TARGET_FILE:symrun>)
  set_tests_properties(tools_symcc PROPERTIES TIMEOUT 120 LABELS tools
    ENVIRONMENT "SYMCC_CC=${CMAKE_C_COMPILER}")
  # bench/gpu/pmi1run.py, the PMI-1 launcher for side-by-side runs of NVIDIA's NVSHMEM.
  add_test(NAME tools_pmi1run
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/pmi1run_test.sh ${CMAKE_SOURCE_DIR})
  set_tests_properties(tools_pmi1run PROPERTIES TIMEOUT 120 LABELS tools)
  # Other build systems drive symcc with CC=symcc in the environment (issue 17):
  # an autotools project (./configure CC=symcc && make), a CMake project
  # (-DCMAKE_C_COMPILER=symcc), and symcc given itself as CC.
  foreach(mode autotools cmake self)
    add_test(NAME tools_symcc_${mode}
      COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/symcc_projects.sh ${mode}
              ${CMAKE_CURRENT_BINARY_DIR}/symcc $<TARGET_FILE:symrun> ${CMAKE_CURRENT_BINARY_DIR}/work)
    set_tests_properties(tools_symcc_${mode} PROPERTIES TIMEOUT 300 LABELS tools
      SKIP_RETURN_CODE 77)
  endforeach()
endif()
