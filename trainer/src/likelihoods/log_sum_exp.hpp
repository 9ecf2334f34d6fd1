// SPDX-License-Identifier: Apache-2.0
// log sum_i exp(a_i), shifted by the largest a_i so no exp overflows and the sum is >= 1.
#pragma once
#include <cmath>
#include <cstdint>

namespace pbp::trainer {

inline double log_sum_exp(const double* a, uint32_t n) {
  double largest = a[0];
  for (uint32_t i = 1; i < n; ++i) largest = a[i] > largest ? a[i] : largest;
  double sum = 0.0;
  for (uint32_t i = 0; i < n; ++i) sum += std::exp(a[i] - largest);
  return largest + std::log(sum);
}

// The class index a multiclass target names, clamped into 0..classes-1 (finite for any input).
inline uint32_t class_index(double target, uint32_t classes) {
  if (!(target > 0.0)) return 0;
  const double last = static_cast<double>(classes - 1);
  return static_cast<uint32_t>(target < last ? std::nearbyint(target) : last);
}

}  // namespace pbp::trainer
