// SPDX-License-Identifier: Apache-2.0
// Derivatives of the ReLU moment map for the trainer's backward pass: the double instantiation of
// runtime/core/pbp/learn/activation_jacobians.hpp (the one copy of these equations).
#pragma once
#include "pbp/learn/activation_jacobians.hpp"

namespace pbp::trainer {

// Also the erf's and sign's (activation_jacobian.hpp): the same four partial derivatives.
using ReluJacobian = learn::ActivationJacobian<double>;

inline ReluJacobian relu_jacobian_ratio(const ReluMoments<double>& r) {
  return learn::relu_jacobian_ratio(r);
}
inline ReluJacobian relu_jacobian_series(const ReluMoments<double>& r) {
  return learn::relu_jacobian_series(r);
}
inline ReluJacobian relu_jacobian(const ReluMoments<double>& r) {
  return learn::relu_jacobian(r);
}

}  // namespace pbp::trainer
