// SPDX-License-Identifier: Apache-2.0
// The weight storage types: the one table every layer reads (the runtime's validation and
// kernels, its learner, the trainer's and the CLI's names, CMake's build flags). The byte layout
// of each is the blob format's (format.hpp, FORMAT.md); runtime/ADDING.md says how to add one.
//
// Each line is X(id, "name", build flag, kernel, validator): id is the tensor's storage field
// (PBP_STORAGE_*); the name the option's value (pbp quantize --storage, PBP_RUNTIME_STORAGE: CMake
// reads this table, one line per entry, and takes the flag's lower-case suffix as the CMake
// name); the build flag PBP_WITH_<NAME> (pbp/pbp_config.h); kernel and validator name the
// runtime's functions (runtime/src/kernels/: linear_moments of a layer, and the check of its
// tensors' values when pbp_open locates them). Host code ignores the last two.
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"

// clang-format off
#define PBP_STORAGE_TYPES(X) \
  X(PBP_STORAGE_FLOAT32, "float32", PBP_WITH_FLOAT32, linear_moments_f32, check_weights_f32) \
  X(PBP_STORAGE_FLOAT16, "float16", PBP_WITH_FLOAT16, linear_moments_f16, check_weights_f16) \
  X(PBP_STORAGE_INT8, "int8", PBP_WITH_INT8, linear_moments_s8_s16, check_weights_s8) \
  X(PBP_STORAGE_INT8_LOG_VARIANCE, "int8-logvar", PBP_WITH_INT8, linear_moments_s8_s16, \
    check_weights_s8)
// clang-format on

namespace pbp {

// Whether `storage` is a storage type of the table, built into this runtime or not.
inline constexpr bool is_storage_type(uint32_t storage) {
#define PBP_KNOWN_STORAGE(id, name, built, kernel, validator) || storage == (id)
  return false PBP_STORAGE_TYPES(PBP_KNOWN_STORAGE);
#undef PBP_KNOWN_STORAGE
}

// Whether this build of the runtime runs layers stored as `storage` (its PBP_WITH_* is 1).
inline constexpr bool storage_type_built(uint32_t storage) {
#define PBP_BUILT_STORAGE(id, name, built, kernel, validator) || ((built) && storage == (id))
  return false PBP_STORAGE_TYPES(PBP_BUILT_STORAGE);
#undef PBP_BUILT_STORAGE
}

// The first storage type of the table this build runs: the runtime's dispatch runs it for any
// type the others do not take (pbp_open admits no type that is not built), without a test.
inline constexpr uint32_t fallback_storage_type() {
#define PBP_FIRST_BUILT_STORAGE(id, name, built, kernel, validator) \
  if (built) return id;
  PBP_STORAGE_TYPES(PBP_FIRST_BUILT_STORAGE)
#undef PBP_FIRST_BUILT_STORAGE
  return 0u;
}

// The table's name of a storage type, or nullptr.
inline constexpr const char* storage_type_name(uint32_t storage) {
#define PBP_STORAGE_NAME(id, name, built, kernel, validator) \
  if (storage == (id)) return name;
  PBP_STORAGE_TYPES(PBP_STORAGE_NAME)
#undef PBP_STORAGE_NAME
  return nullptr;
}

}  // namespace pbp
