// SPDX-License-Identifier: Apache-2.0
// A blob's weights in another storage type, as `pbp quantize`, `pbp train --storage` and
// pbp_edge's quantize() write them: each weight to its nearest code; with rows (int8 storages),
// the means rounded to keep the layers' sums over them and, from a float32 blob, the int8
// fallback that keeps the predictions within the quantisation goals (quantisation_fidelity.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/progress.hpp"
#include "pbp/host/quantisation_fidelity.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::host {

struct QuantisedBlob {
  trainer::Model original;  // the blob read
  // The original with the int8 units' scales applied: the same network, weight for weight what
  // the quantised one approximates.
  trainer::Model rescaled;
  trainer::Model model;       // as written
  std::vector<uint8_t> blob;  // the quantised blob
  std::vector<LayerFallback> fallback_steps;
  bool fallback_searched = false;  // rows given and a float32 original: the fallback ran
};

// `bytes` (a valid blob) with its weights stored as `storage`. `rows` (may be null: each weight
// to its nearest code only) are the training rows in the model's input order, for an int8 storage
// only (the caller checks); an int8 original's means are on their grid already. `progress` counts
// the fallback's blobs measured.
QuantisedBlob quantise_blob(const std::vector<uint8_t>& bytes, format::Storage storage,
                            const ModelRows* rows, Int8Fallback fallback,
                            const Progress& progress = {});

}  // namespace pbp::host
