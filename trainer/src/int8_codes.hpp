// SPDX-License-Identifier: Apache-2.0
// The codes of a layer's weights in storage types 3 and 4 (format.hpp's int8_weights and
// int8_log_variance): blob_writer.cpp lays them out.
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::trainer::detail {

struct Int8Codes {
  std::vector<float> row_scales;
  std::vector<int8_t> means;
  float variance_scale = 0.0f;
  std::vector<uint8_t> variances;
};

// From the values as given (in double: a blob's decoded values s_j q, w u^2 and t M 2^(e - 7)
// are exact there, so writing read_blob's model again gives the same bytes), the values finite in
// float32 and the variances >= 0. Means to the nearest s_j q with one scale per row. Variances,
// one scale per tensor, never below it (rounding never makes a weight look certain): type 3 to
// the nearest w u^2 (u rounded as a standard deviation, sqrt(v / w)), u >= 1; type 4
// (`log_variance`) to the nearest code in log v, the largest variance at the top code.
Int8Codes int8_codes(const Layer& layer, bool log_variance);

}  // namespace pbp::trainer::detail
