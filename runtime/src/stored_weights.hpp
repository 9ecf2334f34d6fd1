// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: a layer's weight tensors in any storage type (format.hpp), located and
// checked by pbp_open, and the kernel that runs a layer of each type.
#pragma once
#include <stdint.h>

#include "blob_view.hpp"
#include "pbp/moments.hpp"

namespace pbp::detail {

// Checks the layer's mean and variance descriptors (storage known and the same for both, sizes,
// alignment, range), then their values (finite; variances >= 0, float16 variances > 0; int8
// scales finite and > 0, variance codes > 0), and fills layer->storage, stored_mean,
// stored_variance (and mean, variance for float32).
pbp_status read_stored_weights(const uint8_t* mean_descriptor, const uint8_t* variance_descriptor,
                               Span tensor_data, pbp_layer* layer);

// format::weight_tensor_byte_length for a storage type this build runs: a build of float32
// alone knows one length, and links no other.
inline uint64_t built_in_byte_length(uint32_t storage, bool variance, uint32_t rows,
                                     uint32_t count) {
  if (PBP_WITH_FLOAT32 && !PBP_WITH_FLOAT16 && !PBP_WITH_INT8) return 4ull * count;
  return format::weight_tensor_byte_length(storage, variance, rows, count);
}

// The bytes `layer`'s mean (`variance` false) or variance tensor takes in the blob.
inline uint32_t stored_weight_bytes(const pbp_layer& layer, bool variance) {
  return static_cast<uint32_t>(built_in_byte_length(layer.storage, variance, layer.outputs,
                                                    layer.outputs * (layer.inputs + 1u)));
}

// linear_moments of a float32 layer (linear_moments_f32.cpp): moments.hpp's kernel, out of line.
void linear_moments_f32(const pbp_layer& layer, bool exact_input, const float* z_mean,
                        const float* z_var, float* a_mean, float* a_var);

// linear_moments of a float16 layer (linear_moments_f16.cpp): the float32 kernel's arithmetic
// on each weight converted exactly to float, so the result is bit for bit the float32 kernel's
// on the decoded weights. With kExactInput z_var is not read.
void linear_moments_f16(const pbp_layer& layer, bool exact_input, const float* z_mean,
                        const float* z_var, float* a_mean, float* a_var);

// linear_moments of an int8 layer, storage type 3 or 4 (linear_moments_s8_s16.cpp): the unit
// moments rounded to int16 codes with a power-of-two scale per vector, exact integer sums, the
// scales once per row. It writes the codes over z_mean and z_var (which the pass does not read
// again).
void linear_moments_s8_s16(const pbp_layer& layer, bool exact_input, float* z_mean, float* z_var,
                           float* a_mean, float* a_var);

// A ReLU hidden layer's moments in fixed point (relu_moments_fixed.hpp) and the next int8 layer's
// sums (linear_moments_s8_s16.cpp), both layers int8: A = E[z] over z_mean, B = E[z^2] over
// z_var and C = Var z over a_mean, each then rounded to its codes; then the rows.
void relu_linear_moments_s8_s16(const pbp_layer& layer, float* z_mean, float* z_var, float* a_mean,
                                float* a_var);

// A layer as network_moments_from sees it in the runtime: whatever its storage.
struct StoredLayer {
  const pbp_layer* layer;
  uint32_t inputs;
  uint32_t outputs;
};

// network_moments_from's call for a runtime layer (found by argument-dependent lookup on
// StoredLayer): each storage type runs its own kernel.
template <class T, bool kExactInput>
inline void linear_moments(const detail::StoredLayer& w, const float* z_mean, const float* z_var,
                           float* a_mean, float* a_var) {
  static_assert(sizeof(T) == sizeof(float), "the runtime's layers are float");
  const pbp_layer& layer = *w.layer;
#if PBP_WITH_FLOAT16
  if (layer.storage == PBP_STORAGE_FLOAT16) {
    return detail::linear_moments_f16(layer, kExactInput, z_mean, z_var, a_mean, a_var);
  }
#endif
#if PBP_WITH_INT8
  if (format::has_int8_means(layer.storage)) {
    // The runtime's moments are forward_pass's workspace (the standardised input too): writable,
    // and consumed by this layer.
    return detail::linear_moments_s8_s16(layer, kExactInput, const_cast<float*>(z_mean),
                                         const_cast<float*>(z_var), a_mean, a_var);
  }
#endif
#if PBP_WITH_FLOAT32  // pbp_open admits no other storage type
  detail::linear_moments_f32(layer, kExactInput, z_mean, z_var, a_mean, a_var);
#endif
}

// A hidden layer's activation and the next layer's sums (forward_pass.cpp): int8 ReLU layers
// followed by int8 layers take the fixed-point path; every other pair the float activation and
// the next layer's own kernel. Out of line, so that no kernel's temporaries sit in the forward
// pass's frame below every layer's call (the predict stack budget).
void activation_and_next_layer(const pbp_layer& hidden, const pbp_layer& next, float* z_mean,
                               float* z_var, float* a_mean, float* a_var);

// network_moments_from's hook (moments.hpp), found by argument-dependent lookup on StoredLayer:
// the runtime takes every step after the first layer in activation_and_next_layer.
inline bool activation_and_linear_moments(const StoredLayer& hidden, uint32_t activation,
                                          const StoredLayer& next, float* z_mean, float* z_var,
                                          float* a_mean, float* a_var) {
  (void)activation;  // hidden's own
  activation_and_next_layer(*hidden.layer, *next.layer, z_mean, z_var, a_mean, a_var);
  return true;
}

}  // namespace pbp::detail
