# Checks every `#include "<module>/..."` in the source tree against the table
# in ModuleDependencies.cmake; prints each wrong include with its file and
# fails. Run: cmake -DMESHTEST_SOURCE_DIR=<repo> -P cmake/CheckModuleDependencies.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/ModuleDependencies.cmake)
if(NOT MESHTEST_SOURCE_DIR)
  message(FATAL_ERROR "set -DMESHTEST_SOURCE_DIR=<the repository root>")
endif()

# The module a repository-relative path belongs to (the longest module that is
# the path itself or a folder above it), or "".
function(module_of path out)
  set(best "")
  string(LENGTH "${best}" best_length)
  foreach(m IN LISTS MESHTEST_MODULES)
    string(LENGTH "${m}/" n)
    string(SUBSTRING "${path}" 0 ${n} prefix)
    if((prefix STREQUAL "${m}/" OR path STREQUAL m) AND n GREATER best_length)
      set(best "${m}")
      set(best_length ${n})
    endif()
  endforeach()
  set(${out} "${best}" PARENT_SCOPE)
endfunction()

# No cycles: MESHTEST_MODULES is in layer order, so every module's allowed
# modules come before it.
set(seen "")
foreach(m IN LISTS MESHTEST_MODULES)
  foreach(dep IN LISTS MESHTEST_MODULE_DEPS_${m})
    if(NOT dep STREQUAL "*" AND NOT dep IN_LIST seen)
      message(FATAL_ERROR "cmake/ModuleDependencies.cmake: ${m} may include ${dep}, which is not listed before it "
                          "in MESHTEST_MODULES (a cycle, or the list is out of layer order)")
    endif()
  endforeach()
  list(APPEND seen "${m}")
endforeach()

set(files "")
foreach(top IN LISTS MESHTEST_MODULES)
  file(GLOB_RECURSE found RELATIVE "${MESHTEST_SOURCE_DIR}" "${MESHTEST_SOURCE_DIR}/${top}/*.h"
       "${MESHTEST_SOURCE_DIR}/${top}/*.cpp")
  list(APPEND files ${found})
endforeach()
list(REMOVE_DUPLICATES files)

set(violations "")
list(LENGTH files checked)
foreach(file IN LISTS files)
  module_of("${file}" module)
  set(allowed ${MESHTEST_MODULE_DEPS_${module}})
  file(STRINGS "${MESHTEST_SOURCE_DIR}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[^\"]+\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" header "${line}")
    module_of("${header}" target)
    if(target STREQUAL "" OR target STREQUAL module OR "*" IN_LIST allowed OR target IN_LIST allowed)
      continue()
    endif()
    string(REPLACE ";" ", " allowed_text "${allowed}")
    if(allowed_text STREQUAL "")
      set(allowed_text "no other module")
    else()
      set(allowed_text "only ${allowed_text}")
    endif()
    string(APPEND violations "  ${file}: #include \"${header}\" (${target}): ${module} may include ${allowed_text}\n")
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "wrong module dependencies (table: cmake/ModuleDependencies.cmake):\n${violations}")
endif()
message(STATUS "module dependencies: ${checked} files follow cmake/ModuleDependencies.cmake")
