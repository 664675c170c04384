# Layers.cmake - the library's layers, dependencies pointing down, enforced by
# the build (issue 13).  src/<layer>/ is one layer; SHMI_LAYERS lists them
# bottom first.  shmi_layer(TARGET LAYER) gives TARGET a private include root,
# build/layers/<layer>/, holding links to its own folder and the folders below
# it only: `#include "core/state.h"` compiles in core and above, and fails in
# transport with "No such file or directory".  tests/layers checks the same
# from the sources (an include that climbs, or folders that include each
# other) and from the objects (a symbol defined in a layer above).
set(SHMI_LAYERS util bootstrap heap transport core debug api ext)

function(shmi_layer target layer)
  list(FIND SHMI_LAYERS ${layer} idx)
  if(idx LESS 0)
    message(FATAL_ERROR "shmi_layer: unknown layer '${layer}' (known: ${SHMI_LAYERS})")
  endif()
  set(root ${CMAKE_BINARY_DIR}/layers/${layer})
  file(MAKE_DIRECTORY ${root})
  foreach(i RANGE ${idx})
    list(GET SHMI_LAYERS ${i} below)
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${below} ${root}/${below} SYMBOLIC)
  endforeach()
  target_include_directories(${target} PRIVATE ${root} ${CMAKE_SOURCE_DIR}/include)
  set_property(TARGET ${target} PROPERTY SHMI_LAYER ${layer})
  # The layers that define public entry points (api, ext) get the profiling
  # interface's two names for each (util/pshmem_build.h says how).
  if(idx GREATER_EQUAL 6)
    # pshmem.h is generated into SHMI_GEN_INCLUDE (top CMakeLists.txt) first.
    target_include_directories(${target} BEFORE PRIVATE ${SHMI_GEN_INCLUDE})
    add_dependencies(${target} pshmem_h)
    target_compile_options(${target} PRIVATE -include ${CMAKE_SOURCE_DIR}/src/util/pshmem_build.h)
    # The library defines the deprecated names too (api/deprecated.c) and calls none.
    target_compile_definitions(${target} PRIVATE SHMEM_NO_DEPRECATION_WARNINGS)
  endif()
endfunction()
