// SPDX-License-Identifier: Apache-2.0
// The site updates of the batch EP comparator (batch_ep_trainer.hpp): the likelihood sites
// (their appendices A-E) and the prior sites (appendix F). The eq. numbers are theirs.
#include <algorithm>
#include <vector>

#include "batch_ep_trainer.hpp"
#include "pbp/math.hpp"

namespace pbp::trainer::batch_ep::detail {

// One pass over the likelihood sites; returns the largest inconsistency between a tilted
// activation distribution and its marginal (|m^ - m| / sqrt V + |V^ / V - 1|).
double Trainer::likelihood_sweep(bool update_hidden, bool update_output, bool update_noise,
                                 Report& report) {
  const size_t o = k_ + 1;
  const double eta = opt_.eta;
  std::vector<double> new_alpha = alpha_, new_beta = beta_;
  std::vector<double> ax(d_);
  std::vector<Gaussian1> hidden_cavity(k_);
  std::vector<double> marginal_mean(k_), marginal_variance(k_);
  double largest = 0.0;
  double p_theta = theta_precision(), s_theta = theta_shift();
  for (size_t i = 0; i < n_; ++i) {
    const double* x = &x_[i * d_];
    OutputCavity out;
    out.g_mean.assign(o, 0.0);
    out.g_variance.assign(o, 0.0);
    out.g_mean[k_] = 1.0;
    for (size_t k = 0; k < k_; ++k) {
      const double* cov = &w_cov_[k * d_ * d_];
      double m = 0.0;
      for (size_t l = 0; l < d_; ++l) m += x[l] * w_mean_[k * d_ + l];
      const double v = quadratic(cov, x, d_, ax.data());
      marginal_mean[k] = m;
      marginal_variance[k] = v;
      hidden_cavity[k] = cavity(m, v, tau_[i * k_ + k], nu_[i * k_ + k], eta);
      // An improper cavity: this unit's site is left alone; its marginal stands in for it.
      const Gaussian1 use = hidden_cavity[k].valid ? hidden_cavity[k] : Gaussian1{m, v, true};
      const Moments g = activation_moments(use.mean, use.variance, static_cast<uint32_t>(k_));
      out.g_mean[k] = g.mean;
      out.g_variance[k] = g.variance;
    }
    // q_-i(v) in natural form (eq. 40): every output site is a PSD outer product.
    std::vector<double> cavity_precision = v_precision_, cavity_shift = v_shift_;
    for (size_t a = 0; a < o; ++a) {
      cavity_shift[a] -= eta * beta_[i * o + a];
      for (size_t b = 0; b < o; ++b)
        cavity_precision[a * o + b] -= eta * alpha_[i * o + a] * alpha_[i * o + b];
    }
    out.covariance = cavity_precision;
    if (!invert_spd(out.covariance, o)) continue;
    out.mean = multiply(out.covariance, cavity_shift);
    const LatentMoments f = latent_moments(out);
    const double residual = y_[i] - f.mean;

    // The noise (eq. 50) and the precision 1 / V_y's moments (eqs. 51-52).
    double noise = math::exp(kFixedTheta), a_hat, b_hat;
    Gaussian1 theta_cavity;
    NoiseTilted noise_moments;
    if (learn_noise_) {
      const double precision = p_theta - eta * tau_theta_[i];
      if (precision > 0.0) {
        theta_cavity = {(s_theta - eta * nu_theta_[i]) / precision, 1.0 / precision, true};
        noise_moments =
            noise_tilted(f.mean, f.variance, y_[i], theta_cavity.mean, theta_cavity.variance, eta);
        noise = math::exp(noise_moments.theta.mean);
        a_hat =
            noise_moments.precision_mean - residual * residual * noise_moments.precision_variance;
        b_hat = noise_moments.precision_mean;
      } else {
        noise = math::exp(s_theta / p_theta);
        a_hat = b_hat = 1.0 / (f.variance + noise / eta);
      }
    } else {
      a_hat = b_hat = 1.0 / (f.variance + noise / eta);
    }

    if (update_output)
      update_output_site(i, out, f, residual, a_hat, b_hat, cavity_precision, cavity_shift,
                         new_alpha, new_beta);

    if (update_hidden) {
      for (size_t k = 0; k < k_; ++k) {
        if (!hidden_cavity[k].valid) {
          ++report.hidden_updates_skipped;
          continue;
        }
        const QuadratureMoments t = hidden_tilted(out, f, k, hidden_cavity[k].mean,
                                                  hidden_cavity[k].variance, y_[i], noise, eta);
        const double m = marginal_mean[k], v = marginal_variance[k];
        if (!(t.variance > 0.0) || !math::is_finite(t.mean)) {
          ++report.hidden_updates_skipped;
          continue;
        }
        const double gap = math::sqrt((t.mean - m) * (t.mean - m) / v) +
                           (t.variance > v ? t.variance / v - 1.0 : 1.0 - t.variance / v);
        largest = std::max(largest, gap);
        // Eq. 60, with twice the damping when a site would lose precision (appendix G).
        double delta = opt_.damping_hidden;
        double d_tau = delta / eta * (1.0 / t.variance - 1.0 / v);
        if (d_tau < 0.0) {
          delta *= 0.5;
          d_tau *= 0.5;
        }
        const double d_nu = delta / eta * (t.mean / t.variance - m / v);
        const double s = 1.0 + d_tau * v;
        if (!(s > 1e-6)) {
          ++report.hidden_updates_skipped;
          continue;
        }
        // Rank-one update of q(w_k) (appendix F eq. 66 with a = Sigma x_i).
        double* cov = &w_cov_[k * d_ * d_];
        quadratic(cov, x, d_, ax.data());
        for (size_t a = 0; a < d_; ++a) {
          w_mean_[k * d_ + a] += ax[a] * (d_nu - d_tau * m) / s;
          for (size_t b = 0; b < d_; ++b) cov[a * d_ + b] -= ax[a] * ax[b] * d_tau / s;
        }
        tau_[i * k_ + k] += d_tau;
        nu_[i * k_ + k] += d_nu;
      }
    }

    if (update_noise && theta_cavity.valid && noise_moments.theta.variance > 0.0) {
      // Eq. 61, applied to q(theta) at once (sequential).
      const double mean = s_theta / p_theta;
      const double d_tau =
          opt_.damping_noise / eta * (1.0 / noise_moments.theta.variance - p_theta);
      const double d_nu =
          opt_.damping_noise / eta *
          (noise_moments.theta.mean / noise_moments.theta.variance - p_theta * mean);
      if (p_theta + d_tau > 0.0) {
        tau_theta_[i] += d_tau;
        nu_theta_[i] += d_nu;
        p_theta += d_tau;
        s_theta += d_nu;
      }
    }
  }
  alpha_ = new_alpha;
  beta_ = new_beta;
  recompute_v();
  for (size_t k = 0; k < k_; ++k) recompute_w(k);
  return largest;
}

// Eqs. 55-59: the output site's new rank-one precision and location, damped by mixing the
// old and new sites (rank two) and keeping its leading eigen-direction, with beta chosen so
// the mean of q(v) is that of the rank-two site.
void Trainer::update_output_site(size_t i, const OutputCavity& out, const LatentMoments& f,
                                 double residual, double a_hat, double b_hat,
                                 const std::vector<double>& cavity_precision,
                                 const std::vector<double>& cavity_shift,
                                 std::vector<double>& new_alpha, std::vector<double>& new_beta) {
  const size_t o = k_ + 1;
  const double eta = opt_.eta, delta = opt_.damping_output;
  double c = 0.0;
  for (size_t a = 0; a < o; ++a) c += out.g_mean[a] * f.covariance_v_f[a];
  // A negative a^ (an outlier with theta unknown) would need a negative rank-one precision,
  // which the outer-product site cannot hold: it then adds no precision.
  const double a_pos = a_hat > 0.0 ? a_hat : 0.0;
  const double denominator = 1.0 - a_pos * c;
  if (!(denominator > 0.0)) return;
  const double kappa = a_pos / denominator;
  const double alpha_scale = math::sqrt(kappa / eta);
  const double beta_scale = (a_pos * f.mean + b_hat * residual) / (denominator * eta);
  std::vector<double> col0(o), col1(o), b(o);
  for (size_t a = 0; a < o; ++a) {
    col0[a] = math::sqrt(1.0 - delta) * alpha_[i * o + a];
    col1[a] = math::sqrt(delta) * alpha_scale * out.g_mean[a];
    b[a] = (1.0 - delta) * beta_[i * o + a] + delta * beta_scale * out.g_mean[a];
  }
  // Leading unit eigenvector (e0, e1) of the 2 x 2 matrix A^T A.
  double s00 = 0.0, s01 = 0.0, s11 = 0.0;
  for (size_t a = 0; a < o; ++a) {
    s00 += col0[a] * col0[a];
    s01 += col0[a] * col1[a];
    s11 += col1[a] * col1[a];
  }
  const double half_gap = 0.5 * (s00 - s11);
  const double root = math::sqrt(half_gap * half_gap + s01 * s01);
  double e0, e1;
  if (root == 0.0) {
    e0 = 1.0;
    e1 = 0.0;
  } else if (half_gap >= 0.0) {
    e0 = half_gap + root;
    e1 = s01;
  } else {
    e0 = s01;
    e1 = -half_gap + root;
  }
  const double norm = math::sqrt(e0 * e0 + e1 * e1);
  e0 /= norm;
  e1 /= norm;
  // mu* = (P_-i + eta A A^T)^-1 (h_-i + eta b), the mean the rank-two site would give.
  std::vector<double> precision = cavity_precision, shift = cavity_shift;
  for (size_t a = 0; a < o; ++a) {
    shift[a] += eta * b[a];
    for (size_t bb = 0; bb < o; ++bb)
      precision[a * o + bb] += eta * (col0[a] * col0[bb] + col1[a] * col1[bb]);
  }
  if (!invert_spd(precision, o)) return;
  const std::vector<double> target = multiply(precision, shift);
  double p0 = 0.0, p1 = 0.0;  // A^T mu*
  for (size_t a = 0; a < o; ++a) {
    p0 += col0[a] * target[a];
    p1 += col1[a] * target[a];
  }
  // beta_new = b + A (e e^T - I) A^T mu*.
  const double along = e0 * p0 + e1 * p1;
  const double c0 = e0 * along - p0, c1 = e1 * along - p1;
  for (size_t a = 0; a < o; ++a) {
    new_alpha[i * o + a] = col0[a] * e0 + col1[a] * e1;
    new_beta[i * o + a] = b[a] + col0[a] * c0 + col1[a] * c1;
  }
}

// Appendix F for the half Student-t output-weight priors, to convergence.
void Trainer::output_prior_ep() {
  const size_t o = k_ + 1;
  const double eta = opt_.prior_eta, delta = opt_.prior_damping;
  for (uint32_t iteration = 0; iteration < kPriorIterations; ++iteration) {
    double largest = 0.0;
    for (size_t k = 0; k < k_; ++k) {
      const double v = v_cov_[k * o + k], m = v_mean_[k];
      const Gaussian1 c = cavity(m, v, tau_v_[k], nu_v_[k], eta);
      if (!c.valid) continue;
      const QuadratureMoments t = output_prior_tilted(c.mean, c.variance, eta);
      if (!(t.variance > 0.0)) continue;
      largest = std::max(largest, math::sqrt((t.mean - m) * (t.mean - m) / v) +
                                      (t.variance > v ? t.variance / v - 1 : 1 - t.variance / v));
      apply_prior_site(tau_v_[k], nu_v_[k], m, v, t.mean, t.variance, eta, delta);
      recompute_v();
    }
    if (largest < opt_.tolerance) break;
  }
}

// Eq. 65 with the floor tau >= tau_min of appendix G (the tilted precision raised to meet it).
void Trainer::apply_prior_site(double& tau, double& nu, double m, double v, double tilted_mean,
                               double tilted_variance, double eta, double delta) {
  double tilted_precision = 1.0 / tilted_variance;
  double d_tau = delta / eta * (tilted_precision - 1.0 / v);
  if (tau + d_tau < kMinPriorPrecision) {
    tilted_precision = 1.0 / v + eta / delta * (kMinPriorPrecision - tau);
    d_tau = kMinPriorPrecision - tau;
  }
  const double d_nu = delta / eta * (tilted_precision * tilted_mean - m / v);
  tau += d_tau;
  nu += d_nu;
}

// Appendix F for the ARD input-weight prior sites (w_kl, phi_l), sequential, to convergence.
// Returns the last iteration's largest tilted-marginal inconsistency.
double Trainer::input_prior_ep(uint32_t iterations) {
  const double eta = opt_.prior_eta, delta = opt_.prior_damping;
  double largest = 0.0;
  for (uint32_t iteration = 0; iteration < iterations; ++iteration) {
    largest = 0.0;
    for (size_t k = 0; k < k_; ++k) {
      double* cov = &w_cov_[k * d_ * d_];
      for (size_t l = 0; l < d_; ++l) {
        const size_t j = k * d_ + l;
        const double v = cov[l * d_ + l], m = w_mean_[j];
        const Gaussian1 cw = cavity(m, v, tau_w_[j], nu_w_[j], eta);
        const size_t group = group_of(l);
        const double phi_p = phi_precision(group), phi_s = phi_shift(group);
        const double cp = phi_p - eta * tau_phi_[j];
        if (!cw.valid || !(cp > 0.0)) continue;
        const PriorTilted t = input_prior_tilted(cw.mean, cw.variance,
                                                 (phi_s - eta * nu_phi_[j]) / cp, 1.0 / cp, eta);
        if (!(t.w_variance > 0.0) || !(t.phi_variance > 0.0)) continue;
        largest =
            std::max(largest, math::sqrt((t.w_mean - m) * (t.w_mean - m) / v) +
                                  (t.w_variance > v ? t.w_variance / v - 1 : 1 - t.w_variance / v));
        const double old_tau = tau_w_[j], old_nu = nu_w_[j];
        apply_prior_site(tau_w_[j], nu_w_[j], m, v, t.w_mean, t.w_variance, eta, delta);
        const double d_tau = tau_w_[j] - old_tau, d_nu = nu_w_[j] - old_nu;
        const double s = 1.0 + d_tau * v;
        if (!(s > 1e-6)) {
          tau_w_[j] = old_tau;
          nu_w_[j] = old_nu;
          continue;
        }
        std::vector<double> column(d_);  // Sigma e_l
        for (size_t a = 0; a < d_; ++a) column[a] = cov[a * d_ + l];
        for (size_t a = 0; a < d_; ++a) {
          w_mean_[k * d_ + a] += column[a] * (d_nu - d_tau * m) / s;
          for (size_t b = 0; b < d_; ++b) cov[a * d_ + b] -= column[a] * column[b] * d_tau / s;
        }
        const double d_tau_phi = delta / eta * (1.0 / t.phi_variance - phi_p);
        const double d_nu_phi = delta / eta * (t.phi_mean / t.phi_variance - phi_s);
        if (phi_p + d_tau_phi > 0.0) {
          tau_phi_[j] += d_tau_phi;
          nu_phi_[j] += d_nu_phi;
        }
      }
    }
    if (largest < opt_.tolerance) break;
  }
  for (size_t k = 0; k < k_; ++k) recompute_w(k);
  return largest;
}

}  // namespace pbp::trainer::batch_ep::detail
