// SPDX-License-Identifier: Apache-2.0
// The weight storage types: the one table every layer reads (the runtime's validation, kernels
// and byte lengths, its learner's decoding, the trainer's writer and reader, the CLI's and
// Python's names, CMake's build flags, FORMAT.md's list: a test checks it). runtime/ADDING.md
// says how to add one.
//
// Each line is X(Codec, "name", build flag, kernel, validator). Codec, the encoding's own header
// (pbp/storage/<type>.hpp), holds kId (the tensor's storage field), byte_length(variance, rows,
// count), decode<T>(bytes, variance, rows, row_length, out) (float on the device, double on the
// host) and, unless the trainer's writer encodes the type itself (int8), the writer's
// encode<Real>(values, variance, rows, row_length, out), a template the device never
// instantiates, as is widen_rounding_bound<Real>(mean, variance, rows, row_length,
// &mean_absolute, &variance_relative), pbp inspect's bound on what storing moved the weights by.
// The name is the option's value (pbp quantize --storage, storage=, PBP_RUNTIME_STORAGE: CMake
// reads this table, one line per entry, and takes the flag's lower-case suffix as the CMake name);
// the build flag PBP_WITH_<NAME>, its default 1 in the codec's header (pbp/pbp_config.h documents
// them); kernel and validator name the runtime's functions (runtime/src/kernels/: linear_moments of
// a layer; the check of its tensors' values when pbp_open locates them). Host code ignores those.
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"
#include "pbp/storage/float16.hpp"
#include "pbp/storage/float32.hpp"
#include "pbp/storage/int8.hpp"

// clang-format off
#define PBP_STORAGE_TYPES(X) \
  X(::pbp::Float32Weights, "float32", PBP_WITH_FLOAT32, linear_moments_f32, check_weights_f32) \
  X(::pbp::Float16Weights, "float16", PBP_WITH_FLOAT16, linear_moments_f16, check_weights_f16) \
  X(::pbp::Int8Weights, "int8", PBP_WITH_INT8, linear_moments_s8_s16, check_weights_s8) \
  X(::pbp::Int8LogVarianceWeights, "int8-logvar", PBP_WITH_INT8, linear_moments_s8_s16, check_weights_s8)
// clang-format on

namespace pbp {

// Whether `storage` is a storage type of the table, built into this runtime or not.
inline constexpr bool is_storage_type(uint32_t storage) {
#define PBP_KNOWN_STORAGE(Codec, name, built, kernel, validator) || storage == Codec::kId
  return false PBP_STORAGE_TYPES(PBP_KNOWN_STORAGE);
#undef PBP_KNOWN_STORAGE
}

// Whether this build of the runtime runs layers stored as `storage` (its PBP_WITH_* is 1).
inline constexpr bool storage_type_built(uint32_t storage) {
#define PBP_BUILT_STORAGE(Codec, name, built, kernel, validator) \
  || ((built) && storage == Codec::kId)
  return false PBP_STORAGE_TYPES(PBP_BUILT_STORAGE);
#undef PBP_BUILT_STORAGE
}

// The first storage type of the table this build runs: the runtime's dispatch runs it for any
// type the others do not take (pbp_open admits no type that is not built), without a test.
inline constexpr uint32_t fallback_storage_type() {
#define PBP_FIRST_BUILT_STORAGE(Codec, name, built, kernel, validator) \
  if (built) return Codec::kId;
  PBP_STORAGE_TYPES(PBP_FIRST_BUILT_STORAGE)
#undef PBP_FIRST_BUILT_STORAGE
  return 0u;
}

static_assert(fallback_storage_type() != 0u,
              "every PBP_WITH_<storage type> is 0: build at least one");

// The table's name of a storage type, or nullptr.
inline constexpr const char* storage_type_name(uint32_t storage) {
#define PBP_STORAGE_NAME(Codec, name, built, kernel, validator) \
  if (storage == Codec::kId) return name;
  PBP_STORAGE_TYPES(PBP_STORAGE_NAME)
#undef PBP_STORAGE_NAME
  return nullptr;
}

// The byte length of a layer's mean (`variance` false) or variance tensor of `count` elements
// in `rows` rows, in `storage`; 0 for a storage type outside the table.
inline constexpr uint64_t weight_tensor_byte_length(uint32_t storage, bool variance, uint32_t rows,
                                                    uint32_t count) {
#define PBP_STORAGE_BYTE_LENGTH(Codec, name, built, kernel, validator) \
  if (storage == Codec::kId) return Codec::byte_length(variance, rows, count);
  PBP_STORAGE_TYPES(PBP_STORAGE_BYTE_LENGTH)
#undef PBP_STORAGE_BYTE_LENGTH
  return 0u;
}

// A layer's mean or variance tensor (`bytes`, rows x row_length values stored as `storage`, a
// type of the table) decoded into `out` as T; float32 for a type outside the table.
template <class T>
inline void decode_stored_tensor(uint32_t storage, const uint8_t* bytes, bool variance,
                                 uint32_t rows, uint32_t row_length, T* out) {
#define PBP_STORAGE_DECODE(Codec, name, built, kernel, validator)               \
  if constexpr (Codec::kId != Float32Weights::kId) {                            \
    if (storage == Codec::kId)                                                  \
      return Codec::template decode<T>(bytes, variance, rows, row_length, out); \
  }
  PBP_STORAGE_TYPES(PBP_STORAGE_DECODE)
#undef PBP_STORAGE_DECODE
  Float32Weights::decode<T>(bytes, variance, rows, row_length, out);
}

// Widens `mean_absolute` and `variance_relative` to what storing a layer as `storage` may have
// moved its weights by, read from its tensors' bytes (`mean`, `variance`): pbp inspect's rounding
// bound (host code; the device never instantiates it). Nothing for a type outside the table.
template <class Real>
inline void widen_rounding_bound(uint32_t storage, const uint8_t* mean, const uint8_t* variance,
                                 uint32_t rows, uint32_t row_length, Real& mean_absolute,
                                 Real& variance_relative) {
#define PBP_STORAGE_ROUNDING(Codec, name, built, kernel, validator)                      \
  if (storage == Codec::kId) {                                                           \
    return Codec::template widen_rounding_bound<Real>(mean, variance, rows, row_length,  \
                                                      mean_absolute, variance_relative); \
  }
  PBP_STORAGE_TYPES(PBP_STORAGE_ROUNDING)
#undef PBP_STORAGE_ROUNDING
}

}  // namespace pbp
