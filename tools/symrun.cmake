# symrun, the launcher.  libc only: it shares the wire-protocol header
# src/bootstrap/symrun_proto.h with the bootstrap and links nothing of ours.
add_executable(symrun ${CMAKE_CURRENT_LIST_DIR}/symrun.c ${CMAKE_CURRENT_LIST_DIR}/symrun_serve.c
  ${CMAKE_CURRENT_LIST_DIR}/symrun_mps.c)
target_include_directories(symrun PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../src)
target_compile_definitions(symrun PRIVATE SYMHEAP_VERSION="${PROJECT_VERSION}")
install(TARGETS symrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
