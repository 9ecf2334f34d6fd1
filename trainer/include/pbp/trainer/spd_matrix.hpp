// SPDX-License-Identifier: Apache-2.0
// Small dense symmetric positive definite matrices for the trainer (batch EP's covariances, the
// int8 rounding's second moments): row-major n x n in a std::vector<double>.
#pragma once
#include <cstddef>
#include <vector>

namespace pbp::trainer {

// In-place inverse of a symmetric positive definite n x n matrix by Cholesky; false if not PD.
bool invert_spd(std::vector<double>& a, size_t n);

// The upper triangular U with a = U^T U (a symmetric positive definite, n x n), row-major, zero
// below the diagonal; false if a is not positive definite.
bool upper_cholesky(const std::vector<double>& a, size_t n, std::vector<double>& u);

}  // namespace pbp::trainer
