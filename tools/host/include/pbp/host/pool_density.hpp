// SPDX-License-Identifier: Apache-2.0
// How much unlabelled input mass each pool row stands for: a Gaussian kernel density over the
// pool's own inputs (never a label, never a test row), each reference row discounted by how far the
// labelled rows already cover it. For density-weighted active learning (Settles & Craven 2008's
// "information density", with coverage so that the picks do not pile up in one dense spot): the
// variance rules alone pick rows far out in input space (at the 98-99th percentile of distance from
// the centre), which say little about where test rows fall.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pbp/trainer/dataset.hpp"

namespace pbp::host {

class PoolCoverage {
 public:
  // Inputs standardised per column on `pool`; the kernel exp(-|z - z'|^2 / (2 h^2)) with Scott's
  // bandwidth h = m^(-1/(d+4)) times `bandwidth_factor` (m reference rows, d inputs). The reference
  // rows are the pool itself, or `max_reference` of its rows drawn with `seed` when it is larger.
  PoolCoverage(const trainer::Dataset& data, std::span<const size_t> pool, uint64_t seed,
               double bandwidth_factor = 1.0, size_t max_reference = 500);

  // For each of `positions` (indices into the constructor's pool): log of
  //   sum over reference rows r (r itself left out) of k(x, r) * prod over `labelled` rows l of
  //   (1 - k(r, l)),
  // i.e. the density of the reference mass that no labelled row covers yet. `labelled` are data
  // rows (any, e.g. the training rows).
  std::vector<double> log_uncovered_density(std::span<const size_t> positions,
                                            std::span<const size_t> labelled) const;

 private:
  double kernel(const double* a, const double* b) const;
  std::vector<double> standardised(const double* x) const;

  const trainer::Dataset* data_;
  size_t d_ = 0, n_ = 0, m_ = 0;
  std::vector<double> mean_, std_;
  std::vector<size_t> reference_;    // positions in the pool
  std::vector<double> reference_z_;  // m x d
  std::vector<float> k_;             // n x m: k(pool row, reference row)
  double inverse_two_h2_ = 0.0;
};

}  // namespace pbp::host
