# Common part of the RV32 toolchain files (bare metal, picolibc + semihosting, QEMU system mode).
# The per-core files set PBP_CPU_FLAGS, PBP_QEMU_CPU and PBP_BOARD, then include this one. Board
# glue: targets/boards/riscv (the port) and targets/boards/<board> (targets/cmake/pbp-board.cmake).
# Debian's riscv64-unknown-elf-gcc is multilib: -march=rv32... -mabi=ilp32... selects the RV32
# libgcc and picolibc.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

find_program(PBP_RISCV_ELF_GCC riscv64-unknown-elf-gcc)
if(NOT PBP_RISCV_ELF_GCC)
  message(FATAL_ERROR "riscv64-unknown-elf-gcc not found: run targets/setup.sh")
endif()
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_AR riscv64-unknown-elf-ar CACHE FILEPATH "")
set(CMAKE_RANLIB riscv64-unknown-elf-ranlib CACHE FILEPATH "")
set(CMAKE_SIZE riscv64-unknown-elf-size CACHE FILEPATH "")
# No board glue during CMake's compiler checks: build them as static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# picolibc's specs give its headers when compiling and its libraries when linking (the flags are
# on both command lines, so the specs are named once).
set(CMAKE_C_FLAGS_INIT
    "${PBP_CPU_FLAGS} --specs=picolibc.specs -ffunction-sections -fdata-sections -fstack-usage")
set(CMAKE_CXX_FLAGS_INIT
    "${PBP_CPU_FLAGS} --specs=picolibc.specs -ffunction-sections -fdata-sections -fstack-usage")
set(CMAKE_ASM_FLAGS_INIT "${PBP_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
# No libstdc++ is installed for riscv64-unknown-elf and the runtime uses none of its library
# code: link C++ executables with the C driver.
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# picolibc with its semihosting library (console, files, exit status); then the board glue.
set(PBP_BOARD_LIBC_LINK_OPTIONS --oslib=semihost)
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/pbp-board.cmake)

# CTest runs every test executable through QEMU; semihosting carries the console and exit code.
find_program(PBP_QEMU_SYSTEM_RISCV32 qemu-system-riscv32)
if(NOT PBP_QEMU_SYSTEM_RISCV32)
  set(PBP_QEMU_SYSTEM_RISCV32 qemu-system-riscv32)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${PBP_QEMU_SYSTEM_RISCV32} -M ${PBP_QEMU_MACHINE} -cpu ${PBP_QEMU_CPU} -bios none
    -display none -serial none -monitor none
    -chardev stdio,id=shc -semihosting-config enable=on,target=native,chardev=shc -kernel)
