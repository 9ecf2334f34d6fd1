# SPDX-License-Identifier: Apache-2.0
# Runs run-model-runner.sh (the script targets/tools/run-on-device.sh ends in) on an inputs file
# that ends inside a row: passes only if it exits non-zero and says why.
execute_process(COMMAND sh ${RUNNER} ${MODEL} ${INPUTS} RESULT_VARIABLE status
                OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
if(status EQUAL 0)
  message(FATAL_ERROR "run-model-runner.sh exited 0 on a partial row")
endif()
if(NOT output MATCHES "inputs.f32 ends inside a row: 4 bytes after 1 complete rows")
  message(FATAL_ERROR "no message naming the partial row (exit status ${status})")
endif()
