# SPDX-License-Identifier: Apache-2.0
# The board glue of the bare-metal targets (the porting layer: targets/boards/board.h), included by
# a port's toolchain file (arm-none-eabi.cmake, riscv32-elf.cmake) once it has set
#   PBP_BOARD                    the board, a folder of targets/boards (set by the preset's file)
#   PBP_BOARD_LIBC_LINK_OPTIONS  how the port's C library links (specs, console and exit library)
# Reads the board's board.cmake (PBP_BOARD_PORT, PBP_QEMU_MACHINE) and defines
#   PBP_BOARD_SOURCES       targets/boards/board.c and the port's startup.c
#   PBP_BOARD_LINK_OPTIONS  the C library's options, -nostartfiles and the board's memory.ld
#   pbp_target_executable(<target>), which tests/runtime/CMakeLists.txt, the examples and the
#   self-checks call for every executable: links the board glue and the linker script.
set(PBP_BOARDS_DIR ${CMAKE_CURRENT_LIST_DIR}/../boards)
get_filename_component(PBP_BOARDS_DIR ${PBP_BOARDS_DIR} ABSOLUTE)
include(${PBP_BOARDS_DIR}/${PBP_BOARD}/board.cmake)
if(NOT PBP_BOARD_PORT OR NOT EXISTS ${PBP_BOARDS_DIR}/${PBP_BOARD_PORT}/startup.c)
  message(FATAL_ERROR "boards/${PBP_BOARD}/board.cmake names no port (PBP_BOARD_PORT)")
endif()
set(PBP_BOARD_SOURCES ${PBP_BOARDS_DIR}/board.c ${PBP_BOARDS_DIR}/${PBP_BOARD_PORT}/startup.c)
set(PBP_BOARD_LINK_OPTIONS ${PBP_BOARD_LIBC_LINK_OPTIONS} -nostartfiles
    -L${PBP_BOARDS_DIR}/${PBP_BOARD_PORT} -T${PBP_BOARDS_DIR}/${PBP_BOARD}/memory.ld)

function(pbp_target_executable target)
  if(NOT TARGET pbp_board)
    add_library(pbp_board OBJECT ${PBP_BOARD_SOURCES})
    target_include_directories(pbp_board PUBLIC ${PBP_BOARDS_DIR})  # board.h
    target_compile_definitions(pbp_board PRIVATE PBP_BOARD_NAME="${PBP_BOARD}")
    target_compile_options(pbp_board PRIVATE -Wall -Wextra -Werror)
  endif()
  target_link_libraries(${target} PRIVATE pbp_board)
  target_link_options(${target} PRIVATE ${PBP_BOARD_LINK_OPTIONS}
                      -Wl,-Map=$<TARGET_FILE:${target}>.map)
  file(GLOB scripts ${PBP_BOARDS_DIR}/${PBP_BOARD_PORT}/*.ld)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
               ${PBP_BOARDS_DIR}/${PBP_BOARD}/memory.ld ${scripts})
endfunction()
