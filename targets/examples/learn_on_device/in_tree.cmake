# SPDX-License-Identifier: Apache-2.0
# Learning on the device (included from ../CMakeLists.txt): main.c + the committed data from
# regenerate.sh, and ram_flash.c, the flash port pbp_store saves through. Not on the micro:bit:
# 13-50-1 learning takes 8.8 KB of RAM, and its boot and save buffers and two RAM-backed flash
# slots 27.8 KB more, against 16 KiB.
set(learn_example ${CMAKE_CURRENT_LIST_DIR})
if(NOT PBP_BOARD STREQUAL "microbit")
  pbp_add_example(learn_on_device ${learn_example}/expected_output.txt ${learn_example}/main.c
                  ${learn_example}/boston_start.c ${learn_example}/boston_rows.c
                  ${learn_example}/ram_flash.c)
  target_include_directories(example_learn_on_device PRIVATE ${learn_example})
endif()

# Host build only: `pbp learn` on the same start blob and stream writes the blob whose CRC-32 the
# example prints (the same bits on a workstation as on the device).
if(TARGET pbp AND NOT CMAKE_CROSSCOMPILING)  # runs the host pbp binary itself
  add_test(NAME example_learn_on_device_host
           COMMAND ${CMAKE_COMMAND} -DPBP=$<TARGET_FILE:pbp> -DSOURCE_DIR=${learn_example}
                   -DOUT=${CMAKE_CURRENT_BINARY_DIR}/learn_on_device_host.pbp
                   -P ${learn_example}/check_host.cmake)
  set_tests_properties(example_learn_on_device_host PROPERTIES LABELS "example" TIMEOUT 120)
endif()
