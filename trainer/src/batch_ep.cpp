// SPDX-License-Identifier: Apache-2.0
// Batch EP for a two-layer probit network (batch_ep.hpp): Algorithm 1 of Jylanki et al. (2014)
// with the factorised approximation of their section 3.3.2. Schedule (their section 3.5):
//  1. sweeps over the likelihood sites with theta fixed at log 0.3^2, the input-weight prior sites
//     fixed at N(0, 0.5) (input bias N(mu, 2^2), mu drawn from the seed) and the output-weight
//     prior sites at N(linspace(1, 2), 0.2^2); input-weight sites sequential, output sites
//     parallel (q(v) recomputed after each sweep);
//  2. one sweep updating only the noise sites t_theta,i; then all three kinds, the output-weight
//     prior (half Student-t) sites run to convergence after each sweep;
//  3. after `sweeps_before_ard` sweeps the ARD prior sites (w_kl, phi_l) run to convergence once
//     (their scheme 1), then the likelihood sweeps continue until the approximation is consistent
//     with every tilted distribution (to `tolerance`) or `max_sweeps`.
// The eq. numbers below are theirs.
#include "pbp/trainer/batch_ep.hpp"

#include <stdexcept>

#include "batch_ep_trainer.hpp"
#include "pbp/math.hpp"

namespace pbp::trainer::batch_ep {
namespace detail {

std::vector<double> multiply(const std::vector<double>& matrix, const std::vector<double>& x) {
  const size_t n = x.size();
  std::vector<double> result(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) result[i] += matrix[i * n + j] * x[j];
  }
  return result;
}

double quadratic(const double* a, const double* x, size_t n, double* ax) {
  double result = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double row = 0.0;
    for (size_t j = 0; j < n; ++j) row += a[i * n + j] * x[j];
    ax[i] = row;
    result += x[i] * row;
  }
  return result;
}

}  // namespace detail

using detail::quadratic;

Prediction Model::predict(std::span<const double> x) const {
  if (x.size() != inputs) throw std::invalid_argument("batch EP predict: wrong input count");
  const size_t d = inputs + 1, o = hidden + 1;
  std::vector<double> z(d, 1.0), az(d);
  for (size_t l = 0; l < inputs; ++l) z[l] = (x[l] - input_mean[l]) / input_scale[l];
  OutputCavity q;
  q.mean = v_mean;
  q.covariance = v_covariance;
  q.g_mean.assign(o, 0.0);
  q.g_variance.assign(o, 0.0);
  q.g_mean[hidden] = 1.0;
  for (size_t k = 0; k < hidden; ++k) {
    double m = 0.0;
    for (size_t l = 0; l < d; ++l) m += z[l] * w_mean[k * d + l];
    const double v = quadratic(&w_covariance[k * d * d], z.data(), d, az.data());
    const Moments g = activation_moments(m, v > 0.0 ? v : 0.0, hidden);
    q.g_mean[k] = g.mean;
    q.g_variance[k] = g.variance;
  }
  const LatentMoments f = latent_moments(q);
  Prediction p;
  p.mean = target_mean + target_scale * f.mean;
  p.latent_variance = target_scale * target_scale * f.variance;
  p.noise_variance =
      target_scale * target_scale * math::exp(theta_mean + 0.5 * theta_variance);  // E exp theta
  return p;
}

Model train(const Dataset& data, const Options& options, Report* report) {
  if (data.rows < 2 || data.inputs == 0) {
    throw std::invalid_argument("batch EP needs at least 2 rows and 1 input");
  }
  if (options.hidden == 0 || !(options.eta > 0.0 && options.eta <= 1.0) ||
      !(options.prior_eta > 0.0 && options.prior_eta <= 1.0)) {
    throw std::invalid_argument("batch EP: hidden >= 1 and fractions in (0, 1] required");
  }
  Model model;
  model.inputs = data.inputs;
  model.hidden = options.hidden;
  model.input_mean.assign(data.inputs, 0.0);
  model.input_scale.assign(data.inputs, 1.0);
  const double n = static_cast<double>(data.rows);
  for (size_t l = 0; l < data.inputs; ++l) {
    double sum = 0.0, squares = 0.0;
    for (size_t i = 0; i < data.rows; ++i) sum += data.x[i * data.inputs + l];
    const double mean = sum / n;
    for (size_t i = 0; i < data.rows; ++i) {
      const double d = data.x[i * data.inputs + l] - mean;
      squares += d * d;
    }
    model.input_mean[l] = mean;
    const double sd = math::sqrt(squares / n);
    model.input_scale[l] = sd > 1e-12 * (1.0 + (mean < 0 ? -mean : mean)) ? sd : 1.0;  // constant
  }
  double sum = 0.0, squares = 0.0;
  for (size_t i = 0; i < data.rows; ++i) sum += data.y[i];
  model.target_mean = sum / n;
  for (size_t i = 0; i < data.rows; ++i)
    squares += (data.y[i] - model.target_mean) * (data.y[i] - model.target_mean);
  const double sd = math::sqrt(squares / n);
  model.target_scale = sd > 0.0 ? sd : 1.0;
  Report local;
  detail::Trainer trainer(data, options, model);
  trainer.run(report ? *report : local);
  return model;
}

}  // namespace pbp::trainer::batch_ep
