// SPDX-License-Identifier: Apache-2.0
#include <stdexcept>

#include "likelihoods/likelihoods.hpp"
#include "pbp/trainer/likelihood.hpp"

namespace pbp::trainer {

std::unique_ptr<Likelihood> make_likelihood(const TrainOptions& options, uint32_t classes,
                                            Gamma* noise, uint64_t seed) {
  switch (options.task) {
    case Task::regression:
      if (noise == nullptr)
        throw std::invalid_argument("regression likelihood: needs a noise Gamma");
      return std::make_unique<GaussianLikelihood>(*noise);
    case Task::binary:
      return std::make_unique<ProbitLikelihood>();
    case Task::multiclass:
      switch (options.softmax) {
        case SoftmaxApproximation::sampled:
          return std::make_unique<SoftmaxSampledLikelihood>(classes, options.samples, seed);
        case SoftmaxApproximation::log_bound:
          return std::make_unique<SoftmaxLogBoundLikelihood>(classes);
        case SoftmaxApproximation::mean_field:
          return std::make_unique<SoftmaxMeanFieldLikelihood>(classes);
      }
      throw std::invalid_argument("make_likelihood: unknown softmax approximation");
    case Task::count:
      return std::make_unique<NegativeBinomialLikelihood>();
  }
  throw std::invalid_argument("make_likelihood: unknown task");
}

}  // namespace pbp::trainer
