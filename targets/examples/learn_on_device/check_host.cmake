# SPDX-License-Identifier: Apache-2.0
# Runs `pbp learn --model boston_start.pbp --data stream.csv --out OUT` and checks that the blob's
# CRC-32 trailer is the one the example prints in expected_output.txt.
execute_process(COMMAND ${PBP} learn --model ${SOURCE_DIR}/boston_start.pbp --data
                        ${SOURCE_DIR}/stream.csv --out ${OUT} RESULT_VARIABLE status
                OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "pbp learn failed (${status})")
endif()
file(READ ${OUT} bytes HEX)
string(LENGTH "${bytes}" length)
math(EXPR at "${length} - 8")
string(SUBSTRING "${bytes}" ${at} 8 trailer)  # little-endian: reverse the bytes
string(REGEX REPLACE "(..)(..)(..)(..)" "\\4\\3\\2\\1" crc "${trailer}")
file(READ ${SOURCE_DIR}/expected_output.txt expected)
if(NOT expected MATCHES "CRC-32 0x${crc}")
  message(FATAL_ERROR "pbp learn wrote a blob with CRC-32 0x${crc}; the example prints another "
                      "(${SOURCE_DIR}/expected_output.txt)")
endif()
message("pbp learn: CRC-32 0x${crc}, as on the device")
