# `cmake --install BUILD [--prefix DIR]`: kiln's headers under include/kiln
# (so `#include "frontends/builder.h"` works as it does in the tree), its
# static libraries, the `kiln` tool, and a CMake package for
# find_package(kiln) (cmake/kilnConfig.cmake.in). Included by the top-level
# CMakeLists.txt once every library target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_INSTALLED_LIBRARIES
  kiln_graph kiln_fusion kiln_codegen kiln_runtime kiln_executable kiln_proto kiln_frontends)
set(KILN_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
foreach(library ${KILN_INSTALLED_LIBRARIES})
  string(REPLACE "kiln_" "" exported ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${exported})
  target_include_directories(${library} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>
    $<INSTALL_INTERFACE:${KILN_INSTALL_INCLUDEDIR}>)
endforeach()
# Consumers compile kiln's headers, which are C++20.
target_compile_features(kiln_graph PUBLIC cxx_std_20)
# A sanitizer build (KILN_SANITIZE, KILN_FUZZ) installs instrumented
# libraries, which link only together with the sanitizer runtimes.
if(KILN_SANITIZE OR KILN_FUZZ)
  target_link_options(kiln_graph INTERFACE $<INSTALL_INTERFACE:-fsanitize=address,undefined>)
endif()

install(TARGETS ${KILN_INSTALLED_LIBRARIES} kiln EXPORT kilnTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(stage graph fusion codegen runtime frontends)
  install(DIRECTORY ${stage}/ DESTINATION ${KILN_INSTALL_INCLUDEDIR}/${stage}
    FILES_MATCHING PATTERN "*.h" PATTERN "cli" EXCLUDE)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/frontends/graph.pb.h DESTINATION ${KILN_INSTALL_INCLUDEDIR}/frontends)

set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_CMAKE_DIR})
configure_package_config_file(cmake/kilnConfig.cmake.in ${PROJECT_BINARY_DIR}/kilnConfig.cmake
  INSTALL_DESTINATION ${KILN_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  DESTINATION ${KILN_CMAKE_DIR})
