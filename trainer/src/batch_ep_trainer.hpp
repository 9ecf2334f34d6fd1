// SPDX-License-Identifier: Apache-2.0
// The batch EP comparator's state and steps (batch_ep.hpp), shared by batch_ep.cpp (set-up,
// schedule, predictions) and batch_ep_sites.cpp (the site updates). Private to the trainer.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "pbp/math.hpp"
#include "pbp/trainer/batch_ep.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/spd_matrix.hpp"

namespace pbp::trainer::batch_ep::detail {

inline constexpr double kPriorPhiMean = -9.210340371976182;  // 2 log 0.01 (their section 4.4)
inline constexpr double kPriorPhiVariance = 2.5 * 2.5;
inline constexpr double kPriorThetaMean = -9.210340371976182;  // 2 log 0.01
inline constexpr double kPriorThetaVariance = 2.0 * 2.0;
inline constexpr double kFixedTheta = -2.4079456086518722;  // log 0.3^2
inline constexpr double kMinPriorPrecision = 0.01;          // tau_min = 0.1^2 (appendix G)
inline constexpr uint32_t kPriorIterations = 40;

using trainer::invert_spd;  // spd_matrix.hpp
// matrix * x for a square matrix of x.size() rows.
std::vector<double> multiply(const std::vector<double>& matrix, const std::vector<double>& x);
// x^T A x, and A x into ax, for the n x n matrix a.
double quadratic(const double* a, const double* x, size_t n, double* ax);

struct Gaussian1 {
  double mean = 0.0, variance = 0.0;
  bool valid = false;
};

// Removes a fraction eta of a site (tau, nu) from the marginal N(m, V) (eq. 39).
inline Gaussian1 cavity(double m, double v, double tau, double nu, double eta) {
  Gaussian1 c;
  const double precision = 1.0 / v - eta * tau;
  if (!(precision > 0.0) || !math::is_finite(precision)) return c;
  c.variance = 1.0 / precision;
  c.mean = c.variance * (m / v - eta * nu);
  c.valid = math::is_finite(c.mean);
  return c;
}

class Trainer {
 public:
  Trainer(const Dataset& data, const Options& options, Model& model)
      : opt_(options), model_(model), n_(data.rows), k_(options.hidden), d_(data.inputs + 1) {
    x_.resize(n_ * d_);
    y_.resize(n_);
    for (size_t i = 0; i < n_; ++i) {
      for (size_t l = 0; l + 1 < d_; ++l) {
        x_[i * d_ + l] = (data.x[i * data.inputs + l] - model.input_mean[l]) / model.input_scale[l];
      }
      x_[i * d_ + d_ - 1] = 1.0;
      y_[i] = (data.y[i] - model.target_mean) / model.target_scale;
    }
    const size_t o = k_ + 1;
    tau_.assign(n_ * k_, 0.0);
    nu_.assign(n_ * k_, 0.0);
    alpha_.assign(n_ * o, 0.0);
    beta_.assign(n_ * o, 0.0);
    tau_theta_.assign(n_, 0.0);
    nu_theta_.assign(n_, 0.0);
    tau_w_.assign(k_ * d_, 2.0);  // N(0, 0.5)
    nu_w_.assign(k_ * d_, 0.0);
    tau_phi_.assign(k_ * d_, 0.0);
    nu_phi_.assign(k_ * d_, 0.0);
    Random random(options.seed);
    for (size_t k = 0; k < k_; ++k) {
      tau_w_[k * d_ + d_ - 1] = 0.25;  // input bias N(mu, 2^2), mu ~ N(0, 1): spread the units
      nu_w_[k * d_ + d_ - 1] = 0.25 * random.normal();
    }
    tau_v_.assign(k_, 25.0);  // N(mu_k, 0.2^2), mu_k evenly in [1, 2]
    nu_v_.resize(k_);
    for (size_t k = 0; k < k_; ++k) {
      const double spread = k_ > 1 ? static_cast<double>(k) / static_cast<double>(k_ - 1) : 0.0;
      nu_v_[k] = 25.0 * (1.0 + spread);
    }
    w_mean_.assign(k_ * d_, 0.0);
    w_cov_.assign(k_ * d_ * d_, 0.0);
    for (size_t k = 0; k < k_; ++k) recompute_w(k);
    recompute_v();
  }

  void run(Report& report) {
    const uint32_t noise_start = opt_.fixed_noise_sweeps + 1;
    bool ard_done = opt_.input_prior == InputPrior::fixed;
    for (uint32_t sweep = 1; sweep <= opt_.max_sweeps; ++sweep) {
      const bool noise_only = sweep == noise_start;
      learn_noise_ = sweep >= noise_start;
      const double change = likelihood_sweep(!noise_only, !noise_only, learn_noise_, report);
      if (sweep > noise_start) output_prior_ep();
      report.sweeps = sweep;
      report.largest_change = change;
      if (!ard_done && sweep >= opt_.sweeps_before_ard) {
        input_prior_ep(kPriorIterations);
        ard_done = true;
        continue;
      }
      double prior_change = 0.0;
      if (ard_done && opt_.input_prior != InputPrior::fixed && opt_.prior_every_sweep) {
        prior_change = input_prior_ep(1);
      }
      if (ard_done && sweep > noise_start + 1 && std::max(change, prior_change) < opt_.tolerance) {
        report.converged = true;
        break;
      }
    }
    export_model();
  }

 private:
  void recompute_w(size_t k) {
    std::vector<double> precision(d_ * d_, 0.0), shift(d_, 0.0);
    for (size_t l = 0; l < d_; ++l) {
      precision[l * d_ + l] = tau_w_[k * d_ + l];
      shift[l] = nu_w_[k * d_ + l];
    }
    for (size_t i = 0; i < n_; ++i) {
      const double* x = &x_[i * d_];
      const double tau = tau_[i * k_ + k], nu = nu_[i * k_ + k];
      for (size_t a = 0; a < d_; ++a) {
        shift[a] += nu * x[a];
        for (size_t b = 0; b < d_; ++b) precision[a * d_ + b] += tau * x[a] * x[b];
      }
    }
    // Not positive definite (negative likelihood site precisions): keep the rank-one updated form.
    if (!invert_spd(precision, d_)) return;
    std::copy(precision.begin(), precision.end(),
              w_cov_.begin() + static_cast<ptrdiff_t>(k * d_ * d_));
    const std::vector<double> mean = multiply(precision, shift);
    std::copy(mean.begin(), mean.end(), w_mean_.begin() + static_cast<ptrdiff_t>(k * d_));
  }

  // q(v) from the output sites, the output-weight prior sites and p(v_0) = N(0, 1) (eq. 37).
  void recompute_v() {
    const size_t o = k_ + 1;
    v_precision_.assign(o * o, 0.0);
    v_shift_.assign(o, 0.0);
    for (size_t k = 0; k < k_; ++k) {
      v_precision_[k * o + k] = tau_v_[k];
      v_shift_[k] = nu_v_[k];
    }
    v_precision_[k_ * o + k_] = 1.0;
    for (size_t i = 0; i < n_; ++i) {
      for (size_t a = 0; a < o; ++a) {
        v_shift_[a] += beta_[i * o + a];
        for (size_t b = 0; b < o; ++b)
          v_precision_[a * o + b] += alpha_[i * o + a] * alpha_[i * o + b];
      }
    }
    v_cov_ = v_precision_;
    if (!invert_spd(v_cov_, o))
      throw std::runtime_error("batch EP: q(v) lost positive definiteness");
    v_mean_ = multiply(v_cov_, v_shift_);
  }

  double theta_precision() const {
    double p = 1.0 / kPriorThetaVariance;
    for (size_t i = 0; i < n_; ++i) p += tau_theta_[i];
    return p;
  }
  double theta_shift() const {
    double s = kPriorThetaMean / kPriorThetaVariance;
    for (size_t i = 0; i < n_; ++i) s += nu_theta_[i];
    return s;
  }

  // One pass over the likelihood sites; returns the largest inconsistency between a tilted
  // activation distribution and its marginal (|m^ - m| / sqrt V + |V^ / V - 1|).
  double likelihood_sweep(bool update_hidden, bool update_output, bool update_noise,
                          Report& report);

  // Eqs. 55-59: the output site's new rank-one precision and location, damped by mixing the
  // old and new sites (rank two) and keeping its leading eigen-direction, with beta chosen so
  // the mean of q(v) is that of the rank-two site.
  void update_output_site(size_t i, const OutputCavity& out, const LatentMoments& f,
                          double residual, double a_hat, double b_hat,
                          const std::vector<double>& cavity_precision,
                          const std::vector<double>& cavity_shift, std::vector<double>& new_alpha,
                          std::vector<double>& new_beta);

  // Appendix F for the half Student-t output-weight priors, to convergence.
  void output_prior_ep();

  // Eq. 65 with the floor tau >= tau_min of appendix G (the tilted precision raised to meet it).
  static void apply_prior_site(double& tau, double& nu, double m, double v, double tilted_mean,
                               double tilted_variance, double eta, double delta);

  // Appendix F for the ARD input-weight prior sites (w_kl, phi_l), sequential, to convergence.
  // Returns the last iteration's largest tilted-marginal inconsistency.
  double input_prior_ep(uint32_t iterations);

  // The scale group of input column l (the bias is column d_ - 1).
  size_t group_of(size_t l) const { return opt_.input_prior == InputPrior::ard ? l : 0; }
  size_t groups() const { return opt_.input_prior == InputPrior::ard ? d_ : 1; }

  // q(phi_group) in natural form: the prior plus every site of the group (eq. 18).
  double phi_precision(size_t group) const {
    double p = 1.0 / kPriorPhiVariance;
    for (size_t j = 0; j < k_ * d_; ++j) {
      if (group_of(j % d_) == group) p += tau_phi_[j];
    }
    return p;
  }
  double phi_shift(size_t group) const {
    double s = kPriorPhiMean / kPriorPhiVariance;
    for (size_t j = 0; j < k_ * d_; ++j) {
      if (group_of(j % d_) == group) s += nu_phi_[j];
    }
    return s;
  }

  void export_model() {
    model_.w_mean = w_mean_;
    model_.w_covariance = w_cov_;
    model_.v_mean = v_mean_;
    model_.v_covariance = v_cov_;
    const double p = theta_precision();
    model_.theta_variance = 1.0 / p;
    model_.theta_mean = theta_shift() / p;
    if (!learn_noise_) {  // never learned: the fixed value it was trained with
      model_.theta_mean = kFixedTheta;
      model_.theta_variance = 0.0;
    }
    model_.phi_mean.resize(groups());
    model_.phi_variance.resize(groups());
    for (size_t l = 0; l < groups(); ++l) {
      model_.phi_variance[l] = 1.0 / phi_precision(l);
      model_.phi_mean[l] = phi_shift(l) * model_.phi_variance[l];
    }
  }

  const Options& opt_;
  Model& model_;
  size_t n_, k_, d_;
  std::vector<double> x_, y_;
  std::vector<double> tau_, nu_, alpha_, beta_, tau_theta_, nu_theta_;
  std::vector<double> tau_w_, nu_w_, tau_phi_, nu_phi_, tau_v_, nu_v_;
  std::vector<double> w_mean_, w_cov_, v_mean_, v_cov_, v_precision_, v_shift_;
  bool learn_noise_ = false;
};

}  // namespace pbp::trainer::batch_ep::detail
