# SPDX-License-Identifier: Apache-2.0
# The installed package (cmake --install): a CMake config, so that a user's project does
#   find_package(pbp 0.1 CONFIG REQUIRED)  and links  pbp::runtime
# (a host install also has pbp::trainer and the pbp tool as pbp::pbp), and a pkg-config file,
# pbp-runtime.pc, for Makefile projects. Both are relocatable: install with any --prefix.
include(CMakePackageConfigHelpers)
set(PBP_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pbp)

install(EXPORT pbpTargets NAMESPACE pbp:: DESTINATION ${PBP_PACKAGE_DIR} COMPONENT runtime)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/pbpConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/pbpConfig.cmake
                              INSTALL_DESTINATION ${PBP_PACKAGE_DIR})
# Before 1.0 a minor version may change the API: 0.1.x satisfies a request for 0.1 only. The
# version file also refuses a build of another pointer size (a 32-bit target's library).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/pbpConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/pbpConfig.cmake
              ${PROJECT_BINARY_DIR}/package/pbpConfigVersion.cmake
        DESTINATION ${PBP_PACKAGE_DIR} COMPONENT runtime)

# pkg-config: the prefix is found from the .pc file's own folder (${pcfiledir}).
file(RELATIVE_PATH PBP_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" PBP_PC_TO_PREFIX ${PBP_PC_TO_PREFIX})  # ../..
configure_file(${CMAKE_CURRENT_LIST_DIR}/pbp-runtime.pc.in ${PROJECT_BINARY_DIR}/package/pbp-runtime.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/pbp-runtime.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)

# The licence travels with every install (Apache-2.0; the pkg-config file names it too).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
