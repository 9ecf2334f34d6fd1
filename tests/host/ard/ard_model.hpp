// SPDX-License-Identifier: Apache-2.0
// Small ARD and Laplace models trained on generated data, for the blob and command-line tests.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::ard_test {

// y = sin(x0) + x1 + noise, x2 unused; 3 inputs named a, b, c. With an input prior (ARD or
// Laplace), as the blob and command-line tests of both use it.
inline trainer::Model small_input_prior_model(trainer::PriorMode prior) {
  trainer::Random random(17);
  trainer::Dataset data;
  data.rows = 60;
  data.inputs = 3;
  data.feature_names = {"a", "b", "c"};
  data.target_name = "y";
  for (size_t i = 0; i < data.rows; ++i) {
    for (size_t k = 0; k < data.inputs; ++k) data.x.push_back(random.normal());
    data.y.push_back(std::sin(data.x[3 * i]) + data.x[3 * i + 1] + 0.1 * random.normal());
  }
  trainer::TrainOptions options;
  options.hidden = {6};
  options.epochs = 4;
  options.prior = prior;
  return trainer::train(data, options);
}

inline trainer::Model small_ard_model() {
  return small_input_prior_model(trainer::PriorMode::ard);
}

// Re-seals a blob whose bytes were edited: a fresh CRC-32 trailer.
inline void reseal(std::vector<uint8_t>& blob) {
  const size_t crc_at = blob.size() - format::kCrcSize;
  format::store_u32(blob.data() + crc_at, format::crc32(blob.data(), crc_at));
}

}  // namespace pbp::ard_test
