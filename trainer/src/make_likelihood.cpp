// SPDX-License-Identifier: Apache-2.0
#include <stdexcept>
#include <string>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/likelihood_table.hpp"

namespace pbp::trainer {

// Every factory of the table, each defined in its likelihood's file.
#define PBP_DECLARE_FACTORY(kind, name, Blob, factory) \
  std::unique_ptr<Likelihood> factory(const LikelihoodContext& context);
PBP_TRAINER_LIKELIHOODS(PBP_DECLARE_FACTORY)
#undef PBP_DECLARE_FACTORY

std::unique_ptr<Likelihood> make_likelihood(const TrainOptions& options, uint32_t classes,
                                            Gamma* noise, uint64_t seed) {
  const LikelihoodKind kind = resolve_likelihood(options.likelihood, options.task);
  if (likelihood_task(kind, options.task) != options.task) {
    throw std::invalid_argument(std::string("the ") + likelihood_kind_name(kind) +
                                " likelihood goes with task " +
                                task_name(likelihood_task(kind, options.task)));
  }
  const LikelihoodContext context{options, classes, noise, seed};
#define PBP_MAKE_LIKELIHOOD(kind_, name, Blob, factory) \
  if (kind == LikelihoodKind::kind_) return factory(context);
  PBP_TRAINER_LIKELIHOODS(PBP_MAKE_LIKELIHOOD)
#undef PBP_MAKE_LIKELIHOOD
  throw std::invalid_argument("make_likelihood: unknown likelihood");
}

}  // namespace pbp::trainer
