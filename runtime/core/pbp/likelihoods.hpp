// SPDX-License-Identifier: Apache-2.0
// The blob's likelihoods (the model section's field): the one table the runtime's validation,
// the format's task_of, the trainer's writer and the CLI read. runtime/ADDING.md says how to add
// one; the trainer's likelihoods (how it trains for a task) are trainer/src/likelihood_*.cpp,
// chosen in trainer/src/make_likelihood.cpp.
//
// Each line is X(id, "name", flag, task, outputs, scaled): id is PBP_LIKELIHOOD_* (pbp.h), the
// name what pbp inspect prints, flag 1 (always built) or the PBP_WITH_<NAME> of a likelihood a
// device build may leave out (pbp_config.h; CMake reads this table, one entry a line, and takes
// the flag's lower-case suffix as a PBP_RUNTIME_LIKELIHOODS value), task the PBP_TASK_* whose
// predict function reads the model, outputs the output layer's width (0: the class count,
// 2 .. PBP_MAX_CLASSES), scaled 1 when the model section carries the epistemic scale (format.hpp).
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"
#include "pbp/pbp_config.h"

// clang-format off
#define PBP_LIKELIHOODS(X) \
  X(PBP_LIKELIHOOD_GAUSSIAN, "gaussian", 1, PBP_TASK_REGRESSION, 1, 0) \
  X(PBP_LIKELIHOOD_PROBIT, "probit", 1, PBP_TASK_BINARY, 1, 0) \
  X(PBP_LIKELIHOOD_SOFTMAX, "softmax", 1, PBP_TASK_MULTICLASS, 0, 0) \
  X(PBP_LIKELIHOOD_POISSON, "poisson", 1, PBP_TASK_COUNT_DATA, 1, 0) \
  X(PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED, "gaussian_epistemic_scaled", 1, PBP_TASK_REGRESSION, 1, 1) \
  X(PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC, "gaussian_heteroscedastic", PBP_WITH_HETEROSCEDASTIC, PBP_TASK_REGRESSION, 2, 1)
// clang-format on

namespace pbp {

// The table's entry of `likelihood` packed in one word, for pbp_open's checks in one lookup:
// bit 31 set if it is in the table and built into this runtime (else the word is 0: a reader
// refuses it, PBP_ERR_UNSUPPORTED_TASK), bits 0-7 its task, 8-15 its output width, 16 its
// epistemic scale.
inline constexpr uint32_t likelihood_entry(uint32_t likelihood) {
#define PBP_LIKELIHOOD_ENTRY(id, name, built, task, outputs, scaled)                            \
  if (likelihood == (id)) {                                                                     \
    return (built)                                                                              \
               ? 0x80000000u | uint32_t(task) | uint32_t(outputs) << 8 | uint32_t(scaled) << 16 \
               : 0u;                                                                            \
  }
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_ENTRY)
#undef PBP_LIKELIHOOD_ENTRY
  return 0u;
}

// The PBP_TASK_* of a likelihood of the table (regression for any other).
inline constexpr uint32_t likelihood_task(uint32_t likelihood) {
#define PBP_LIKELIHOOD_TASK(id, name, built, task, outputs, scaled) \
  if (likelihood == (id)) return task;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_TASK)
#undef PBP_LIKELIHOOD_TASK
  return PBP_TASK_REGRESSION;
}

// The table's name of a likelihood, or nullptr.
inline constexpr const char* likelihood_name(uint32_t likelihood) {
#define PBP_LIKELIHOOD_NAME(id, name, built, task, outputs, scaled) \
  if (likelihood == (id)) return name;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_NAME)
#undef PBP_LIKELIHOOD_NAME
  return nullptr;
}

// The output layer's width a likelihood of the table needs; 0: the class count (multiclass).
inline constexpr uint32_t likelihood_outputs(uint32_t likelihood) {
#define PBP_LIKELIHOOD_OUTPUTS(id, name, built, task, outputs, scaled) \
  if (likelihood == (id)) return outputs;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_OUTPUTS)
#undef PBP_LIKELIHOOD_OUTPUTS
  return 1;
}

// Whether a likelihood's model section carries the epistemic scale (format.hpp).
inline constexpr bool likelihood_has_epistemic_scale(uint32_t likelihood) {
#define PBP_LIKELIHOOD_SCALED(id, name, built, task, outputs, scaled) \
  if (likelihood == (id)) return (scaled) != 0;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_SCALED)
#undef PBP_LIKELIHOOD_SCALED
  return false;
}

}  // namespace pbp
