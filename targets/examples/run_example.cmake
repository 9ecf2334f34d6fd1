# SPDX-License-Identifier: Apache-2.0
# cmake -DEMULATOR=a|b|c -DPROGRAM=elf -DEXPECTED=file -P run_example.cmake
# Runs PROGRAM (through EMULATOR, '|'-separated, may be empty) and passes when it exits 0 and its
# output, without the board glue's "[board ...]" lines, equals the file EXPECTED exactly. With
# PBP_REGENERATE_FIXTURES=1 in the environment it writes EXPECTED instead.
string(REPLACE "|" ";" emulator "${EMULATOR}")
execute_process(COMMAND ${emulator} ${PROGRAM} RESULT_VARIABLE status OUTPUT_VARIABLE output
                ERROR_VARIABLE errors TIMEOUT 100)
message("${output}${errors}")
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} exited with status ${status}")
endif()
string(REPLACE "\r" "" output "${output}")
string(REGEX REPLACE "(^|\n)\\[board [^\n]*" "" output "${output}")
if("$ENV{PBP_REGENERATE_FIXTURES}" STREQUAL "1")
  file(WRITE "${EXPECTED}" "${output}")
  message("wrote ${EXPECTED}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT output STREQUAL expected)
  file(WRITE "${PROGRAM}.output.txt" "${output}")
  message(FATAL_ERROR "output differs from ${EXPECTED}:\n"
          "  diff -u ${EXPECTED} ${PROGRAM}.output.txt\n"
          "(after a deliberate change: PBP_REGENERATE_FIXTURES=1 ctest -R example_)")
endif()
