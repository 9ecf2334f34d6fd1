# Defines pbp_target_executable(<target>), which tests/runtime/CMakeLists.txt calls for every test
# executable: adds the board glue (vector table, reset and fault handlers: targets/boards/cortex-m)
# and the board's linker script (targets/boards/${PBP_BOARD}/memory.ld). Included by the Cortex-M
# toolchain files, so it exists before the test folders are processed.
include_guard(GLOBAL)

function(pbp_target_executable target)
  if(NOT TARGET pbp_board)
    add_library(pbp_board OBJECT ${PBP_BOARDS_DIR}/cortex-m/startup.c)
    target_compile_definitions(pbp_board PRIVATE PBP_BOARD_NAME="${PBP_BOARD}")
    target_compile_options(pbp_board PRIVATE -Wall -Wextra -Werror)
  endif()
  target_link_libraries(${target} PRIVATE pbp_board)
  target_link_options(${target} PRIVATE
    --specs=rdimon.specs -nostartfiles
    -L${PBP_BOARDS_DIR}/cortex-m -T${PBP_BOARDS_DIR}/${PBP_BOARD}/memory.ld
    -Wl,-Map=$<TARGET_FILE:${target}>.map)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
    ${PBP_BOARDS_DIR}/${PBP_BOARD}/memory.ld ${PBP_BOARDS_DIR}/cortex-m/cortex-m.ld)
endfunction()
