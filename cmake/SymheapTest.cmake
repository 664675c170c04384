# Test registration: each test is registered in exactly one place, with these.
#
# shmi_unit_test(NAME SOURCES src... [LIBS lib...])
#   A unit test beside its module; links only what it names.
# shmi_pe_test(NAME SOURCE file NP n... [TIMEOUT s] [ARGS ...] [ENV VAR=v...])
# shmi_pe_test(NAME PROGRAM target NP n... ...)
#   A multi-PE program run through our own launcher once per PE count,
#   registered as NAME_npN, each with a timeout.  PROGRAM reruns an existing
#   test program under another name (e.g. with other ENV settings).
function(shmi_unit_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE ${T_LIBS})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120 LABELS unit)
endfunction()

function(shmi_pe_test name)
  cmake_parse_arguments(T "" "SOURCE;TIMEOUT;PROGRAM" "NP;ARGS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  set(prog ${name})
  if(T_PROGRAM)
    set(prog ${T_PROGRAM})
  elseif(NOT TARGET ${name})
    add_executable(${name} ${T_SOURCE})
    target_link_libraries(${name} PRIVATE symheap)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/pe)
  endif()
  foreach(np ${T_NP})
    add_test(NAME ${name}_np${np}
      COMMAND $<TARGET_FILE:symrun> -n ${np} $<TARGET_FILE:${prog}> ${T_ARGS})
    set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS pe)
    if(T_ENV)
      set_tests_properties(${name}_np${np} PROPERTIES ENVIRONMENT "${T_ENV}")
    endif()
  endforeach()
endfunction()
