// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: what the learner's three parts (learn_state.cpp, learn_update.cpp,
// learn_write_blob.cpp) share.
#pragma once
#include <stdint.h>

#include "pbp/moments.hpp"
#include "pbp/pbp_learn.h"

namespace pbp::detail {

// Marks a pbp_learner filled by a successful pbp_learn_init ("PBPl").
inline constexpr uint32_t kLearnMarker = 0x6C504250u;

// The sum of every layer's width: the update's workspace has
// learn::kUpdateArraysPerUnit floats per unit.
inline uint32_t unit_count(const pbp_model& model) {
  uint32_t units = 0;
  for (uint32_t l = 0; l < model.layer_count; ++l) units += model.layers[l].outputs;
  return units;
}

}  // namespace pbp::detail
