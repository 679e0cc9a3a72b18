# Shared compile settings for every logsim target: warnings, sanitizers, include root.

set(LOGSIM_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Woverloaded-virtual -Wimplicit-fallthrough)

function(logsim_configure target)
  target_compile_options(${target} PRIVATE ${LOGSIM_WARNINGS})
  if(LOGSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Sanitizers apply to every target, third-party-free code included, so link them globally.
if(LOGSIM_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # libstdc++'s own checks too: a disengaged optional's value read through `->`, an index past a
  # vector's end. These read garbage quietly in an optimized build (a test once compared a
  # generation of 986382576 that way, and failed only on some machines).
  add_compile_definitions(_GLIBCXX_ASSERTIONS)
endif()

# logsim_test(NAME SOURCES... LIBS ... LABELS ...): one GoogleTest executable, one ctest entry.
function(logsim_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  logsim_configure(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  # Tests find bundled files from the source root, never from __FILE__ (ccache's base_dir and
  # other build tools may make __FILE__ relative) nor from ctest's working directory.
  target_compile_definitions(${name} PRIVATE LOGSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  set(labels unit)
  if(T_LABELS)
    set(labels ${T_LABELS})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}")
endfunction()

# logsim_fast_malloc(TARGET): an executable allocates through tcmalloc_minimal where the top
# CMakeLists.txt found it (LOGSIM_TCMALLOC). Linked in even though nothing names its symbols
# (--no-as-needed), since it works by replacing malloc; LOGSIM_TCMALLOC=1 tells the code.
function(logsim_fast_malloc target)
  if(TARGET PkgConfig::TCMALLOC)
    target_link_libraries(${target} PRIVATE PkgConfig::TCMALLOC)
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
    target_compile_definitions(${target} PRIVATE LOGSIM_TCMALLOC=1)
  endif()
endfunction()
