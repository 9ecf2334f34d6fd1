# SPDX-License-Identifier: Apache-2.0
# What every bare-metal GCC toolchain file shares (Cortex-M with newlib, RV32 with picolibc): the
# compiler named by PBP_GCC_PREFIX, static-library compiler checks (no board glue there), the
# compile and link flags on top of PBP_CPU_FLAGS and PBP_LIBC_COMPILE_FLAGS, C++ linked with the
# C driver, the find-root modes, then the board glue with PBP_BOARD_LIBC_LINK_OPTIONS. Each
# toolchain file sets those variables and CMAKE_SYSTEM_PROCESSOR, includes this, then sets its
# QEMU command line.
set(CMAKE_SYSTEM_NAME Generic)

find_program(PBP_BARE_METAL_GCC ${PBP_GCC_PREFIX}gcc)
if(NOT PBP_BARE_METAL_GCC)
  message(FATAL_ERROR "${PBP_GCC_PREFIX}gcc not found: run targets/setup.sh")
endif()
set(CMAKE_C_COMPILER ${PBP_GCC_PREFIX}gcc)
set(CMAKE_CXX_COMPILER ${PBP_GCC_PREFIX}g++)
set(CMAKE_ASM_COMPILER ${PBP_GCC_PREFIX}gcc)
set(CMAKE_AR ${PBP_GCC_PREFIX}ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${PBP_GCC_PREFIX}ranlib CACHE FILEPATH "")
set(CMAKE_SIZE ${PBP_GCC_PREFIX}size CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(pbp_compile_flags
    "${PBP_CPU_FLAGS} ${PBP_LIBC_COMPILE_FLAGS} -ffunction-sections -fdata-sections -fstack-usage")
string(STRIP "${pbp_compile_flags}" pbp_compile_flags)
string(REPLACE "  " " " pbp_compile_flags "${pbp_compile_flags}")
set(CMAKE_C_FLAGS_INIT "${pbp_compile_flags}")
set(CMAKE_CXX_FLAGS_INIT "${pbp_compile_flags}")
set(CMAKE_ASM_FLAGS_INIT "${PBP_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
# No libstdc++ library is installed for these compilers and the runtime uses none of its code:
# link C++ executables with the C driver.
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

include(${CMAKE_CURRENT_LIST_DIR}/pbp-board.cmake)
