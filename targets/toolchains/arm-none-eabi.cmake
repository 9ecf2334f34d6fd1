# SPDX-License-Identifier: Apache-2.0
# Common part of the Cortex-M toolchain files (bare metal, newlib + semihosting, QEMU system mode).
# The per-core files set PBP_CPU_FLAGS and PBP_BOARD, then include this one. Board glue:
# targets/boards/cortex-m (the port) and targets/boards/<board> (targets/cmake/pbp-board.cmake).
set(CMAKE_SYSTEM_PROCESSOR arm)
set(PBP_GCC_PREFIX arm-none-eabi-)
set(PBP_LIBC_COMPILE_FLAGS "")
# newlib with semihosting (librdimon) for the console, files and exit status.
set(PBP_BOARD_LIBC_LINK_OPTIONS --specs=rdimon.specs)
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/pbp-bare-metal-gcc.cmake)

# CTest runs every test executable through QEMU; semihosting carries the console and exit code.
find_program(PBP_QEMU_SYSTEM_ARM qemu-system-arm)
if(NOT PBP_QEMU_SYSTEM_ARM)
  set(PBP_QEMU_SYSTEM_ARM qemu-system-arm)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${PBP_QEMU_SYSTEM_ARM} -M ${PBP_QEMU_MACHINE} -display none -serial none -monitor none
    -chardev stdio,id=shc -semihosting-config enable=on,target=native,chardev=shc -kernel)
