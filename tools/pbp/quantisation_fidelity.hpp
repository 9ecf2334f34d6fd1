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

// A layer an int8 model keeps in float16, and how far the blob with it in int8 was from float32.
struct Float16Layer {
  size_t layer = 0;
  QuantisationFidelity int8;
};

// Keeps in float16 the layers of `rounded` (rescale_and_round_for_int8's values, to be written as
// int8) whose int8 weights move the predictions on `rows` (rounding_rows') beyond the goals: while
// the blob's mean KL exceeds kFidelityWarningNats or its epistemic change
// kFidelityWarningEpistemic, one int8 layer goes to float16: of those that bring the blob within
// both, the one of fewest weights; if none does, the one that brings the larger of the two ratios
// to its goal lowest; with `rescaled`'s means (the same network before the rounding of the means).
// Decided on these rows only. Sets rounded.layer_storage where a layer is kept (else leaves
// `rounded` as it is) and returns the kept layers in the order taken.
std::vector<Float16Layer> keep_float16_layers_within_goals(
    const std::vector<uint8_t>& original_blob, trainer::Model& rounded,
    const trainer::Model& rescaled, const ModelRows& rows);

// Prints a line per layer keep_float16_layers_within_goals kept in float16.
void report_float16_layers(const std::vector<Float16Layer>& kept, const trainer::Model& model);

// Measures the two blobs on the rows int8_rounding_rows picks of `rows`, prints one line (for
// `storage`, e.g. "int8") and, above kFidelityWarningNats or kFidelityWarningEpistemic, a
// warning on stderr.
void report_quantisation_fidelity(const std::vector<uint8_t>& original_blob,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command);

}  // namespace pbp::cli
