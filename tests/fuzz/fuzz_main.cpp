// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: clang -fsanitize=fuzzer,address,undefined (PBP_FUZZ=ON).
#include "fuzz_open_predict.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pbp_fuzz_open_predict(data, size);
  return 0;
}
