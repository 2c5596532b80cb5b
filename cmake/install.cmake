# What `cmake --install` puts under the prefix, for programs that embed neuronsim
# (examples/embed/ is one):
#   bin/neuronsim                        the program (a launcher)
#   lib/libneuronsim_cli.so              its command line, which the launcher loads
#   share/bash-completion/completions/neuronsim, share/man/man1/neuronsim.1
#                                        its bash completion and man page
#   lib/libneuronsim_*.a                 every library (static, position-independent)
#   include/neuronsim/*.hpp              the public API: #include <neuronsim/x.hpp>
#   include/neuronsim/internal/<folder>/*.hpp
#                                        the internal headers the public ones include,
#                                        and only those (cmake/public_headers.cmake)
#   lib/cmake/neuronsim/                 the package: find_package(neuronsim) gives
#                                        neuronsim::core (the model), neuronsim::neuronsim
#                                        (everything an embedder may want) and
#                                        neuronsim::<folder> for each library
# The exported targets' include path is <prefix>/include alone, so an embedder's include
# path gains nothing but neuronsim/: a platform's own isa/kernel.hpp or
# config/target_config.hpp stays its own.
#
# Internal headers name each other from the repository root ("isa/kernel.hpp"). Installed
# under neuronsim/internal/, those names would resolve only with
# <prefix>/include/neuronsim/internal on the include path (a quoted include is looked up
# beside the including file first, then on the path), which is what must not be there. So
# the installed copies, public and internal, are rewritten: an #include of a header of the
# installed set becomes "neuronsim/internal/<folder>/<file>". The rewrite is made here at
# configure time, into <build>/install_include/ (inspectable, and installed with plain
# install(FILES)), from the same list of headers that is installed; CMake re-runs whenever
# one of them changes (public_headers.cmake makes each a configure dependency). The
# alternatives were worse: renaming the includes in the source tree touches every file
# and makes the tree's own include paths longer; an install(CODE) rewrite is invisible
# until someone installs. tests/package/embed_package.sh checks the result: every installed
# header compiles on its own with -I<prefix>/include only, and a platform's own isa/ and
# config/ earlier on the include path change nothing.
# Included from the top CMakeLists.txt after every library is defined.

include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/public_headers.cmake)

set(NEURONSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/neuronsim)

# The two targets an embedder links. neuronsim::core is the model alone: the NeuronCore,
# Hbm and Device, NEFF loading, target configs, observers and statistics, the one-call
# run driver (sim/ and the libraries below it, docs/architecture.md), none of the tools.
# neuronsim::neuronsim adds what a tool built on the model may want (the builder, the
# assembler, profiles and traces, the report, .npy I/O, launch sequences). examples is
# the program's library, exported on its own (neuronsim::examples), in neither.
add_library(neuronsim_core INTERFACE)
set_target_properties(neuronsim_core PROPERTIES EXPORT_NAME core)
target_link_libraries(neuronsim_core INTERFACE neuronsim_sim)
add_library(neuronsim::core ALIAS neuronsim_core)  # the same names in this build

add_library(neuronsim_package INTERFACE)
set_target_properties(neuronsim_package PROPERTIES EXPORT_NAME neuronsim)
target_link_libraries(neuronsim_package INTERFACE neuronsim_core neuronsim_sim neuronsim_sequence
  neuronsim_profile neuronsim_io neuronsim_config neuronsim_engines neuronsim_memory
  neuronsim_neff neuronsim_validate neuronsim_cost neuronsim_semantics neuronsim_asm
  neuronsim_builder neuronsim_isa neuronsim_params neuronsim_base neuronsim_traces
  neuronsim_report)
add_library(neuronsim::neuronsim ALIAS neuronsim_package)

get_property(neuronsim_libraries GLOBAL PROPERTY NEURONSIM_LIBRARIES)
install(TARGETS ${neuronsim_libraries} neuronsim_core neuronsim_package
  EXPORT neuronsimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS neuronsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The command line the launcher loads (CMakeLists.txt): found through its RUNPATH.
install(TARGETS neuronsim_cli LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${NEURONSIM_COMPLETION} RENAME neuronsim
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${NEURONSIM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

file(GLOB neuronsim_public_headers CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/neuronsim/*.hpp)
neuronsim_internal_headers(neuronsim_needed_headers ${neuronsim_public_headers})
set(neuronsim_install_include ${PROJECT_BINARY_DIR}/install_include)
set(neuronsim_installed_headers "")
foreach(header IN LISTS neuronsim_public_headers)
  file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR}/include ${header})
  list(APPEND neuronsim_installed_headers "${header}|${relative}")
endforeach()
foreach(header IN LISTS neuronsim_needed_headers)
  list(APPEND neuronsim_installed_headers
    "${PROJECT_SOURCE_DIR}/${header}|neuronsim/internal/${header}")
endforeach()
foreach(entry IN LISTS neuronsim_installed_headers)
  string(REPLACE "|" ";" entry "${entry}")
  list(GET entry 0 source)
  list(GET entry 1 relative)
  file(READ ${source} text)
  foreach(header IN LISTS neuronsim_needed_headers)
    string(REPLACE "." "\\." pattern "${header}")
    string(REGEX REPLACE "(#[ \t]*include[ \t]*[<\"])${pattern}([>\"])"
      "\\1neuronsim/internal/${header}\\2" text "${text}")
  endforeach()
  set(copy ${neuronsim_install_include}/${relative})
  set(old_text "")
  if(EXISTS ${copy})
    file(READ ${copy} old_text)
  endif()
  if(NOT old_text STREQUAL text)  # unchanged copies keep their time stamps
    file(WRITE ${copy} "${text}")
  endif()
  get_filename_component(folder ${relative} DIRECTORY)
  install(FILES ${copy} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${folder})
endforeach()

install(EXPORT neuronsimTargets
  NAMESPACE neuronsim::
  DESTINATION ${NEURONSIM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/neuronsimConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/neuronsimConfig.cmake
  INSTALL_DESTINATION ${NEURONSIM_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/neuronsimConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/neuronsimConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/neuronsimConfigVersion.cmake
  DESTINATION ${NEURONSIM_INSTALL_CMAKEDIR})
