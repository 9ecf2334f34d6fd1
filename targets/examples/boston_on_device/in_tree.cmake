# SPDX-License-Identifier: Apache-2.0
# The Boston housing network on a device, built by the tree (included from ../CMakeLists.txt):
# main.c + the committed `pbp export-c` output. CMakeLists.txt beside this file builds the same
# firmware as a project of its own, against the installed package (targets/DEPLOYING.md).
set(boston_example ${CMAKE_CURRENT_LIST_DIR})
pbp_add_example(boston_on_device ${boston_example}/expected_output.txt ${boston_example}/main.c
                ${boston_example}/boston_13_50.c)
target_include_directories(example_boston_on_device PRIVATE ${boston_example})

# Host build only (needs the pbp CLI and the data): the committed boston_13_50.c/.h are what
# regenerate.sh produces from the Boston data. Skipped without the data, and not added where the
# trainer is built differently from the one that made them (a generic or sanitizer build rounds
# differently).
get_property(pbp_trainer_tuning GLOBAL PROPERTY PBP_TRAINER_TUNING)
if(TARGET pbp AND pbp_trainer_tuning STREQUAL "x86-64-v3" AND NOT PBP_SANITIZE)
  add_test(NAME example_boston_on_device_model
           COMMAND ${CMAKE_COMMAND} -DPBP=$<TARGET_FILE:pbp> -DSOURCE_DIR=${boston_example}
                   -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR}/boston_on_device_regenerated
                   "-DDATA_CANDIDATES=${PROJECT_SOURCE_DIR}/build/datasets/boston.csv|${PROJECT_SOURCE_DIR}/../shared/datasets/boston.csv"
                   -P ${boston_example}/check_model.cmake)
  set_tests_properties(example_boston_on_device_model PROPERTIES LABELS "example" TIMEOUT 120
                                                                 SKIP_REGULAR_EXPRESSION "SKIPPED:")
endif()

# Bare metal: the stack pbp_open and pbp_predict need, measured by stack painting (printed; the
# budget is checked by targets/tools/size-report.sh --os).
if(COMMAND pbp_target_executable)
  add_executable(example_boston_on_device_stack ${boston_example}/stack_usage.c
                 ${boston_example}/boston_13_50.c)
  target_compile_options(example_boston_on_device_stack PRIVATE -Wall -Wextra -Werror)
  target_include_directories(example_boston_on_device_stack PRIVATE ${boston_example})
  target_link_libraries(example_boston_on_device_stack PRIVATE pbp_runtime)
  pbp_target_executable(example_boston_on_device_stack)
  add_test(NAME example_boston_on_device_stack COMMAND example_boston_on_device_stack)
  set_tests_properties(example_boston_on_device_stack PROPERTIES LABELS "example" TIMEOUT 120
                       PASS_REGULAR_EXPRESSION "pbp_predict stack [0-9]+ bytes")
endif()
