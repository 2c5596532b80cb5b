# What `cmake --install` puts under the prefix, for programs that embed neuronsim
# (examples/embed/ is one):
#   bin/neuronsim                        the program
#   share/bash-completion/completions/neuronsim, share/man/man1/neuronsim.1
#                                        its bash completion and man page
#   lib/libneuronsim_*.a                 every library (static, position-independent)
#   include/neuronsim/*.hpp              the public API: #include <neuronsim/x.hpp>
#   include/neuronsim/<folder>/*.hpp     the internal headers the public ones include,
#                                        and only those (cmake/public_headers.cmake)
#   lib/cmake/neuronsim/                 the package: find_package(neuronsim) gives
#                                        neuronsim::neuronsim (everything an embedder
#                                        links) and neuronsim::<folder> for each library
# Included from the top CMakeLists.txt after every library is defined.

include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/public_headers.cmake)

set(NEURONSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/neuronsim)

# The one target an embedder links. examples and compiler are tools' libraries, exported
# on their own (neuronsim::examples, neuronsim::compiler), not part of the embedding API.
add_library(neuronsim_package INTERFACE)
set_target_properties(neuronsim_package PROPERTIES EXPORT_NAME neuronsim)
target_link_libraries(neuronsim_package INTERFACE neuronsim_sim neuronsim_host
  neuronsim_profile neuronsim_io neuronsim_config neuronsim_engines neuronsim_memory
  neuronsim_neff neuronsim_validate neuronsim_cost neuronsim_semantics neuronsim_asm
  neuronsim_builder neuronsim_isa neuronsim_params neuronsim_base neuronsim_traces
  neuronsim_report)
add_library(neuronsim::neuronsim ALIAS neuronsim_package)  # the same name in this build

get_property(neuronsim_libraries GLOBAL PROPERTY NEURONSIM_LIBRARIES)
install(TARGETS ${neuronsim_libraries} neuronsim_package
  EXPORT neuronsimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS neuronsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${NEURONSIM_COMPLETION} RENAME neuronsim
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${NEURONSIM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

file(GLOB neuronsim_public_headers CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/include/neuronsim/*.hpp)
install(FILES ${neuronsim_public_headers}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/neuronsim)
neuronsim_internal_headers(neuronsim_needed_headers ${neuronsim_public_headers})
foreach(header IN LISTS neuronsim_needed_headers)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/neuronsim/${folder})
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
