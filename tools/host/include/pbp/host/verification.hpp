// SPDX-License-Identifier: Apache-2.0
// `pbp verify`'s core: every output of a model's predictive distribution as the runtime (float,
// the blob) and the trainer (double, the blob's weights) compute it, and how far apart they are.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::host {

// The probability of the central intervals compared (regression and count), as `predict` uses.
inline constexpr double kVerifiedIntervalProbability = 0.95;

// One output of one row.
struct OutputComparison {
  std::string output;  // "mean", "std", "p3", "entropy", "lower", ...
  double runtime = 0.0;
  double trainer = 0.0;
  double difference = 0.0;
};

// The difference of a continuous output: |runtime - trainer| / max(|trainer|, floor); infinite
// if either is not finite (unless both are the same infinity).
double output_difference(double runtime, double trainer, double floor);

// Every output of one row of raw inputs `x`, in a fixed order per task:
//   regression:  mean, std, epistemic_std, aleatoric_std, lower, upper (floor: the trainer's
//                total predictive std)
//   binary:      p0, p1, entropy;  multiclass: p0 .. p<C-1>, entropy (floor 1: absolute)
//   count:       mean, variance (floor 1), and the whole numbers mode, lower, upper: 0 when the
//                trainer gives the runtime's value for some mean, psi and interval probability
//                within `tolerance` (relatively; absolutely for the probability) of its own,
//                else |runtime - trainer| / max(|trainer|, 1).
// Both sides see x rounded to float32, as a device receives it.
std::vector<OutputComparison> compare_row(const LoadedModel& runtime,
                                          const trainer::Model& reference,
                                          std::span<const double> x, double tolerance);

// The largest difference of one output over all rows, and where it was.
struct WorstOutput {
  OutputComparison comparison;
  size_t row = 0;
};

struct VerifyReport {
  size_t rows = 0;
  std::vector<WorstOutput> outputs;  // one per output, in compare_row's order
  // The output with the largest difference (the first on ties); `outputs` must not be empty.
  const WorstOutput& worst() const;
};

// compare_row over every row of `rows`; a runtime failure names the row (ModelRows::error_at).
VerifyReport verify_rows(const LoadedModel& runtime, const trainer::Model& reference,
                         const ModelRows& rows, double tolerance);

}  // namespace pbp::host
