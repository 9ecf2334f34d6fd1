# SPDX-License-Identifier: Apache-2.0
# Common part of the RV32 toolchain files (bare metal, picolibc + semihosting, QEMU system mode).
# The per-core files set PBP_CPU_FLAGS, PBP_QEMU_CPU and PBP_BOARD, then include this one. Board
# glue: targets/boards/riscv (the port) and targets/boards/<board> (targets/cmake/pbp-board.cmake).
# Debian's riscv64-unknown-elf-gcc is multilib: -march=rv32... -mabi=ilp32... selects the RV32
# libgcc and picolibc.
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(PBP_GCC_PREFIX riscv64-unknown-elf-)
# picolibc's specs give its headers when compiling and its libraries when linking (the flags are
# on both command lines, so the specs are named once).
set(PBP_LIBC_COMPILE_FLAGS --specs=picolibc.specs)
# picolibc with its semihosting library (console, files, exit status).
set(PBP_BOARD_LIBC_LINK_OPTIONS --oslib=semihost)
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/pbp-bare-metal-gcc.cmake)

# CTest runs every test executable through QEMU; semihosting carries the console and exit code.
find_program(PBP_QEMU_SYSTEM_RISCV32 qemu-system-riscv32)
if(NOT PBP_QEMU_SYSTEM_RISCV32)
  set(PBP_QEMU_SYSTEM_RISCV32 qemu-system-riscv32)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${PBP_QEMU_SYSTEM_RISCV32} -M ${PBP_QEMU_MACHINE} -cpu ${PBP_QEMU_CPU} -bios none
    -display none -serial none -monitor none
    -chardev stdio,id=shc -semihosting-config enable=on,target=native,chardev=shc -kernel)
