# What `cmake --install` puts under the prefix, for other projects' find_package(logsim):
#   lib/liblogsim_*.a                       the static libraries (each directory installs its own)
#   include/logsim/{api,engine,sim,properties,scenarios,reports,wire}/*.h   the headers, in the
#                                           source layout, so the include style stays the same
#   lib/cmake/logsim/logsim-config.cmake    (+ -version, -targets): targets logsim::logsim (the
#                                           API), logsim::cli (logsim::main for a user's binary), ...
#   bin/logsim                              the CLI, for the replay commands failing tests print
# Included at the end of the top-level CMakeLists.txt, after every target exists.
include(CMakePackageConfigHelpers)

set(LOGSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/logsim)

# The headers of the installed libraries (not the tests').
install(DIRECTORY ${PROJECT_SOURCE_DIR}/api ${PROJECT_SOURCE_DIR}/engine ${PROJECT_SOURCE_DIR}/sim
                  ${PROJECT_SOURCE_DIR}/properties ${PROJECT_SOURCE_DIR}/scenarios ${PROJECT_SOURCE_DIR}/reports
                  ${PROJECT_SOURCE_DIR}/wire ${PROJECT_SOURCE_DIR}/cli ${PROJECT_SOURCE_DIR}/fuzz ${PROJECT_SOURCE_DIR}/live
        DESTINATION ${LOGSIM_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h"
        PATTERN "tests" EXCLUDE PATTERN "regressions" EXCLUDE PATTERN "templates" EXCLUDE)

install(EXPORT logsim-targets NAMESPACE logsim:: FILE logsim-targets.cmake DESTINATION ${LOGSIM_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/logsim-config.cmake.in
                              ${PROJECT_BINARY_DIR}/logsim-config.cmake
                              INSTALL_DESTINATION ${LOGSIM_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/logsim-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/logsim-config.cmake ${PROJECT_BINARY_DIR}/logsim-config-version.cmake
        DESTINATION ${LOGSIM_INSTALL_CMAKEDIR})

# The CLI beside the libraries: a failing test prints `logsim run FILE --seed N`.
if(TARGET logsim)
  install(TARGETS logsim)
endif()
