// SPDX-License-Identifier: Apache-2.0
// Active learning by expected variance reduction (Cohn 1996, "ALC"): pick the pool row whose label
// would most reduce the predictive variance summed over the whole pool, rather than the row of
// highest variance (MacKay's rule), which with few labels favours rows far from the rest.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::host {

// Each row's output sensitivities J(x) sqrt(v): the derivative of the output mean (standardised
// units) with respect to every weight's mean, times that weight's posterior std, so that
// J(x) diag(v) J(x')^T = the linearised posterior covariance of the outputs at x and x'. Each
// hidden unit's derivative is d m_z / d m_a of its moment map (Phi(alpha) for ReLU).
// Row-major: rows x weight_count. Regression (one output) only.
struct OutputSensitivities {
  size_t rows = 0;
  size_t weights = 0;
  std::vector<double> values;
  std::span<const double> row(size_t i) const { return {values.data() + i * weights, weights}; }
};
OutputSensitivities output_sensitivities(const trainer::Model& model, const trainer::Dataset& data,
                                         std::span<const size_t> rows);

// The position in `pool` of the row c that maximises, under the linearised Gaussian model,
//   sum over pool rows r of cov(r, c)^2 / (var(c) + noise variance),
// the reduction of the pool's summed output variance that observing c's label would bring
// (the first on ties). Reads the pool's inputs only, never a label. Cost: pool x weights^2.
// Every pool row's score above (standardised target units squared), in pool order.
std::vector<double> variance_reductions(const trainer::Model& model, const trainer::Dataset& data,
                                        std::span<const size_t> pool);
size_t largest_variance_reduction(const trainer::Model& model, const trainer::Dataset& data,
                                  std::span<const size_t> pool);

}  // namespace pbp::host
