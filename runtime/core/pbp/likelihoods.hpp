// SPDX-License-Identifier: Apache-2.0
// The blob's likelihoods (the model section's field): the one table the runtime's validation and
// predictive, the trainer's writer, reader and predictions, the CLI and CMake's build flags read.
// runtime/ADDING.md says how to add one; the trainer's likelihoods (how it trains for a task) are
// trainer/include/pbp/trainer/likelihood_table.hpp's, each naming its blob likelihood here.
//
// Each line is X(Traits, "name", flag). Traits, defined in the likelihood's own header
// (pbp/likelihood_<name>.hpp), holds kId (the blob's field: PBP_LIKELIHOOD_* of pbp.h, or a new
// value), kTask (the PBP_TASK_* whose predict function reads the model), kOutputs (the output
// layer's width; 0: the class count, 2 .. PBP_MAX_CLASSES), kEpistemicScale (the model section
// carries the epistemic scale, format.hpp) and, for a regression likelihood, its predictive:
//   template <class T> static outputs::RegressionMoments<T> predictive(
//       const T* nu, const T* psi, const outputs::RegressionModel<T>& model);
// (one deriving from GaussianLikelihood takes the Gaussian one). The name is what pbp inspect
// prints; the flag 1 (always built) or the PBP_WITH_<NAME> of a likelihood a device build may
// leave out, with its default 1 in its header (CMake reads this table, one entry a line, and
// takes the flag's lower-case suffix as a PBP_RUNTIME_LIKELIHOODS value).
#pragma once
#include <stdint.h>

#include "pbp/likelihood_gaussian.hpp"
#include "pbp/likelihood_heteroscedastic.hpp"
#include "pbp/likelihood_poisson.hpp"
#include "pbp/likelihood_probit.hpp"
#include "pbp/likelihood_softmax.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_config.h"

// clang-format off
#define PBP_LIKELIHOODS(X) \
  X(GaussianLikelihood, "gaussian", 1) \
  X(ProbitLikelihood, "probit", 1) \
  X(SoftmaxLikelihood, "softmax", 1) \
  X(PoissonLikelihood, "poisson", 1) \
  X(GaussianEpistemicScaledLikelihood, "gaussian_epistemic_scaled", 1) \
  X(HeteroscedasticLikelihood, "gaussian_heteroscedastic", PBP_WITH_HETEROSCEDASTIC)
// clang-format on

namespace pbp {

// The table's entry of `likelihood` packed in one word, for pbp_open's checks in one lookup:
// bit 31 set if it is in the table and built into this runtime (else the word is 0: a reader
// refuses it, PBP_ERR_UNSUPPORTED_TASK), bits 0-7 its task, 8-15 its output width, 16 its
// epistemic scale.
inline constexpr uint32_t likelihood_entry(uint32_t likelihood) {
#define PBP_LIKELIHOOD_ENTRY(Traits, name, built)                          \
  if (likelihood == Traits::kId) {                                         \
    return (built) ? 0x80000000u | Traits::kTask | Traits::kOutputs << 8 | \
                         uint32_t(Traits::kEpistemicScale) << 16           \
                   : 0u;                                                   \
  }
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_ENTRY)
#undef PBP_LIKELIHOOD_ENTRY
  return 0u;
}

// The PBP_TASK_* of a likelihood of the table (regression for any other).
inline constexpr uint32_t likelihood_task(uint32_t likelihood) {
#define PBP_LIKELIHOOD_TASK(Traits, name, built) \
  if (likelihood == Traits::kId) return Traits::kTask;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_TASK)
#undef PBP_LIKELIHOOD_TASK
  return PBP_TASK_REGRESSION;
}

// The table's name of a likelihood, or nullptr.
inline constexpr const char* likelihood_name(uint32_t likelihood) {
#define PBP_LIKELIHOOD_NAME(Traits, name, built) \
  if (likelihood == Traits::kId) return name;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_NAME)
#undef PBP_LIKELIHOOD_NAME
  return nullptr;
}

// The output layer's width a likelihood of the table needs; 0: the class count (multiclass).
inline constexpr uint32_t likelihood_outputs(uint32_t likelihood) {
#define PBP_LIKELIHOOD_OUTPUTS(Traits, name, built) \
  if (likelihood == Traits::kId) return Traits::kOutputs;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_OUTPUTS)
#undef PBP_LIKELIHOOD_OUTPUTS
  return 1;
}

// Whether a likelihood's model section carries the epistemic scale (format.hpp).
inline constexpr bool likelihood_has_epistemic_scale(uint32_t likelihood) {
#define PBP_LIKELIHOOD_SCALED(Traits, name, built) \
  if (likelihood == Traits::kId) return Traits::kEpistemicScale;
  PBP_LIKELIHOODS(PBP_LIKELIHOOD_SCALED)
#undef PBP_LIKELIHOOD_SCALED
  return false;
}

// How many lines of the table have the id `likelihood` (1 for each of its own: ids are unique).
inline constexpr uint32_t likelihood_id_count(uint32_t likelihood) {
#define PBP_LIKELIHOOD_ID_COUNT(Traits, name, built) +(likelihood == Traits::kId ? 1u : 0u)
  return 0u PBP_LIKELIHOODS(PBP_LIKELIHOOD_ID_COUNT);
#undef PBP_LIKELIHOOD_ID_COUNT
}
#define PBP_LIKELIHOOD_UNIQUE(Traits, name, built) \
  static_assert(likelihood_id_count(Traits::kId) == 1, name ": its kId is another line's");
PBP_LIKELIHOODS(PBP_LIKELIHOOD_UNIQUE)
#undef PBP_LIKELIHOOD_UNIQUE

namespace detail {
// Whether Traits is a regression likelihood whose predictive is not the Gaussian one: one that
// does not derive from GaussianLikelihood. (Not by comparing the predictives' addresses: GCC's
// UBSan makes that comparison no constant expression.)
template <class Traits>
constexpr bool has_own_regression_predictive() {
  return Traits::kTask == PBP_TASK_REGRESSION && !__is_base_of(GaussianLikelihood, Traits);
}
// Traits' regression predictive, named where Traits is a template parameter: instantiated only
// for the lines that have one.
template <class Traits, class T>
inline outputs::RegressionMoments<T> regression_predictive_of(
    const T* nu, const T* psi, const outputs::RegressionModel<T>& model) {
  return Traits::template predictive<T>(nu, psi, model);
}
}  // namespace detail

// The regression predictive of `likelihood`'s line: its traits' own for the lines built into this
// runtime (every line when kEveryLine: the trainer, the CLI), else the Gaussian one (pbp_open
// admits no other regression likelihood). One test per likelihood with its own predictive.
template <class T, bool kEveryLine = false>
inline outputs::RegressionMoments<T> regression_predictive(
    uint32_t likelihood, const T* nu, const T* psi, const outputs::RegressionModel<T>& model) {
#define PBP_REGRESSION_PREDICTIVE(Traits, name, built)                                        \
  if constexpr ((kEveryLine || (built)) && detail::has_own_regression_predictive<Traits>()) { \
    if (likelihood == Traits::kId) {                                                          \
      return detail::regression_predictive_of<Traits, T>(nu, psi, model);                     \
    }                                                                                         \
  }
  PBP_LIKELIHOODS(PBP_REGRESSION_PREDICTIVE)
#undef PBP_REGRESSION_PREDICTIVE
  (void)likelihood;
  return GaussianLikelihood::predictive(nu, psi, model);
}

}  // namespace pbp
