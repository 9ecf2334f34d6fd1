// SPDX-License-Identifier: Apache-2.0
// The hidden activations: the one table every layer reads (the runtime's validation and forward
// pass, its learner, the trainer, the CLI and the Python module's option names, CMake's build
// flags). runtime/ADDING.md says how to add one.
//
// Each line is X(Traits, "name", build flag). Traits, defined in the activation's own header,
// holds kId (the blob's activation field, PBP_ACTIVATION_*), moments_inplace(count, mean, var)
// and moments_and_jacobian(m, v, &mean, &var). The name is the option's value (--activation,
// PBBRegressor(activation=...)) and CMake's (-DPBP_RUNTIME_ACTIVATIONS=relu;erf;...: CMake reads
// this table, so keep one line per entry). The build flag is PBP_WITH_<NAME> (pbp/pbp_config.h),
// or 1: ReLU, the first line, is every build's default and the fallback of every dispatch.
#pragma once
#include <stdint.h>

#include "pbp/activation_erf.hpp"
#include "pbp/activation_relu.hpp"
#include "pbp/activation_sign.hpp"

// clang-format off
#define PBP_HIDDEN_ACTIVATIONS(X) \
  X(ReluActivation, "relu", 1) \
  X(ErfActivation, "erf", PBP_WITH_ERF) \
  X(SignActivation, "sign", PBP_WITH_SIGN)
// clang-format on

namespace pbp {

// Whether `activation` is a hidden activation of the table, built into this runtime or not.
inline constexpr bool is_hidden_activation(uint32_t activation) {
#define PBP_KNOWN_ACTIVATION(Traits, name, built) || activation == Traits::kId
  return false PBP_HIDDEN_ACTIVATIONS(PBP_KNOWN_ACTIVATION);
#undef PBP_KNOWN_ACTIVATION
}

// Whether this build of the runtime runs `activation` on a hidden layer (its PBP_WITH_* is 1).
inline constexpr bool hidden_activation_built(uint32_t activation) {
#define PBP_BUILT_ACTIVATION(Traits, name, built) || ((built) && activation == Traits::kId)
  return false PBP_HIDDEN_ACTIVATIONS(PBP_BUILT_ACTIVATION);
#undef PBP_BUILT_ACTIVATION
}

// The table's name of a hidden activation, or nullptr.
inline constexpr const char* hidden_activation_name(uint32_t activation) {
#define PBP_ACTIVATION_NAME(Traits, name, built) \
  if (activation == Traits::kId) return name;
  PBP_HIDDEN_ACTIVATIONS(PBP_ACTIVATION_NAME)
#undef PBP_ACTIVATION_NAME
  return nullptr;
}

// Applies a hidden layer's activation in place to `count` units: one test per activation built
// in besides ReLU, which runs anything else (open_model admits no other on a hidden layer), so
// the ReLU loop costs what it did.
template <class T>
inline void activation_moments_inplace(uint32_t activation, uint32_t count, T* mean, T* var) {
#define PBP_ACTIVATION_MOMENTS(Traits, name, built)                                  \
  if constexpr ((built) && Traits::kId != ReluActivation::kId) {                     \
    if (activation == Traits::kId) return Traits::moments_inplace(count, mean, var); \
  }
  PBP_HIDDEN_ACTIVATIONS(PBP_ACTIVATION_MOMENTS)
#undef PBP_ACTIVATION_MOMENTS
  (void)activation;
  ReluActivation::moments_inplace(count, mean, var);
}

// A hidden unit's moments and their Jacobian (the learner's step), dispatched the same way.
template <class T>
inline ActivationJacobian<T> activation_moments_and_jacobian(uint32_t activation, T m, T v, T* mean,
                                                             T* var) {
#define PBP_ACTIVATION_JACOBIAN(Traits, name, built)                                     \
  if constexpr ((built) && Traits::kId != ReluActivation::kId) {                         \
    if (activation == Traits::kId) return Traits::moments_and_jacobian(m, v, mean, var); \
  }
  PBP_HIDDEN_ACTIVATIONS(PBP_ACTIVATION_JACOBIAN)
#undef PBP_ACTIVATION_JACOBIAN
  (void)activation;
  return ReluActivation::moments_and_jacobian(m, v, mean, var);
}

// visit(Traits{}) for `activation`'s entry of the table, ReluActivation's for an id it does not
// hold, built in or not (host code: the trainer, the CLI).
template <class Visit>
inline auto visit_hidden_activation(uint32_t activation, Visit&& visit) {
#define PBP_VISIT_ID(Traits, name, built) \
  if (Traits::kId != ReluActivation::kId && activation == Traits::kId) return visit(Traits{});
  PBP_HIDDEN_ACTIVATIONS(PBP_VISIT_ID)
#undef PBP_VISIT_ID
  return visit(ReluActivation{});
}

// Calls visit(Traits{}, name) for every activation of the table, in its order (host code: the
// trainer's dispatch, option tables).
template <class Visit>
inline void for_each_hidden_activation(Visit&& visit) {
#define PBP_VISIT_ACTIVATION(Traits, name, built) visit(Traits{}, name);
  PBP_HIDDEN_ACTIVATIONS(PBP_VISIT_ACTIVATION)
#undef PBP_VISIT_ACTIVATION
}

}  // namespace pbp
