// SPDX-License-Identifier: Apache-2.0
// A written blob opened by the runtime, from a copy aligned as pbp_open needs (4 bytes).
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "pbp/pbp.h"

namespace pbp_quantisation_test {

struct Opened {
  explicit Opened(const std::vector<uint8_t>& blob) : words((blob.size() + 3) / 4) {
    std::memcpy(words.data(), blob.data(), blob.size());
    status = pbp_open(&model, words.data(), blob.size());
  }
  std::vector<uint32_t> words;
  pbp_model model{};
  pbp_status status;
};

}  // namespace pbp_quantisation_test
