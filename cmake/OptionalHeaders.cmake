# OptionalHeaders.cmake - optional dependencies that symheap uses through their
# headers only and loads at run time (dlopen), so libsymheap never links them:
# PMIx (src/bootstrap), UCX (src/transport).
#
# shmi_optional_header(PREFIX OPTION HEADER PKGCONFIG DEBIAN DOC [HINT_DIRS...])
#   looks for HEADER (pkg-config module PKGCONFIG first, then HINT_DIRS) and
#   declares the cache option OPTION, ON when the header was found.  OPTION=ON
#   without the header is a configure error that names the Debian package.
#   Sets, in the caller's scope, PREFIX_INCLUDE (the directory holding HEADER)
#   and PREFIX_LIBRARY_DIRS (from pkg-config, may be empty).
include_guard(GLOBAL)

function(shmi_optional_header prefix option header pkgconfig debian doc)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(${prefix} QUIET ${pkgconfig})
  endif()
  find_path(${prefix}_INCLUDE ${header} HINTS ${${prefix}_INCLUDE_DIRS} ${ARGN})
  if(${prefix}_INCLUDE)
    set(found ON)
  else()
    set(found OFF)
  endif()
  option(${option} "${doc} (needs ${header}: ${debian})" ${found})
  if(${option} AND NOT ${prefix}_INCLUDE)
    message(FATAL_ERROR "${option}=ON but ${header} was not found: install ${debian} "
                        "(Debian) or set ${prefix}_INCLUDE, or configure with -D${option}=OFF")
  endif()
  set(${prefix}_INCLUDE ${${prefix}_INCLUDE} PARENT_SCOPE)
  set(${prefix}_LIBRARY_DIRS ${${prefix}_LIBRARY_DIRS} PARENT_SCOPE)
endfunction()
