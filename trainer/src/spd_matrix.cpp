// SPDX-License-Identifier: Apache-2.0
// Small dense SPD matrices (spd_matrix.hpp).
#include "pbp/trainer/spd_matrix.hpp"

#include "pbp/math.hpp"

namespace pbp::trainer {

namespace {

// The lower triangular L with a = L L^T; false if a is not positive definite.
bool lower_cholesky(const std::vector<double>& a, size_t n, std::vector<double>& l) {
  l.assign(n * n, 0.0);
  for (size_t j = 0; j < n; ++j) {
    double diagonal = a[j * n + j];
    for (size_t p = 0; p < j; ++p) diagonal -= l[j * n + p] * l[j * n + p];
    if (!(diagonal > 0.0)) return false;
    l[j * n + j] = math::sqrt(diagonal);
    for (size_t i = j + 1; i < n; ++i) {
      double sum = a[i * n + j];
      for (size_t p = 0; p < j; ++p) sum -= l[i * n + p] * l[j * n + p];
      l[i * n + j] = sum / l[j * n + j];
    }
  }
  return true;
}

}  // namespace

bool invert_spd(std::vector<double>& a, size_t n) {
  std::vector<double> l;
  if (!lower_cholesky(a, n, l)) return false;
  std::vector<double> inverse_l(n * n, 0.0);  // L^-1, lower triangular
  for (size_t j = 0; j < n; ++j) {
    inverse_l[j * n + j] = 1.0 / l[j * n + j];
    for (size_t i = j + 1; i < n; ++i) {
      double sum = 0.0;
      for (size_t p = j; p < i; ++p) sum -= l[i * n + p] * inverse_l[p * n + j];
      inverse_l[i * n + j] = sum / l[i * n + i];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j <= i; ++j) {
      double sum = 0.0;  // (L^-T L^-1)_ij = sum_p Linv_pi Linv_pj
      for (size_t p = i; p < n; ++p) sum += inverse_l[p * n + i] * inverse_l[p * n + j];
      a[i * n + j] = a[j * n + i] = sum;
    }
  }
  return true;
}

bool upper_cholesky(const std::vector<double>& a, size_t n, std::vector<double>& u) {
  std::vector<double> l;
  if (!lower_cholesky(a, n, l)) return false;
  u.assign(n * n, 0.0);  // U = L^T
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i; j < n; ++j) u[i * n + j] = l[j * n + i];
  }
  return true;
}

}  // namespace pbp::trainer
