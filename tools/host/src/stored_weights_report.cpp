// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/stored_weights_report.hpp"

#include "pbp/format.hpp"
#include "pbp/model_view.hpp"
#include "pbp/storage_types.hpp"

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

QuantisationBound quantisation_bound(const pbp_model& m) {
  QuantisationBound bound;
  bool int8 = false, half = false;
  const char* other = "float32";  // a model of another type alone: its name in the table
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    int8 = int8 || fmt::has_int8_means(layer.storage);
    half = half || layer.storage == PBP_STORAGE_FLOAT16;
    if (layer.storage != PBP_STORAGE_FLOAT32 && layer.storage != PBP_STORAGE_FLOAT16 &&
        !fmt::has_int8_means(layer.storage)) {
      other = storage_type_name(layer.storage);
    }
    bound.storage = int8 && half ? "int8 and float16" : int8 ? "int8" : half ? "float16" : other;
    // The storage table's bound (each codec's widen_rounding_bound).
    widen_rounding_bound<double>(layer.storage, model_view::stored_bytes(layer, false),
                                 model_view::stored_bytes(layer, true), layer.outputs,
                                 layer.inputs + 1u, bound.mean_absolute, bound.variance_relative);
  }
  return bound;
}

}  // namespace pbp::host
