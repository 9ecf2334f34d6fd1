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

// Measures the two blobs on the rows int8_rounding_rows picks of `rows`, prints one line (for
// `storage`, e.g. "int8") and, above kFidelityWarningNats or kFidelityWarningEpistemic, a
// warning on stderr.
void report_quantisation_fidelity(const std::vector<uint8_t>& original_blob,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command);

}  // namespace pbp::cli
