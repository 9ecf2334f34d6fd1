# Common part of the Cortex-M toolchain files (bare metal, newlib + semihosting, QEMU system mode).
# The per-core files set PBP_CPU_FLAGS and PBP_BOARD, then include this one. Board glue:
# targets/boards/cortex-m (the port) and targets/boards/<board> (targets/cmake/pbp-board.cmake).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

find_program(PBP_ARM_NONE_EABI_GCC arm-none-eabi-gcc)
if(NOT PBP_ARM_NONE_EABI_GCC)
  message(FATAL_ERROR "arm-none-eabi-gcc not found: run targets/setup.sh")
endif()
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar CACHE FILEPATH "")
set(CMAKE_RANLIB arm-none-eabi-ranlib CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
# No board glue during CMake's compiler checks: build them as static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_C_FLAGS_INIT "${PBP_CPU_FLAGS} -ffunction-sections -fdata-sections -fstack-usage")
set(CMAKE_CXX_FLAGS_INIT "${PBP_CPU_FLAGS} -ffunction-sections -fdata-sections -fstack-usage")
set(CMAKE_ASM_FLAGS_INIT "${PBP_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
# libstdc++ is not installed for arm-none-eabi (only its headers) and the runtime uses none of
# its library code: link C++ executables with the C driver.
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# newlib with semihosting (librdimon) for the console, files and exit status; then the board glue.
set(PBP_BOARD_LIBC_LINK_OPTIONS --specs=rdimon.specs)
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/pbp-board.cmake)

# CTest runs every test executable through QEMU; semihosting carries the console and exit code.
find_program(PBP_QEMU_SYSTEM_ARM qemu-system-arm)
if(NOT PBP_QEMU_SYSTEM_ARM)
  set(PBP_QEMU_SYSTEM_ARM qemu-system-arm)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${PBP_QEMU_SYSTEM_ARM} -M ${PBP_QEMU_MACHINE} -display none -serial none -monitor none
    -chardev stdio,id=shc -semihosting-config enable=on,target=native,chardev=shc -kernel)
