# SPDX-License-Identifier: Apache-2.0
# Regenerates boston_13_50.c/.h into OUT_DIR with regenerate.sh and compares them with the
# committed ones in SOURCE_DIR. Prints "SKIPPED:" (the test's SKIP_REGULAR_EXPRESSION) when no
# Boston CSV is found among DATA_CANDIDATES ('|'-separated; tools/scripts/fetch_datasets.sh writes build/datasets/boston.csv).
string(REPLACE "|" ";" candidates "${DATA_CANDIDATES}")
set(data "")
foreach(candidate ${candidates})
  if(EXISTS "${candidate}" AND data STREQUAL "")
    set(data "${candidate}")
  endif()
endforeach()
if(data STREQUAL "")
  message("SKIPPED: no Boston data (${DATA_CANDIDATES}): run tools/scripts/fetch_datasets.sh")
  return()
endif()
file(MAKE_DIRECTORY "${OUT_DIR}")
execute_process(COMMAND bash ${SOURCE_DIR}/regenerate.sh ${PBP} ${data} ${OUT_DIR}
                RESULT_VARIABLE status)
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "regenerate.sh failed (${status})")
endif()
foreach(file boston_13_50.c boston_13_50.h)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT_DIR}/${file} ${SOURCE_DIR}/${file}
                  RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "${file} differs from what regenerate.sh makes from ${data}:\n"
            "  diff ${OUT_DIR}/${file} ${SOURCE_DIR}/${file}\n"
            "(after a deliberate trainer change: targets/examples/boston_on_device/regenerate.sh "
            "build/host/bin/pbp ${data}, then PBP_REGENERATE_FIXTURES=1 ctest -R example_)")
  endif()
endforeach()
message("boston_13_50.c/.h match regenerate.sh's output from ${data}")
