// SPDX-License-Identifier: Apache-2.0
// The blob's likelihoods (the model section's field): the one table the runtime's validation,
// the format's task_of, the trainer's writer and the CLI read. runtime/ADDING.md says how to add
// one; the trainer's likelihoods (how it trains for a task) are trainer/src/likelihood_*.cpp,
// chosen in trainer/src/make_likelihood.cpp.
//
// Each line is X(id, "name", task): id is PBP_LIKELIHOOD_* (pbp.h), the name what pbp inspect
// prints, task the PBP_TASK_* whose predict function reads the model.
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"

// clang-format off
#define PBP_LIKELIHOODS(X) \
  X(PBP_LIKELIHOOD_GAUSSIAN, "gaussian", PBP_TASK_REGRESSION) \
  X(PBP_LIKELIHOOD_PROBIT, "probit", PBP_TASK_BINARY) \
  X(PBP_LIKELIHOOD_SOFTMAX, "softmax", PBP_TASK_MULTICLASS) \
  X(PBP_LIKELIHOOD_POISSON, "poisson", PBP_TASK_COUNT_DATA) \
  X(PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED, "gaussian_epistemic_scaled", PBP_TASK_REGRESSION)
// clang-format on

namespace pbp {

// Whether `likelihood` is one of the table (a reader refuses any other: PBP_ERR_UNSUPPORTED_TASK).
inline constexpr bool is_likelihood(uint32_t likelihood) {
#define PBP_KNOWN_LIKELIHOOD(id, name, task) || likelihood == (id)
  return false PBP_LIKELIHOODS(PBP_KNOWN_LIKELIHOOD);
#undef PBP_KNOWN_LIKELIHOOD
}

// The PBP_TASK_* of a likelihood of the table (regression for any other).
inline constexpr uint32_t likelihood_task(uint32_t likelihood) {
#define PBP_LIKELIHOOD_TASK(id, name, task) \
  if (likelihood == (id)) return task;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_TASK)
#undef PBP_LIKELIHOOD_TASK
  return PBP_TASK_REGRESSION;
}

// The table's name of a likelihood, or nullptr.
inline constexpr const char* likelihood_name(uint32_t likelihood) {
#define PBP_LIKELIHOOD_NAME(id, name, task) \
  if (likelihood == (id)) return name;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_NAME)
#undef PBP_LIKELIHOOD_NAME
  return nullptr;
}

}  // namespace pbp
