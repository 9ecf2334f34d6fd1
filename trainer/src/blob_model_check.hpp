// SPDX-License-Identifier: Apache-2.0
// What write_blob checks before it lays a model out: a model the runtime's reader would refuse,
// or read as something else, is an std::invalid_argument naming the field instead.
#pragma once
#include <cstdint>

#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// The model's likelihood's blob likelihood (likelihood_table.hpp); a model with a scale other
// than 1 needs the scaled one (which readers that predate it reject rather than predict without
// the scale).
uint32_t model_blob_likelihood(const Model& model);

// Throws std::invalid_argument ("write_blob: ...") on the first field the blob cannot hold.
void check_blob_model(const Model& model);

}  // namespace pbp::trainer
