# pshmem_gen.cmake - writes pshmem.h, the profiling interface's header, from the
# prototypes of shmem.h and shmemx.h (script mode):
#
#   cmake -DCC=<c compiler> -DINCLUDE=<source include dir> -DOUT=<pshmem.h>
#         [-DDEPFILE=<file>] -P pshmem_gen.cmake
#
# Run by the build (the custom command in the top CMakeLists.txt writes
# <build>/include/pshmem.h, which is never committed); DEPFILE receives the
# headers the preprocessor read, so changing any of them regenerates it.
#
# The headers are run through the preprocessor (so the typed families that the
# type tables generate are there, each by its name); every identifier that
# names a routine there (shmem_*, shmemx_*, and the deprecated start_pes,
# _my_pe, _num_pes, shmalloc, shfree, shrealloc, shmemalign) and is followed
# by "(" is a routine, unless the header defines it static inline or it is a
# type (ends in _t).  A name in parentheses, "void (shmem_wait_until)(...)",
# as headers write a routine that a macro of the same name shadows, counts
# too.  The list, sorted, becomes SHMI_PSHMEM_NAMES in OUT.  The test
# pshmem_header_complete checks it against the routines the library exports.
foreach(v CC INCLUDE OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "pshmem_gen.cmake: -D${v}=... is missing")
  endif()
endforeach()

set(in "${OUT}.in.c")
file(WRITE "${in}" "#include <shmem.h>\n#include <shmemx.h>\n")
set(dep_args)
if(DEFINED DEPFILE)
  set(dep_args -MD -MF "${DEPFILE}" -MT "${OUT}")
endif()
execute_process(
  COMMAND ${CC} -std=c11 -E -P ${dep_args} -I${INCLUDE} -I${INCLUDE}/symheap "${in}"
  OUTPUT_VARIABLE pp ERROR_VARIABLE err RESULT_VARIABLE rc)
file(REMOVE "${in}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pshmem_gen.cmake: preprocessing shmem.h failed:\n${err}")
endif()
if(DEFINED DEPFILE) # the input above is gone: only the headers stay prerequisites
  file(READ "${DEPFILE}" dep)
  string(REPLACE "${in}" "" dep "${dep}")
  file(WRITE "${DEPFILE}" "${dep}")
endif()
string(REGEX REPLACE "\"[^\"]*\"" "\"\"" pp "${pp}") # no names from string literals
string(REGEX REPLACE "\\([ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\)[ \t\r\n]*\\(" "\\1(" pp "${pp}") # (name)( -> name(
string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*\\(" calls "${pp}")
set(names)
foreach(c IN LISTS calls)
  string(REGEX REPLACE "[ \t\r\n]*\\($" "" n "${c}")
  if(n MATCHES "^(shmemx?_[A-Za-z0-9_]+|start_pes|_my_pe|_num_pes|shmalloc|shfree|shrealloc|shmemalign)$"
     AND NOT n MATCHES "_t$")
    list(APPEND names "${n}")
  endif()
endforeach()
# static inline routines of the headers have no symbol to alias: not routines here.
string(REGEX MATCHALL "static[ \t\r\n]+inline[^;{(]*\\(" inl "${pp}")
foreach(c IN LISTS inl)
  string(REGEX REPLACE "^.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[ \t\r\n]*\\($" "\\1" n "${c}")
  list(REMOVE_ITEM names "${n}")
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
list(LENGTH names count)

set(body "")
foreach(n IN LISTS names)
  string(APPEND body "    X(${n}) \\\n")
endforeach()

file(WRITE "${OUT}" "/* pshmem.h - the OpenSHMEM profiling interface (spec annex \"Profiling Interface\").
 *
 * GENERATED during the build from the prototypes of shmem.h and shmemx.h by
 * cmake/pshmem_gen.cmake; do not edit (the build rewrites it when a header
 * changes).
 *
 * Every routine of symheap has two names: pshmem_X, its strong definition, and
 * shmem_X, a weak alias of it (shmemx_X: pshmemx_X; the deprecated start_pes,
 * _my_pe, ...: pstart_pes, p_my_pe, ...).  A profiling tool defines its own
 * shmem_X, which takes precedence over the weak one with the shared library and
 * with libsymheap.a alike, and calls pshmem_X for the real work:
 *
 *     #include <pshmem.h>
 *     void shmem_putmem(void *d, const void *s, size_t n, int pe)
 *     { count++; pshmem_putmem(d, s, n, pe); }
 *
 * symheap calls its own routines by their pshmem_ names, so a tool sees each
 * call the program makes once, not the library's internal ones.  The C11
 * generic interfaces (shmem_put(...), ...) are macros over the typed routines:
 * a tool intercepts the typed routine they select.  ${count} routines.
 *
 * SHMI_PSHMEM_NAMES(X) calls X(name) for every routine name shmem_X (with its
 * prefix): the library's build uses it to make the aliases. */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>
#include <shmemx.h>

#define SHMI_PSHMEM_NAMES(X) \\
${body}
#ifndef SHMI_PSHMEM_NO_DECLS
#ifdef __cplusplus
extern \"C\" {
#endif
/* pshmem_X has the type of shmem_X (the deprecated ones too, without the warning). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"
#define SHMI_PSHMEM_DECL(n) extern __typeof__(n) p##n;
SHMI_PSHMEM_NAMES(SHMI_PSHMEM_DECL)
#undef SHMI_PSHMEM_DECL
#pragma GCC diagnostic pop
#ifdef __cplusplus
}
#endif
#endif

#endif
")

