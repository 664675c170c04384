# Install.cmake - what `cmake --install` adds besides the libraries and headers
# (installed by the top-level CMakeLists) and the tools (tools/*.cmake install
# symcc, symrun, symheap-info): the ways other builds find symheap.
#
#   pkg-config:  <libdir>/pkgconfig/symheap.pc
#                cc $(pkg-config --cflags symheap) app.c $(pkg-config --libs symheap)
#   CMake:       <libdir>/cmake/symheap/symheapConfig.cmake (+ Version, Targets)
#                find_package(symheap 0.1 REQUIRED)
#                target_link_libraries(app PRIVATE symheap::symheap)  # or symheap::symheap_static
#
# Both put <includedir> and <includedir>/symheap on the include path: the
# latter holds nvshmem.h, kept out of <includedir> so that it never shadows a
# real NVSHMEM install.
include(CMakePackageConfigHelpers)

set(SYMHEAP_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/symheap)

# ---- pkg-config ---------------------------------------------------------------------
# prefix is found from the .pc file's own place (${pcfiledir}), so the file is
# right after `cmake --install --prefix DIR` and after the tree is moved;
# an absolute CMAKE_INSTALL_LIBDIR/INCLUDEDIR is written as it is.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(SYMHEAP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _shmi_up "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" _shmi_up "${_shmi_up}") # "../../" -> "../.."
  set(SYMHEAP_PC_PREFIX "\${pcfiledir}/${_shmi_up}")
endif()
foreach(_d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_d}}")
    set(SYMHEAP_PC_${_d} "${CMAKE_INSTALL_${_d}}")
  else()
    set(SYMHEAP_PC_${_d} "\${prefix}/${CMAKE_INSTALL_${_d}}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/symheap.pc.in ${CMAKE_BINARY_DIR}/symheap.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/symheap.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- CMake package --------------------------------------------------------------------
install(EXPORT symheapTargets NAMESPACE symheap:: FILE symheapTargets.cmake
  DESTINATION ${SYMHEAP_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/symheapConfig.cmake.in
  ${CMAKE_BINARY_DIR}/symheapConfig.cmake
  INSTALL_DESTINATION ${SYMHEAP_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
# 0.x: a minor version may break the API, so only the same minor is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/symheapConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/symheapConfig.cmake
              ${CMAKE_BINARY_DIR}/symheapConfigVersion.cmake
  DESTINATION ${SYMHEAP_CMAKEDIR})
