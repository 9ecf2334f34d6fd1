// SPDX-License-Identifier: Apache-2.0
// Derivatives of the erf and sign moment maps for the trainer's backward pass: the double
// instantiation of runtime/core/pbp/learn/activation_jacobians.hpp (the one copy).
#pragma once
#include "pbp/trainer/relu_jacobian.hpp"

namespace pbp::trainer {

inline ReluJacobian erf_jacobian(double m, double v, const ErfMoments<double>& r) {
  return learn::erf_jacobian(m, v, r);
}
inline ReluJacobian sign_jacobian(double v, const SignMoments<double>& r) {
  return learn::sign_jacobian(v, r);
}

}  // namespace pbp::trainer
