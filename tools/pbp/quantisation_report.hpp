// SPDX-License-Identifier: Apache-2.0
// What `pbp quantize --data` and `pbp train --storage int8` print about a quantised blob: the int8
// fallback's moves and how far the blob's predictions are from float32's
// (pbp/host/quantisation_fidelity.hpp measures both), with a warning beyond the goals.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host_names.hpp"
#include "pbp/host/quantisation_fidelity.hpp"

namespace pbp::cli {

// Prints a line per step fall_back_within_goals took.
void report_fallback_layers(const std::vector<LayerFallback>& steps, const trainer::Model& model);
// Measures the two blobs on the rows int8_rounding_rows picks of `rows`, prints one line (for
// `storage`, e.g. "int8") and, above kFidelityWarningNats or kFidelityWarningEpistemic, a
// warning on stderr.
void report_quantisation_fidelity(const std::vector<uint8_t>& original_blob,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command);

}  // namespace pbp::cli
