// SPDX-License-Identifier: Apache-2.0
// The trainer's likelihoods (how training matches a task's outputs): the one table that
// make_likelihood, the option names (`pbp train --likelihood`, Python's likelihood=) and the
// task check read. runtime/ADDING.md says how to add one.
//
// Each line is X(kind, "name", task, factory): kind the LikelihoodKind enumerator, name the
// option's value, task the format::Task it trains, factory the function, defined in the
// likelihood's own trainer/src/likelihood_*.cpp, that make_likelihood calls:
//   std::unique_ptr<Likelihood> factory(const LikelihoodContext&);
// A task's first line is its default.
#pragma once
#include <cstdint>

#include "pbp/format.hpp"

// clang-format off
#define PBP_TRAINER_LIKELIHOODS(X) \
  X(gaussian, "gaussian", regression, make_gaussian_likelihood) \
  X(heteroscedastic, "heteroscedastic", regression, make_heteroscedastic_likelihood) \
  X(probit, "probit", binary, make_probit_likelihood) \
  X(softmax, "softmax", multiclass, make_softmax_likelihood) \
  X(negative_binomial, "negative-binomial", count, make_negative_binomial_likelihood)
// clang-format on

namespace pbp::trainer {

// automatic: the task's default (its first line in the table).
enum class LikelihoodKind : uint32_t {
  automatic = 0,
#define PBP_LIKELIHOOD_KIND(kind, name, task, factory) kind,
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_KIND)
#undef PBP_LIKELIHOOD_KIND
};

// The task a likelihood of the table trains; `fallback` for automatic, which has none.
inline constexpr format::Task likelihood_task(LikelihoodKind kind, format::Task fallback) {
#define PBP_LIKELIHOOD_TASK(kind_, name, task, factory) \
  if (kind == LikelihoodKind::kind_) return format::Task::task;
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_TASK)
#undef PBP_LIKELIHOOD_TASK
  return fallback;
}

// The likelihood `kind` resolves to for `task`: the task's first line when automatic.
inline constexpr LikelihoodKind resolve_likelihood(LikelihoodKind kind, format::Task task) {
  if (kind != LikelihoodKind::automatic) return kind;
#define PBP_LIKELIHOOD_DEFAULT(kind_, name, task_, factory) \
  if (task == format::Task::task_) return LikelihoodKind::kind_;
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_DEFAULT)
#undef PBP_LIKELIHOOD_DEFAULT
  return LikelihoodKind::automatic;
}

// The table's name of a likelihood ("automatic" for automatic).
inline constexpr const char* likelihood_kind_name(LikelihoodKind kind) {
#define PBP_LIKELIHOOD_NAME(kind_, name, task, factory) \
  if (kind == LikelihoodKind::kind_) return name;
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_NAME)
#undef PBP_LIKELIHOOD_NAME
  return "automatic";
}

}  // namespace pbp::trainer
