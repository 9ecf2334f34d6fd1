// SPDX-License-Identifier: Apache-2.0
// What `pbp inspect` reports of a blob's stored weights: their values whatever the storage type,
// their bytes, and how far float16 or int8 weights can be from the values they were rounded from.
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/pbp.h"

namespace pbp::host {

// A layer tensor's values as floats, whatever its storage type (float16 decoded exactly).
std::vector<float> layer_values(const pbp_layer& layer, bool variance);

// Bytes the layers' weight tensors take, padding excluded.
uint64_t weight_bytes(const pbp_model& m);

// How far the float16 or int8 weights can be from the values they were rounded from (the
// original is not in the blob): half a step at each stored value, the largest over the means
// (absolute) and over the variances (relative; float16: 1 for the smallest half, which also
// stands for variances rounded up from below it; int8: 1.25 for code 1). Zero when every layer is
// float32.
struct QuantisationBound {
  double mean_absolute = 0.0;
  double variance_relative = 0.0;
  // The quantised layers' storage types: "int8", "float16", "int8 and float16" (an int8 model's
  // float16 fallback layers), or "float32" where none is quantised.
  const char* storage = "float32";
};
QuantisationBound quantisation_bound(const pbp_model& m);

}  // namespace pbp::host
