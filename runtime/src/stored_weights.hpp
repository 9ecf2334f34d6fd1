// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: a layer's weight tensors in any storage type (format.hpp), located and
// checked by pbp_open, and the kernel that runs a layer of each type.
#pragma once
#include <stdint.h>

#include "blob_view.hpp"
#include "pbp/moments.hpp"
#include "pbp/storage_types.hpp"

namespace pbp::detail {

// Checks the layer's mean and variance descriptors (storage known and the same for both, sizes,
// alignment, range), then their values (finite; variances >= 0, float16 variances > 0; int8
// scales finite and > 0, variance codes > 0), and fills layer->storage, stored_mean,
// stored_variance (and mean, variance for float32).
pbp_status read_stored_weights(const uint8_t* mean_descriptor, const uint8_t* variance_descriptor,
                               Span tensor_data, pbp_layer* layer);

// weight_tensor_byte_length for a storage type this build runs (the table's types built in):
// the first built takes what the others do not, so a build of one type links one length.
inline uint64_t built_in_byte_length(uint32_t storage, bool variance, uint32_t rows,
                                     uint32_t count) {
  constexpr uint32_t fallback = fallback_storage_type();
#define PBP_BUILT_BYTE_LENGTH(Codec, name, built, kernel, validator)             \
  if constexpr ((built) && Codec::kId != fallback) {                             \
    if (storage == Codec::kId) return Codec::byte_length(variance, rows, count); \
  }
  PBP_STORAGE_TYPES(PBP_BUILT_BYTE_LENGTH)
#undef PBP_BUILT_BYTE_LENGTH
#define PBP_FALLBACK_BYTE_LENGTH(Codec, name, built, kernel, validator) \
  if constexpr ((built) && Codec::kId == fallback) return Codec::byte_length(variance, rows, count);
  PBP_STORAGE_TYPES(PBP_FALLBACK_BYTE_LENGTH)
#undef PBP_FALLBACK_BYTE_LENGTH
  return 0u;  // not reached: some storage type is built in (CMake checks)
}

// The bytes `layer`'s mean (`variance` false) or variance tensor takes in the blob.
inline uint32_t stored_weight_bytes(const pbp_layer& layer, bool variance) {
  return static_cast<uint32_t>(built_in_byte_length(layer.storage, variance, layer.outputs,
                                                    layer.outputs * (layer.inputs + 1u)));
}

// The layer kernels of the storage table (storage_types.hpp), one file each in kernels/: the
// pre-activation moments of `layer` (the parameter struct: each file states the fields it reads
// and their valid ranges) from the unit
// moments z_mean, z_var (z_var not read with exact_input, the network's input) into a_mean, a_var.
// A kernel may write over z_mean and z_var (the pass never reads them again: forward_pass's
// workspace). Declared for every build; one the build leaves out is never called.
#define PBP_DECLARE_STORAGE_KERNEL(Codec, name, built, kernel, validator)            \
  void kernel(const pbp_layer& layer, bool exact_input, float* z_mean, float* z_var, \
              float* a_mean, float* a_var);
PBP_STORAGE_TYPES(PBP_DECLARE_STORAGE_KERNEL)
#undef PBP_DECLARE_STORAGE_KERNEL

// Built for int8 weights and ReLU alone, every layer after the first is int8 after ReLU: the
// float activations are not linked, and the int8 kernel only ever takes the exact input.
inline constexpr bool kFixedPointOnly =
    PBP_WITH_INT8 && !PBP_WITH_FLOAT32 && !PBP_WITH_FLOAT16 && !PBP_WITH_ERF && !PBP_WITH_SIGN;

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
  // The runtime's moments are forward_pass's workspace (the standardised input too): writable,
  // and consumed by this layer.
  float* const z_m = const_cast<float*>(z_mean);
  float* const z_v = const_cast<float*>(z_var);
  // The table's kernel of the layer's type: the first type built runs what the others do not
  // (pbp_open admits no other storage type), without a test.
  constexpr uint32_t fallback = fallback_storage_type();
#define PBP_STORAGE_KERNEL(Codec, name, built, kernel, validator)         \
  if constexpr ((built) && Codec::kId != fallback) {                      \
    if (layer.storage == Codec::kId)                                      \
      return detail::kernel(layer, kExactInput, z_m, z_v, a_mean, a_var); \
  }
  PBP_STORAGE_TYPES(PBP_STORAGE_KERNEL)
#undef PBP_STORAGE_KERNEL
#define PBP_FALLBACK_STORAGE_KERNEL(Codec, name, built, kernel, validator) \
  if constexpr ((built) && Codec::kId == fallback) {                       \
    return detail::kernel(layer, kExactInput, z_m, z_v, a_mean, a_var);    \
  }
  PBP_STORAGE_TYPES(PBP_FALLBACK_STORAGE_KERNEL)
#undef PBP_FALLBACK_STORAGE_KERNEL
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
