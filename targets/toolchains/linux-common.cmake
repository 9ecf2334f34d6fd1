# SPDX-License-Identifier: Apache-2.0
# Common part of the Linux cross toolchain files: PBP_LINUX_TRIPLE and PBP_QEMU_USER are set first.
find_program(PBP_LINUX_CROSS_GCC ${PBP_LINUX_TRIPLE}-gcc)
if(NOT PBP_LINUX_CROSS_GCC)
  message(FATAL_ERROR "${PBP_LINUX_TRIPLE}-gcc not found: run targets/setup.sh")
endif()
set(CMAKE_C_COMPILER ${PBP_LINUX_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${PBP_LINUX_TRIPLE}-g++)
set(CMAKE_AR ${PBP_LINUX_TRIPLE}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${PBP_LINUX_TRIPLE}-ranlib CACHE FILEPATH "")
set(CMAKE_SIZE ${PBP_LINUX_TRIPLE}-size CACHE FILEPATH "")

set(CMAKE_C_FLAGS_INIT "-fstack-usage")
set(CMAKE_CXX_FLAGS_INIT "-fstack-usage")
# Static executables: qemu-user then needs no sysroot (-L) to find the dynamic loader.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

set(CMAKE_FIND_ROOT_PATH /usr/${PBP_LINUX_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(PBP_QEMU_USER_PATH ${PBP_QEMU_USER})
if(NOT PBP_QEMU_USER_PATH)
  set(PBP_QEMU_USER_PATH ${PBP_QEMU_USER})
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR ${PBP_QEMU_USER_PATH})
