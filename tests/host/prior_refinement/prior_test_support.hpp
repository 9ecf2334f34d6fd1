// SPDX-License-Identifier: Apache-2.0
// What the shared-prior and the ARD prior tests share: eqs. 6, 7, 9 and 10 evaluated
// independently of the trainer, and small generated data sets.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer::test {

// Eq. 11 written out: Z = N(m | 0, b/(a-1) + v), Z1 and Z2 with b/a and b/(a+1).
inline double normal_density(double x, double variance) {
  return std::exp(-0.5 * x * x / variance) / std::sqrt(2.0 * std::numbers::pi * variance);
}

struct Expected {
  double mean, variance, a, b;
};

// The posterior after one prior factor N(w | 0, 1/lambda), lambda ~ Gamma(a, b), is absorbed by
// the cavity N(m, v): derivatives of log Z by central differences.
inline Expected independent_update(double m, double v, double a, double b) {
  auto log_z = [&](double mm, double vv) { return std::log(normal_density(mm, b / (a - 1) + vv)); };
  const double h = 1e-6;
  const double dm = (log_z(m + h, v) - log_z(m - h, v)) / (2 * h);
  const double dv = (log_z(m, v + h * v) - log_z(m, v - h * v)) / (2 * h * v);
  const double z = normal_density(m, b / (a - 1) + v);
  const double z1 = normal_density(m, b / a + v);
  const double z2 = normal_density(m, b / (a + 1) + v);
  Expected e;
  e.mean = m + v * dm;                                   // eq. 6
  e.variance = v - v * v * (dm * dm - 2 * dv);           // eq. 7
  e.a = 1.0 / (z * z2 / (z1 * z1) * (a + 1) / a - 1.0);  // eq. 9
  e.b = 1.0 / (z2 / z1 * (a + 1) / b - z1 / z * a / b);  // eq. 10
  return e;
}

// Standard normal inputs; the target is `label` of sum_k f(x_k, k), with Gaussian noise of
// `noise` added to the sum.
template <class Term, class Label>
Dataset synthetic(uint64_t seed, size_t rows, size_t inputs, Term f, double noise, Label label) {
  Random random(seed);
  Dataset data;
  data.rows = rows;
  data.inputs = inputs;
  for (size_t i = 0; i < rows; ++i) {
    double t = 0;
    for (size_t k = 0; k < inputs; ++k) {
      const double v = random.normal();
      data.x.push_back(v);
      t += f(v, k);
    }
    data.y.push_back(label(t + noise * random.normal()));
  }
  return data;
}

}  // namespace pbp::trainer::test
