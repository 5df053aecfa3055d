# Installs the loader SDK as a CMake package (meshtest::meshtest_core, the
# core and SDK headers, meshtest_add_loader; meshtest::meshtest_device, the
# public device-kernel API that `meshtest codegen` programs call) so external repositories can build
# loader plugins with find_package(meshtest).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

install(TARGETS meshtest_core meshtest_device EXPORT meshtestTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/ DESTINATION include/meshtest/core FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_SOURCE_DIR}/discovery/loader_sdk.h DESTINATION include/meshtest/discovery)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/device/device_api.h DESTINATION include/meshtest/runtime/device)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/mesh/mesh_api.h DESTINATION include/meshtest/runtime/mesh)
install(EXPORT meshtestTargets NAMESPACE meshtest:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/meshtest)
configure_file(${PROJECT_SOURCE_DIR}/cmake/meshtest-config.cmake.in
               ${PROJECT_BINARY_DIR}/meshtest-config.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/meshtest-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/meshtest-config.cmake ${PROJECT_BINARY_DIR}/meshtest-config-version.cmake
              ${PROJECT_SOURCE_DIR}/cmake/MeshtestLoader.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/meshtest)
set_target_properties(meshtest PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS meshtest RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
