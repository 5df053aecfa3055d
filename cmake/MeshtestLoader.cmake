# meshtest_add_loader(<dir> SOURCES ... [LIBS ...] [ROOT <models root>]):
# builds a model loader plugin as <ROOT>/<dir>/loader.so (ROOT defaults to
# <build>/models, where `meshtest` looks by default); <dir> is the id prefix.
# Used inside this tree and, installed, by external loader repositories
# through find_package(meshtest) (then it links meshtest::meshtest_core).
set(MESHTEST_MODELS_BUILD_ROOT "${CMAKE_BINARY_DIR}/models")

function(meshtest_add_loader dir)
  cmake_parse_arguments(ARG "" "ROOT" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_ROOT)
    set(ARG_ROOT "${MESHTEST_MODELS_BUILD_ROOT}")
  endif()
  string(MAKE_C_IDENTIFIER "loader_${dir}" target)
  if(NOT ARG_ROOT STREQUAL MESHTEST_MODELS_BUILD_ROOT)
    get_filename_component(root_name "${ARG_ROOT}" NAME)
    string(MAKE_C_IDENTIFIER "${root_name}_${target}" target)
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  if(TARGET meshtest::meshtest_core)
    target_link_libraries(${target} PRIVATE meshtest::meshtest_core ${ARG_LIBS})
  else()
    target_link_libraries(${target} PRIVATE meshtest_core ${ARG_LIBS})
  endif()
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME loader
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY "${ARG_ROOT}/${dir}"
    CXX_VISIBILITY_PRESET hidden)
  set_property(GLOBAL APPEND PROPERTY MESHTEST_LOADER_TARGETS ${target})
  set(MESHTEST_LAST_LOADER_TARGET ${target} PARENT_SCOPE)
endfunction()
