// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/pool_density.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pbp/trainer/random.hpp"

namespace pbp::host {

PoolCoverage::PoolCoverage(const trainer::Dataset& data, std::span<const size_t> pool,
                           uint64_t seed, double bandwidth_factor, size_t max_reference)
    : data_(&data), d_(data.inputs), n_(pool.size()) {
  mean_.assign(d_, 0.0);
  std_.assign(d_, 0.0);
  for (const size_t r : pool) {
    for (size_t k = 0; k < d_; ++k) mean_[k] += data.row(r)[k];
  }
  for (size_t k = 0; k < d_; ++k) mean_[k] /= static_cast<double>(n_);
  for (const size_t r : pool) {
    for (size_t k = 0; k < d_; ++k) std_[k] += std::pow(data.row(r)[k] - mean_[k], 2);
  }
  for (size_t k = 0; k < d_; ++k) {
    std_[k] = std::sqrt(std_[k] / static_cast<double>(n_));
    if (!(std_[k] > 0.0)) std_[k] = 1.0;
  }
  std::vector<double> z(n_ * d_);
  for (size_t i = 0; i < n_; ++i) {
    const std::vector<double> zi = standardised(data.row(pool[i]));
    std::copy(zi.begin(), zi.end(), z.begin() + static_cast<std::ptrdiff_t>(i * d_));
  }
  reference_.resize(n_);
  for (size_t i = 0; i < n_; ++i) reference_[i] = i;
  if (n_ > max_reference) {
    trainer::Random random(seed);
    random.shuffle(reference_);
    reference_.resize(max_reference);
  }
  m_ = reference_.size();
  const double h = bandwidth_factor * std::pow(static_cast<double>(m_), -1.0 / (d_ + 4.0));
  inverse_two_h2_ = 1.0 / (2.0 * h * h);
  reference_z_.resize(m_ * d_);
  for (size_t j = 0; j < m_; ++j) {
    std::copy_n(z.begin() + static_cast<std::ptrdiff_t>(reference_[j] * d_), d_,
                reference_z_.begin() + static_cast<std::ptrdiff_t>(j * d_));
  }
  k_.resize(n_ * m_);
  for (size_t i = 0; i < n_; ++i) {
    for (size_t j = 0; j < m_; ++j) {
      k_[i * m_ + j] =
          reference_[j] == i
              ? 0.0f
              : static_cast<float>(kernel(z.data() + i * d_, reference_z_.data() + j * d_));
    }
  }
}

std::vector<double> PoolCoverage::standardised(const double* x) const {
  std::vector<double> z(d_);
  for (size_t k = 0; k < d_; ++k) z[k] = (x[k] - mean_[k]) / std_[k];
  return z;
}

double PoolCoverage::kernel(const double* a, const double* b) const {
  double d2 = 0.0;
  for (size_t k = 0; k < d_; ++k) d2 += (a[k] - b[k]) * (a[k] - b[k]);
  return std::exp(-d2 * inverse_two_h2_);
}

std::vector<double> PoolCoverage::log_uncovered_density(std::span<const size_t> positions,
                                                        std::span<const size_t> labelled) const {
  std::vector<double> weight(m_, 1.0);
  for (const size_t l : labelled) {
    const std::vector<double> zl = standardised(data_->row(l));
    for (size_t j = 0; j < m_; ++j)
      weight[j] *= 1.0 - kernel(reference_z_.data() + j * d_, zl.data());
  }
  std::vector<double> result(positions.size());
  for (size_t p = 0; p < positions.size(); ++p) {
    const float* row = k_.data() + positions[p] * m_;
    double sum = 0.0;
    for (size_t j = 0; j < m_; ++j) sum += weight[j] * row[j];
    result[p] = std::log(std::max(sum, 1e-300));
  }
  return result;
}

}  // namespace pbp::host
