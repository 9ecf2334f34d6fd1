// SPDX-License-Identifier: Apache-2.0
// Likelihoods as small units behind one interface: each gives log Z, the log of one data point's
// likelihood integrated against the network output's Gaussian N(z | mean, var) (diagonal), and
// its gradients with respect to the output means and variances; the ADF update back-propagates
// those to every weight (eqs. 6-7). One file per likelihood trainer/src/likelihood_*.cpp, each a
// line of likelihood_table.hpp.
#pragma once
#include <cstdint>
#include <memory>

#include "pbp/trainer/model.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {

class Likelihood {
 public:
  virtual ~Likelihood() = default;

  // Number of network outputs this likelihood reads (C for multiclass, else 1).
  virtual uint32_t outputs() const = 0;

  // log Z for one point and d log Z / d mean[i], d log Z / d var[i] for every output i.
  // `target` is as the data holds it: the standardised value (regression), 0 or 1 (binary), the
  // class index (multiclass), the count (count). Finite for every finite input (no NaN, no -inf).
  virtual double log_z(const double* mean, const double* var, double target, double* d_mean,
                       double* d_var) = 0;

  // Called once per point after the weights were updated, with the output moments the update
  // used: regression matches its noise Gamma here (eqs. 9-10); the others keep nothing.
  virtual void after_update(const double* /*mean*/, const double* /*var*/, double /*target*/) {}
};

// What a likelihood's factory (likelihood_table.hpp) builds it from.
struct LikelihoodContext {
  const TrainOptions& options;
  uint32_t classes;  // multiclass: the number of outputs
  Gamma* noise;      // the Gaussian likelihood reads and updates it (it must outlive it)
  uint64_t seed;     // the sampled softmax's generator
};

// The likelihood options.likelihood names (automatic: options.task's default, the table's first
// line for the task). Throws std::invalid_argument for a likelihood of another task.
std::unique_ptr<Likelihood> make_likelihood(const TrainOptions& options, uint32_t classes,
                                            Gamma* noise, uint64_t seed);

}  // namespace pbp::trainer
