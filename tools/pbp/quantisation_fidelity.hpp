// SPDX-License-Identifier: Apache-2.0
// How far a quantised blob's predictions are from its float32 original's, on the rows its int8
// rounding used (label-free): `pbp quantize --data` and `pbp train --storage int8` report it, and
// warn where the weights' storage changes the predictive distribution by more than the
// quantisation goals allow.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "input_columns.hpp"
#include "model_file.hpp"

namespace pbp::cli {

// The mean KL divergence (nats per row) above which the report warns: the goal that
// quantised test log-likelihoods stay within 0.01 nats of float32's.
inline constexpr double kFidelityWarningNats = 0.01;
// The median relative change of the epistemic std (regression) above which it warns: the goal's
// 2 %.
inline constexpr double kFidelityWarningEpistemic = 0.02;

struct QuantisationFidelity {
  size_t rows = 0;
  double mean_kl = 0.0;     // mean over the rows of KL(original || quantised), nats
  double largest_kl = 0.0;  // the largest row's
  // Regression: the median over the rows of |epistemic std quantised / original - 1|; else 0.
  double epistemic_change = 0.0;
};

// KL(original || quantised) of each row's predictive distribution, through the runtime:
// Gaussians for regression, the moment-matched Gaussians of the count distributions, the class
// probabilities for classifiers.
QuantisationFidelity quantisation_fidelity(const LoadedModel& original,
                                           const LoadedModel& quantised, const ModelRows& rows);

// The rows of `rows` int8_rounding_rows picks (at most kInt8RoundingRows, evenly spaced), inputs
// only: where quantize and train measure a blob.
ModelRows rounding_rows(const ModelRows& rows);

// A layer an int8 model moved up its fallback ladder, where to, and how far the blob was from
// float32 before the move.
struct LayerFallback {
  size_t layer = 0;
  format::Storage storage = format::Storage::float16;
  QuantisationFidelity before;
};
// Moves up the ladder (int8 -> logarithmic variance codes -> float16, as `fallback` allows) the
// layers of `rounded` (rescale_and_round_for_int8's values, to be written in `storage`, int8 or
// int8_log_variance) whose codes move the predictions on `rows` (rounding_rows') beyond the goals:
// where the blob's mean KL exceeds kFidelityWarningNats or its epistemic change
// kFidelityWarningEpistemic. Up to 81 assignments of the rungs to the layers (four layers), every
// one is tried (fallback_search.hpp): the one within both adding the fewest bytes (logarithmic
// codes add none), then moving the fewest weights, then the closest; if none is within, the
// closest. Beyond that, one layer at a
// time goes up one or both rungs: of the steps that bring the blob within both, the one adding the
// fewest bytes (ties: the fewest weights); if none does, the one that brings the larger of the two
// ratios to its goal lowest, until within.
// float16 layers take `rescaled`'s means (the same network before the rounding of the means).
// Decided on these rows only. Sets rounded.layer_storage where a layer moved (else leaves `rounded`
// as it is) and returns the moves, each with the figures before it, in layer order (every
// assignment) or in the order taken (one layer at a time).
std::vector<LayerFallback> fall_back_within_goals(const LoadedModel& original,
                                                  trainer::Model& rounded,
                                                  const trainer::Model& rescaled,
                                                  const ModelRows& rows, format::Storage storage,
                                                  Int8Fallback fallback);
// Prints a line per step fall_back_within_goals took.
void report_fallback_layers(const std::vector<LayerFallback>& steps, const trainer::Model& model);
// Measures the two blobs on the rows int8_rounding_rows picks of `rows`, prints one line (for
// `storage`, e.g. "int8") and, above kFidelityWarningNats or kFidelityWarningEpistemic, a
// warning on stderr.
void report_quantisation_fidelity(const LoadedModel& original,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command);

}  // namespace pbp::cli
