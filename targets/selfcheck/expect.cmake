# SPDX-License-Identifier: Apache-2.0
# cmake -DEMULATOR=a|b|c -DPROGRAM=elf -DEXPECTED_STATUS=regex -DEXPECTED_OUTPUT=regex -P expect.cmake
# Runs PROGRAM (through EMULATOR, '|'-separated) and fails unless its exit status matches
# EXPECTED_STATUS ("CRASH": killed by a signal) and its output matches EXPECTED_OUTPUT.
string(REPLACE "|" ";" emulator "${EMULATOR}")
execute_process(COMMAND ${emulator} ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE output
                ERROR_VARIABLE output TIMEOUT 100)
message("${output}")
message("exit status: ${status}")
if(EXPECTED_STATUS STREQUAL "CRASH")
  if(status MATCHES "^[0-9]+$" AND NOT status GREATER 128)
    message(FATAL_ERROR "expected a crash (signal), got exit status ${status}")
  endif()
elseif(NOT status MATCHES "^(${EXPECTED_STATUS})$")
  message(FATAL_ERROR "expected exit status ${EXPECTED_STATUS}, got ${status}")
endif()
if(NOT output MATCHES "${EXPECTED_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECTED_OUTPUT}'")
endif()
