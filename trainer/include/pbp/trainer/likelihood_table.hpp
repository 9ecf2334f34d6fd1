// SPDX-License-Identifier: Apache-2.0
// The trainer's likelihoods (how training matches a task's outputs): the one table that
// make_likelihood, the option names (`pbp train --likelihood`, Python's likelihood=), the task
// check, the blob writer's and reader's likelihood field and the trainer's predictions read.
// runtime/ADDING.md says how to add one.
//
// Each line is X(kind, "name", Blob, factory): kind the LikelihoodKind enumerator, name the
// option's value, Blob the traits of the blob likelihood it writes (the runtime's table,
// pbp/likelihoods.hpp: its task is the one this likelihood trains, its predictive the one the
// trainer and the device run; a model whose epistemic scale is not 1 is written as
// Blob::WithEpistemicScale where Blob carries no scale), factory the function, defined in the
// likelihood's own trainer/src/likelihood_*.cpp, that make_likelihood calls:
//   std::unique_ptr<Likelihood> factory(const LikelihoodContext&);
// A task's first line is its default, and the reader's choice for a blob likelihood is the first
// line naming it.
#pragma once
#include <cstdint>

#include "pbp/format.hpp"
#include "pbp/likelihoods.hpp"

// clang-format off
#define PBP_TRAINER_LIKELIHOODS(X) \
  X(gaussian, "gaussian", GaussianLikelihood, make_gaussian_likelihood) \
  X(heteroscedastic, "heteroscedastic", HeteroscedasticLikelihood, make_heteroscedastic_likelihood) \
  X(probit, "probit", ProbitLikelihood, make_probit_likelihood) \
  X(softmax, "softmax", SoftmaxLikelihood, make_softmax_likelihood) \
  X(negative_binomial, "negative-binomial", PoissonLikelihood, make_negative_binomial_likelihood)
// clang-format on

namespace pbp::trainer {

// automatic: the task's default (its first line in the table).
enum class LikelihoodKind : uint32_t {
  automatic = 0,
#define PBP_LIKELIHOOD_KIND(kind, name, Blob, factory) kind,
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_KIND)
#undef PBP_LIKELIHOOD_KIND
};

// The task a likelihood of the table trains; `fallback` for automatic, which has none.
inline constexpr format::Task likelihood_task(LikelihoodKind kind, format::Task fallback) {
#define PBP_LIKELIHOOD_TASK(kind_, name, Blob, factory) \
  if (kind == LikelihoodKind::kind_) return static_cast<format::Task>(::pbp::Blob::kTask);
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_TASK)
#undef PBP_LIKELIHOOD_TASK
  return fallback;
}

// The likelihood `kind` resolves to for `task`: the task's first line when automatic.
inline constexpr LikelihoodKind resolve_likelihood(LikelihoodKind kind, format::Task task) {
  if (kind != LikelihoodKind::automatic) return kind;
#define PBP_LIKELIHOOD_DEFAULT(kind_, name, Blob, factory) \
  if (static_cast<uint32_t>(task) == ::pbp::Blob::kTask) return LikelihoodKind::kind_;
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_DEFAULT)
#undef PBP_LIKELIHOOD_DEFAULT
  return LikelihoodKind::automatic;
}

// The table's name of a likelihood ("automatic" for automatic).
inline constexpr const char* likelihood_kind_name(LikelihoodKind kind) {
#define PBP_LIKELIHOOD_NAME(kind_, name, Blob, factory) \
  if (kind == LikelihoodKind::kind_) return name;
  PBP_TRAINER_LIKELIHOODS(PBP_LIKELIHOOD_NAME)
#undef PBP_LIKELIHOOD_NAME
  return "automatic";
}

namespace detail {
template <class Blob>
constexpr uint32_t blob_likelihood_id(bool epistemic_scaled) {
  if constexpr (requires { typename Blob::WithEpistemicScale; }) {
    if (epistemic_scaled && !Blob::kEpistemicScale) return Blob::WithEpistemicScale::kId;
  }
  return Blob::kId;
}
}  // namespace detail

// The blob likelihood (likelihoods.hpp's kId) of a model trained with `kind` for `task`: its
// line's, or the form carrying the epistemic scale when `epistemic_scaled` (a scale other than 1)
// and the line's has none. UINT32_MAX, which every reader refuses, when `kind` resolves to no
// line (automatic for a task without one).
inline constexpr uint32_t blob_likelihood(LikelihoodKind kind, format::Task task,
                                          bool epistemic_scaled) {
  const LikelihoodKind resolved = resolve_likelihood(kind, task);
#define PBP_BLOB_LIKELIHOOD(kind_, name, Blob, factory) \
  if (resolved == LikelihoodKind::kind_)                \
    return detail::blob_likelihood_id<::pbp::Blob>(epistemic_scaled);
  PBP_TRAINER_LIKELIHOODS(PBP_BLOB_LIKELIHOOD)
#undef PBP_BLOB_LIKELIHOOD
  return UINT32_MAX;
}

// The trainer's likelihood of a blob likelihood: the first line writing it (with or without the
// epistemic scale); automatic for an id no line writes.
inline constexpr LikelihoodKind trainer_likelihood(uint32_t blob_likelihood_id) {
#define PBP_TRAINER_LIKELIHOOD(kind_, name, Blob, factory)                    \
  if (detail::blob_likelihood_id<::pbp::Blob>(false) == blob_likelihood_id || \
      detail::blob_likelihood_id<::pbp::Blob>(true) == blob_likelihood_id) {  \
    return LikelihoodKind::kind_;                                             \
  }
  PBP_TRAINER_LIKELIHOODS(PBP_TRAINER_LIKELIHOOD)
#undef PBP_TRAINER_LIKELIHOOD
  return LikelihoodKind::automatic;
}

}  // namespace pbp::trainer
