#include "stored_weights_report.hpp"

#include <cmath>

#include "pbp/format.hpp"

namespace pbp::cli {

namespace fmt = pbp::format;

std::vector<float> layer_values(const pbp_layer& layer, bool variance) {
  const size_t count = size_t{layer.outputs} * (layer.inputs + 1u);
  const void* stored = variance ? layer.stored_variance : layer.stored_mean;
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = layer.storage == PBP_STORAGE_FLOAT16
                    ? fmt::half_to_float(static_cast<const uint16_t*>(stored)[i])
                    : static_cast<const float*>(stored)[i];
  }
  return values;
}

const char* storage_name(uint32_t storage) {
  return storage == PBP_STORAGE_FLOAT16 ? "float16" : "float32";
}

uint64_t weight_bytes(const pbp_model& m) {
  uint64_t bytes = 0;
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    bytes += 2u * fmt::stored_byte_length(layer.storage, layer.outputs * (layer.inputs + 1u));
  }
  return bytes;
}

namespace {
// Half the spacing of float16 values at h (half an ulp).
double half_rounding_radius(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  return std::ldexp(1.0, (exponent == 0 ? 1 : exponent) - 26);  // half an ulp
}
}  // namespace

QuantisationBound quantisation_bound(const pbp_model& m) {
  QuantisationBound bound;
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    if (layer.storage != PBP_STORAGE_FLOAT16) continue;
    const size_t count = size_t{layer.outputs} * (layer.inputs + 1u);
    const auto* means = static_cast<const uint16_t*>(layer.stored_mean);
    const auto* variances = static_cast<const uint16_t*>(layer.stored_variance);
    for (size_t i = 0; i < count; ++i) {
      bound.mean_absolute = std::fmax(bound.mean_absolute, half_rounding_radius(means[i]));
      const double relative = variances[i] == 1u ? 1.0
                                                 : half_rounding_radius(variances[i]) /
                                                       fmt::half_to_float(variances[i]);
      bound.variance_relative = std::fmax(bound.variance_relative, relative);
    }
  }
  return bound;
}

}  // namespace pbp::cli
