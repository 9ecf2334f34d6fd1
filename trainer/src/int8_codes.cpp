// SPDX-License-Identifier: Apache-2.0
// Storage types 3 and 4's codes (int8_codes.hpp).
#include "int8_codes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "pbp/format.hpp"

namespace pbp::trainer::detail {
namespace {

namespace fmt = pbp::format;

// An int8 scale: `largest / code_max` rounded to float32, at least the smallest normal float (so
// an all-zero row, or one too small for float, still has a valid scale). Applied to decoded
// values (largest = scale x code_max exactly) it gives the scale back: quantising is idempotent.
float int8_scale(double largest, double code_max) {
  return std::max(static_cast<float>(largest / code_max), std::numeric_limits<float>::min());
}

void square_root_codes(const std::vector<double>& variances, Int8Codes& c) {
  namespace int8 = fmt::int8_weights;
  const double largest = *std::max_element(variances.begin(), variances.end());
  const double code_max = int8::kVarianceCodeMax;
  c.variance_scale = int8_scale(largest, code_max * code_max);
  for (size_t i = 0; i < variances.size(); ++i) {
    const double code =
        std::clamp(std::nearbyint(std::sqrt(variances[i] / c.variance_scale)), 1.0, code_max);
    c.variances[i] = static_cast<uint8_t>(code);
  }
}

// t puts the largest variance at code 255 (t M[7] 2^24); each variance takes the code nearest in
// log v of the two around 8 log2(v / t), those below t code 0 (t itself).
void logarithmic_codes(const std::vector<double>& variances, Int8Codes& c) {
  namespace log_codes = fmt::int8_log_variance;
  constexpr uint8_t kTop = 255;
  const double largest = *std::max_element(variances.begin(), variances.end());
  c.variance_scale = int8_scale(largest, log_codes::variance<double>(1.0f, kTop));
  if (!(c.variance_scale < log_codes::kScaleLimit)) {
    throw std::invalid_argument("write_blob: a weight variance is beyond int8 logarithmic codes");
  }
  const auto decoded = [&](int code) {
    return log_codes::variance<double>(c.variance_scale, static_cast<uint8_t>(code));
  };
  for (size_t i = 0; i < variances.size(); ++i) {
    const double v = variances[i];
    int code = 0;
    if (v > c.variance_scale) {
      const double steps = log_codes::kCodesPerOctave * std::log2(v / c.variance_scale);
      const int below = std::clamp(static_cast<int>(std::floor(steps)), 0, int{kTop});
      code = below;
      // the nearer in log v of below and below + 1 (M's rounding moves codes off the exact grid)
      if (below < kTop && std::log(decoded(below + 1) / v) < std::log(v / decoded(below))) {
        code = below + 1;
      }
      // M's rounding can also put v just below `below`'s value: then below - 1 may be nearer
      if (below > 0 && decoded(below) > v &&
          std::log(v / decoded(below - 1)) < std::log(decoded(below) / v)) {
        code = below - 1;
      }
    }
    c.variances[i] = static_cast<uint8_t>(code);
  }
}

}  // namespace

Int8Codes int8_codes(const Layer& layer, bool log_variance) {
  namespace int8 = fmt::int8_weights;
  const uint32_t row_length = layer.row_length();
  Int8Codes c;
  c.means.resize(layer.mean.size());
  c.variances.resize(layer.variance.size());
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    double largest = 0.0;
    for (uint32_t k = 0; k < row_length; ++k) {
      largest = std::max(largest, std::fabs(layer.mean[j * row_length + k]));
    }
    const float scale = int8_scale(largest, int8::kMeanCodeMax);
    c.row_scales.push_back(scale);
    for (uint32_t k = 0; k < row_length; ++k) {
      const double code = std::clamp(std::nearbyint(layer.mean[j * row_length + k] / scale),
                                     -double{int8::kMeanCodeMax}, double{int8::kMeanCodeMax});
      c.means[j * row_length + k] = static_cast<int8_t>(code);
    }
  }
  if (log_variance) {
    logarithmic_codes(layer.variance, c);
  } else {
    square_root_codes(layer.variance, c);
  }
  return c;
}

}  // namespace pbp::trainer::detail
