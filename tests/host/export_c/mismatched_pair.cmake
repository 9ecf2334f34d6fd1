# SPDX-License-Identifier: Apache-2.0
# A NAME.c compiled with another export's NAME.h must not compile: export two different blobs
# under one name, then compile (C99, -Werror) each .c with the matching header (must succeed),
# with the other blob's header (different size and CRC: must fail), with its own header whose
# CRC alone is changed (same size: must fail), and with a byte missing from the array.
# -DPBP=<pbp> -DCC=<C compiler> -DBLOB_A=... -DBLOB_B=... -DWORK=<scratch dir>
file(REMOVE_RECURSE ${WORK})
foreach(which a b)
  file(MAKE_DIRECTORY ${WORK}/${which})
  string(TOUPPER ${which} upper)
  execute_process(COMMAND ${PBP} export-c ${BLOB_${upper}} --name model --out-dir ${WORK}/${which}
                  RESULT_VARIABLE status OUTPUT_QUIET)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "pbp export-c ${BLOB_${upper}} failed")
  endif()
endforeach()

# compile(<source dir> <header dir> <expect: PASS|FAIL> <error text expected on failure>)
# The pair is copied into a folder of its own: #include "model.h" looks beside the .c first.
function(compile source_dir header_dir expect pattern)
  set(pair ${WORK}/pair)
  file(REMOVE_RECURSE ${pair})
  file(MAKE_DIRECTORY ${pair})
  file(COPY ${source_dir}/model.c ${header_dir}/model.h DESTINATION ${pair})
  execute_process(COMMAND ${CC} -std=c99 -pedantic -Wall -Wextra -Werror -c ${pair}/model.c
                          -o ${pair}/model.o
                  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(expect STREQUAL "PASS" AND NOT status EQUAL 0)
    message(FATAL_ERROR "${source_dir}/model.c with ${header_dir}/model.h should compile:\n${output}")
  elseif(expect STREQUAL "FAIL")
    if(status EQUAL 0)
      message(FATAL_ERROR "${source_dir}/model.c compiled with ${header_dir}/model.h (mismatched)")
    endif()
    if(NOT output MATCHES "${pattern}")
      message(FATAL_ERROR "the mismatch failed for another reason than expected:\n${output}")
    endif()
  endif()
endfunction()

compile(${WORK}/a ${WORK}/a PASS "")
compile(${WORK}/b ${WORK}/b PASS "")
compile(${WORK}/a ${WORK}/b FAIL "come from different models")
compile(${WORK}/b ${WORK}/a FAIL "come from different models")

# The same size, another CRC (as a retrained model of the same shape would have).
file(MAKE_DIRECTORY ${WORK}/crc)
file(READ ${WORK}/a/model.h header)
string(REGEX REPLACE "(#define MODEL_CRC32 0x)[0-9a-f]+u" "\\1deadbeefu" changed "${header}")
if(changed STREQUAL header)
  message(FATAL_ERROR "no MODEL_CRC32 in ${WORK}/a/model.h")
endif()
file(WRITE ${WORK}/crc/model.h "${changed}")
compile(${WORK}/a ${WORK}/crc FAIL "come from different models")

# The array's size is checked against the header by itself too: without the CRC check, a header
# of the other blob's size must still fail (conflicting types).
file(MAKE_DIRECTORY ${WORK}/size)
file(READ ${WORK}/a/model.c source)
string(REGEX REPLACE "#if MODEL_CRC32[^\n]*\n#error[^\n]*\n#endif" "" unchecked "${source}")
if(unchecked STREQUAL source)
  message(FATAL_ERROR "no CRC check in ${WORK}/a/model.c")
endif()
file(WRITE ${WORK}/size/model.c "${unchecked}")
compile(${WORK}/size ${WORK}/a PASS "")
compile(${WORK}/size ${WORK}/b FAIL "conflicting types")

# A short initialiser (the last byte lost) fails by itself, with its own header.
file(MAKE_DIRECTORY ${WORK}/short)
string(REGEX REPLACE " ?0x[0-9a-f][0-9a-f],\n};" "\n};" short "${source}")
if(short STREQUAL source)
  message(FATAL_ERROR "no array initialiser found in ${WORK}/a/model.c")
endif()
file(WRITE ${WORK}/short/model.c "${short}")
compile(${WORK}/short ${WORK}/a FAIL "size of array|negative")
message("mismatched pairs and a short array fail to compile; matched pairs compile")
