# meshtest_add_loader(<dir relative to models/> SOURCES ...):
# builds a model loader plugin as <build>/models/<dir>/loader.so, which is
# where discovery looks for it (the id prefix is <dir>).
set(MESHTEST_MODELS_BUILD_ROOT "${CMAKE_BINARY_DIR}/models")

function(meshtest_add_loader dir)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  string(REPLACE "/" "_" target "loader_${dir}")
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE meshtest_core ${ARG_LIBS})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME loader
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY "${MESHTEST_MODELS_BUILD_ROOT}/${dir}"
    CXX_VISIBILITY_PRESET hidden)
  set_property(GLOBAL APPEND PROPERTY MESHTEST_LOADER_TARGETS ${target})
endfunction()
