// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/stored_weights_report.hpp"

#include <algorithm>
#include <cmath>

#include "pbp/format.hpp"
#include "pbp/model_view.hpp"

namespace pbp::host {

namespace fmt = pbp::format;

std::vector<float> layer_values(const pbp_layer& layer, bool variance) {
  std::vector<float> values(model_view::weight_element_count(layer));
  model_view::decode_weights(layer, variance, values.data());
  return values;
}

uint64_t weight_bytes(const pbp_model& m) {
  uint64_t bytes = 0;
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    const uint32_t count = layer.outputs * (layer.inputs + 1u);
    bytes += weight_tensor_byte_length(layer.storage, false, layer.outputs, count) +
             weight_tensor_byte_length(layer.storage, true, layer.outputs, count);
  }
  return bytes;
}

namespace {
// Half the spacing of float16 values at h (half an ulp).
double half_rounding_radius(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  return std::ldexp(1.0, (exponent == 0 ? 1 : exponent) - 26);  // half an ulp
}

// Logarithmic variance codes: half a step in log v of the widest step (M's rounding makes them
// 8.6 % to 9.4 %), about 4.6 %; code 0 stands for every variance up to t: within 100 % of t.
double log_code_bound(const pbp_layer& layer, uint32_t count) {
  namespace log_codes = fmt::int8_log_variance;
  for (uint32_t i = 0; i < count; ++i) {
    if (model_view::int8_variance_code(layer, i) == 0u) return 1.0;
  }
  double widest = 1.0;
  for (int code = 0; code < 255; ++code) {
    widest = std::fmax(widest, log_codes::variance<double>(1.0f, static_cast<uint8_t>(code + 1)) /
                                   log_codes::variance<double>(1.0f, static_cast<uint8_t>(code)));
  }
  return std::sqrt(widest) - 1.0;
}

// Half a step of each int8 code: s_j / 2 of a row's means; a variance code u stands for standard
// deviations within u +- 1/2 (u = 1 also for every smaller one), variances within
// (u + 1/2)^2 / u^2 - 1 of w u^2 relative.
void add_int8_bound(const pbp_layer& layer, uint32_t count, QuantisationBound& bound) {
  namespace int8 = fmt::int8_weights;
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    bound.mean_absolute =
        std::fmax(bound.mean_absolute, 0.5 * model_view::int8_row_scale(layer, j));
  }
  // The relative bound falls with u: the smallest code has the largest. (An integer minimum, not
  // an fmax reduction over the codes, which GCC 12's aarch64 vectoriser crashes on at -O3.)
  if (layer.storage == PBP_STORAGE_INT8_LOG_VARIANCE) {
    bound.variance_relative = std::fmax(bound.variance_relative, log_code_bound(layer, count));
    return;
  }
  uint32_t smallest = int8::kVarianceCodeMax;
  for (uint32_t i = 0; i < count; ++i) {
    smallest = std::min<uint32_t>(smallest, model_view::int8_variance_code(layer, i));
  }
  const double u = smallest;
  bound.variance_relative = std::fmax(bound.variance_relative, (u + 0.5) * (u + 0.5) / (u * u) - 1);
}

}  // namespace

QuantisationBound quantisation_bound(const pbp_model& m) {
  QuantisationBound bound;
  bool int8 = false, half = false;
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    const uint32_t count = model_view::weight_element_count(layer);
    int8 = int8 || fmt::has_int8_means(layer.storage);
    half = half || layer.storage == PBP_STORAGE_FLOAT16;
    bound.storage = int8 && half ? "int8 and float16"
                    : int8       ? "int8"
                    : half       ? "float16"
                                 : "float32";
    if (fmt::has_int8_means(layer.storage)) {
      add_int8_bound(layer, count, bound);
      continue;
    }
    if (layer.storage != PBP_STORAGE_FLOAT16) continue;
    for (uint32_t i = 0; i < count; ++i) {
      const uint16_t mean = model_view::stored_half(layer, false, i);
      const uint16_t variance = model_view::stored_half(layer, true, i);
      bound.mean_absolute = std::fmax(bound.mean_absolute, half_rounding_radius(mean));
      const double relative =
          variance == 1u ? 1.0 : half_rounding_radius(variance) / fmt::half_to_float(variance);
      bound.variance_relative = std::fmax(bound.variance_relative, relative);
    }
  }
  return bound;
}

}  // namespace pbp::host
