// SPDX-License-Identifier: Apache-2.0
// The PBP paper's toy problem (Figure 1): x ~ U[-4, 4], y = x^3 + N(0, 9). Used by the tests and
// by `pbp demo`.
#pragma once
#include <cstddef>
#include <cstdint>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {

inline double toy_function(double x) {
  return x * x * x;
}

inline constexpr double kToyNoiseStd = 3.0;
inline constexpr double kToyInputLimit = 4.0;  // x ~ U[-limit, limit]

// `rows` points, drawn in order (x, then its noise) from Random(seed).
inline Dataset toy_problem(size_t rows, uint64_t seed) {
  Random random(seed);
  Dataset data;
  data.source = "toy problem";
  data.rows = rows;
  data.inputs = 1;
  data.feature_names = {"x"};
  data.target_name = "y";
  for (size_t i = 0; i < rows; ++i) {
    const double x = -kToyInputLimit + 2.0 * kToyInputLimit * random.uniform();
    data.x.push_back(x);
    data.y.push_back(toy_function(x) + kToyNoiseStd * random.normal());
  }
  return data;
}

}  // namespace pbp::trainer
