# The example_*_package tests (cmake -P): installs the logsim build BUILD_DIR into a fresh
# prefix under WORK_DIR, then configures, builds (-j2) and runs EXAMPLE_DIR, a project of its own
# that finds logsim with find_package(logsim), exactly as a user's project would.
#
# Variables: NAME (the test's), BUILD_DIR, WORK_DIR, EXAMPLE_DIR, GENERATOR, CXX_COMPILER, BUILD_TYPE, and the
# dependencies' package directories (fmt_DIR, nlohmann_json_DIR, GTest_DIR) so the example
# links the same fmt, JSON and GoogleTest the build did.
cmake_minimum_required(VERSION 3.25)

foreach(var NAME BUILD_DIR WORK_DIR EXAMPLE_DIR GENERATOR CXX_COMPILER)
  if(NOT ${var})
    message(FATAL_ERROR "example_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/build)

# step(NAME COMMAND...): runs one step; on failure prints its output and stops the test.
function(step name)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP end "%s")
  math(EXPR took "${end} - ${start}")
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "${NAME}: ${name} failed (exit ${rc}): ${ARGN}")
  endif()
  message(STATUS "${name}: ok (${took} s)")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# Fresh every time: a header or library missing from the install must not be masked by an
# earlier install or an earlier configure.
file(REMOVE_RECURSE ${prefix} ${example_build})

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

set(configure_args -S ${EXAMPLE_DIR} -B ${example_build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix})
if(BUILD_TYPE)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
foreach(dep fmt_DIR nlohmann_json_DIR GTest_DIR)
  if(${dep})
    list(APPEND configure_args -D${dep}=${${dep}})
  endif()
endforeach()
step("configure" ${CMAKE_COMMAND} ${configure_args})
string(FIND "${step_output}" "logsim found in ${prefix}/" at)  # printed by the example
if(at EQUAL -1)
  message("${step_output}")
  message(FATAL_ERROR "${NAME}: the example did not find logsim in ${prefix}")
endif()

step("build" ${CMAKE_COMMAND} --build ${example_build} -j2)
step("test" ${CMAKE_CTEST_COMMAND} --test-dir ${example_build} --output-on-failure)
message("${step_output}")
