// SPDX-License-Identifier: Apache-2.0
// The density strategies' pool coverage: the brute-force sum it stands for, the leave-one-out,
// and that a labelled row takes away the density around it (so picks do not pile up).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pbp/host/pool_density.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::host {
namespace {

trainer::Dataset random_rows(size_t rows, size_t inputs, uint64_t seed) {
  trainer::Random random(seed);
  trainer::Dataset data;
  data.rows = rows;
  data.inputs = inputs;
  for (size_t i = 0; i < rows * inputs; ++i) data.x.push_back(random.normal());
  data.y.assign(rows, 0.0);
  return data;
}

// The formula of pool_density.hpp, every pool row a reference row.
double brute_force(const trainer::Dataset& data, const std::vector<size_t>& pool, size_t position,
                   const std::vector<size_t>& labelled, double factor) {
  const size_t d = data.inputs, n = pool.size();
  std::vector<double> mean(d, 0.0), sd(d, 0.0);
  for (const size_t r : pool) {
    for (size_t k = 0; k < d; ++k) mean[k] += data.row(r)[k] / static_cast<double>(n);
  }
  for (const size_t r : pool) {
    for (size_t k = 0; k < d; ++k) {
      sd[k] += std::pow(data.row(r)[k] - mean[k], 2) / static_cast<double>(n);
    }
  }
  const double h = factor * std::pow(static_cast<double>(n), -1.0 / (d + 4.0));
  const auto kernel = [&](size_t a, size_t b) {
    double d2 = 0.0;
    for (size_t k = 0; k < d; ++k)
      d2 += std::pow((data.row(a)[k] - data.row(b)[k]) / std::sqrt(sd[k]), 2);
    return std::exp(-d2 / (2 * h * h));
  };
  double sum = 0.0;
  for (size_t j = 0; j < n; ++j) {
    if (j == position) continue;
    double weight = 1.0;
    for (const size_t l : labelled) weight *= 1.0 - kernel(pool[j], l);
    sum += weight * kernel(pool[position], pool[j]);
  }
  return std::log(sum);
}

TEST(PoolCoverage, IsTheBruteForceSum) {
  const trainer::Dataset data = random_rows(60, 3, 5);
  std::vector<size_t> pool;
  for (size_t i = 10; i < 60; ++i) pool.push_back(i);
  const std::vector<size_t> labelled{0, 1, 2, 3};
  const PoolCoverage coverage(data, pool, 9, 2.0, 1000);
  const std::vector<size_t> positions{0, 7, 49};
  for (const auto& l : {std::vector<size_t>{}, labelled}) {
    const std::vector<double> got = coverage.log_uncovered_density(positions, l);
    ASSERT_EQ(got.size(), positions.size());
    for (size_t p = 0; p < positions.size(); ++p) {
      EXPECT_NEAR(got[p], brute_force(data, pool, positions[p], l, 2.0), 1e-5) << p;
    }
  }
}

TEST(PoolCoverage, ALabelledRowTakesAwayTheDensityAroundIt) {
  // Two identical tight clusters around (-4, -4) and (4, 4); labelling the first one's centre
  // leaves the second the denser.
  trainer::Dataset data = random_rows(41, 2, 3);
  for (size_t i = 0; i < 20; ++i) {
    for (size_t k = 0; k < 2; ++k) {
      const double jitter = 0.05 * data.x[2 * i + k];
      data.x[2 * i + k] = -4.0 + jitter;
      data.x[2 * (20 + i) + k] = 4.0 + jitter;
    }
  }
  data.x[80] = data.x[81] = -4.0;  // row 40, labelled
  std::vector<size_t> pool(40);
  for (size_t i = 0; i < 40; ++i) pool[i] = i;
  const PoolCoverage coverage(data, pool, 1, 1.0, 1000);
  const std::vector<size_t> positions{0, 20};
  const std::vector<double> before = coverage.log_uncovered_density(positions, {});
  EXPECT_NEAR(before[0], before[1], 1e-6);  // the kernel matrix is float
  const std::vector<size_t> labelled{40};
  const std::vector<double> after = coverage.log_uncovered_density(positions, labelled);
  EXPECT_LT(after[0], after[1] - 1.0);
  EXPECT_NEAR(after[1], before[1], 1e-4);
}

TEST(PoolCoverage, DrawsReferenceRowsFromALargePool) {
  const trainer::Dataset data = random_rows(300, 2, 7);
  std::vector<size_t> pool(300);
  for (size_t i = 0; i < 300; ++i) pool[i] = i;
  const PoolCoverage a(data, pool, 4, 3.0, 50), b(data, pool, 4, 3.0, 50);
  const std::vector<size_t> positions{0, 1, 299};
  EXPECT_EQ(a.log_uncovered_density(positions, {}), b.log_uncovered_density(positions, {}));
  for (const double v : a.log_uncovered_density(positions, {})) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace pbp::host
