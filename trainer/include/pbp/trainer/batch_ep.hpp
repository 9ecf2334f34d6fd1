// SPDX-License-Identifier: Apache-2.0
// The batch EP comparator of the PBP paper's active-learning table (EP-A, EP-R): Jylanki,
// Nummenmaa & Vehtari (JMLR 2014), "Expectation propagation for neural networks with
// sparsity-promoting priors", for one hidden layer of K probit units
//   f(x) = sum_k v_k g(w_k^T [x, 1]) + v_0,   g(h) = (2 / sqrt K) (Phi(h) - 1/2)   (their eqs. 1-2)
// and y ~ N(f, exp(theta)). The approximation factorises over q(w_1) .. q(w_K), q(v), q(theta) and
// the ARD scales q(phi_l) (one per input column and one for the input bias, their section 4.4's
// NN-EP-ARD): Gaussian priors w_kl ~ N(0, exp(phi_l)), phi_l ~ N(2 log 0.01, 2.5^2); the output
// weights v_k >= 0 get a half Student-t_4(0, 1) prior, v_0 ~ N(0, 1), theta ~ N(2 log 0.01, 2^2).
// Data are standardised on the training rows. A host-only comparator: it is never exported to
// the runtime nor written to a blob. See batch_ep.cpp for the schedule and the equations used.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pbp/trainer/dataset.hpp"

namespace pbp::trainer::batch_ep {

// The input-weight prior: Gaussian N(0, exp(phi_l)) with one learned log-variance phi_l per input
// column and one for the bias (ARD, their NN-EP-ARD), or one phi for every input weight
// (common), or the initial fixed N(0, 0.5) sites kept throughout (fixed, no scale learned).
enum class InputPrior { ard, common, fixed };

struct Options {
  uint32_t hidden = 10;  // K
  uint64_t seed = 1;     // the random initial input-bias site means (symmetry breaking)
  // Fractions (power EP) and damping, their section 3.5: likelihood sites eta = 0.95, the input
  // weight sites damped by 0.7 (sequential updates), the output weight sites by 0.2 (parallel).
  double eta = 0.95;
  double damping_hidden = 0.7;
  double damping_output = 0.2;
  double damping_noise = 0.5;
  double prior_eta = 0.8, prior_damping = 0.6;  // prior-term EP (their 0.7-0.9 and 0.5-0.7)
  uint32_t fixed_noise_sweeps = 15;  // sweeps with theta fixed at log 0.3^2 (their section 3.5.3)
  uint32_t sweeps_before_ard = 40;   // likelihood sweeps before the ARD prior sites are run
  uint32_t max_sweeps = 150;         // in all
  double tolerance = 1e-4;           // stop when no activation mean or variance moves more
  InputPrior input_prior = InputPrior::ard;
  // After the first prior run to convergence, one more prior iteration after every likelihood
  // sweep (their section 3.5.6, scheme 2) rather than none (scheme 1).
  bool prior_every_sweep = false;
};

// Predictive distribution of y in the data's units: Gaussian with the latent moments of their
// eq. 68 (appendix H) and the expected noise variance E[exp theta].
struct Prediction {
  double mean = 0.0;
  double latent_variance = 0.0;
  double noise_variance = 0.0;
  double variance() const { return latent_variance + noise_variance; }
};

struct Report {
  uint32_t sweeps = 0;
  bool converged = false;
  uint64_t hidden_updates_skipped = 0;  // input-weight site updates refused (improper tilted)
  double largest_change = 0.0;          // of the last sweep
};

// A trained approximation. Every array in standardised units (see Model::predict).
struct Model {
  size_t inputs = 0;  // d, without the bias
  uint32_t hidden = 0;
  std::vector<double> input_mean, input_scale;  // standardisation of x
  double target_mean = 0.0, target_scale = 1.0;
  std::vector<double> w_mean;                     // K x (d+1): mean of q(w_k), bias last
  std::vector<double> w_covariance;               // K x (d+1) x (d+1)
  std::vector<double> v_mean;                     // K+1: q(v), v_0 last
  std::vector<double> v_covariance;               // (K+1) x (K+1)
  double theta_mean = 0.0, theta_variance = 0.0;  // q(theta), theta = log noise variance
  std::vector<double> phi_mean, phi_variance;     // q(phi_l), d+1 groups (bias last)

  Prediction predict(std::span<const double> x) const;
};

// Trains on `data` (regression, at least 2 rows). Deterministic for the same data and options.
// Throws std::invalid_argument for bad options or data.
Model train(const Dataset& data, const Options& options, Report* report = nullptr);

// --- The equations, exposed for the tests (tests/host/batch_ep). ---

// Mean and variance of g(h) = (2/sqrt K)(Phi(h) - 1/2) for h ~ N(m, V), V >= 0 (appendix B):
//   E g = (2/sqrt K)(Phi(m / sqrt(1 + V)) - 1/2),
//   Var g = (4/K) (1/pi) int_b^1 exp(-a^2 (1 + t^2) / 2) / (1 + t^2) dt,
// a = m / sqrt(1 + V), b = 1 / sqrt(1 + 2 V) (Owen's T: Var Phi(h) = 2 [T(a, 1) - T(a, b)]).
struct Moments {
  double mean = 0.0, variance = 0.0;
};
Moments activation_moments(double m, double v, uint32_t hidden);
double activation(double h, uint32_t hidden);

// Mean and variance of the density proportional to exp(log_density(x)) on [lower, upper],
// by Simpson's rule on `points` (odd) equally spaced nodes; log of the integral in log_mass.
// NaN mean and variance (log_mass -inf) if the range is empty or not finite, or the density
// vanishes or is NaN on every node.
struct QuadratureMoments {
  double log_mass = 0.0, mean = 0.0, variance = 0.0;
};
template <class LogDensity>
QuadratureMoments quadrature_moments(double lower, double upper, size_t points,
                                     const LogDensity& log_density);

// The cavity of one likelihood site i seen by the output layer: q_-i(v) = N(mean, covariance)
// and the cavity activation moments m_g, V_g (K+1 each, the bias's last: 1 and 0).
struct OutputCavity {
  std::vector<double> mean, covariance, g_mean, g_variance;
};

// Eq. 46: mean and variance of f = v^T g(h) under the factorised cavity, and Sigma_-i m_g.
struct LatentMoments {
  double mean = 0.0, variance = 0.0;
  std::vector<double> covariance_v_f;  // Cov(v, f) = Sigma_-i m_g
};
LatentMoments latent_moments(const OutputCavity& cavity);

// Eq. 54 (eq. 49 with theta at noise_variance = exp(theta)): the tilted mean and variance of
// h_k ~ N(m, V) times N(y | m_f(h_k), V_f(h_k) + noise_variance / eta), where m_f(h_k), V_f(h_k)
// are eq. 46 with the k-th activation fixed at g(h_k).
QuadratureMoments hidden_tilted(const OutputCavity& cavity, const LatentMoments& latent, size_t k,
                                double m, double v, double y, double noise_variance, double eta);

// Eq. 50: the tilted distribution of theta ~ N(m, V) times
// Z(theta) N(y | m_f, V_f + exp(theta)/eta), Z(theta) = (2 pi exp theta)^((1-eta)/2) eta^(-1/2),
// with E and Var of 1 / (V_f + exp(theta)/eta) under it (eqs. 51-52).
struct NoiseTilted {
  QuadratureMoments theta;
  double precision_mean = 0.0, precision_variance = 0.0;
};
NoiseTilted noise_tilted(double latent_mean, double latent_variance, double y, double m, double v,
                         double eta);

// Tilted moments of v ~ N(m, V) times p(v)^eta, p the half Student-t_4(0, 1) on v >= 0 (eq. 5).
QuadratureMoments output_prior_tilted(double m, double v, double eta);

// Tilted moments of (w, phi) ~ N(w | m_w, V_w) N(phi | m_phi, V_phi) N(w | 0, exp phi)^eta,
// as factorised Gaussians (eqs. 27-28 with the Gaussian ARD prior).
struct PriorTilted {
  double w_mean = 0.0, w_variance = 0.0, phi_mean = 0.0, phi_variance = 0.0, log_mass = 0.0;
};
PriorTilted input_prior_tilted(double m_w, double v_w, double m_phi, double v_phi, double eta);

}  // namespace pbp::trainer::batch_ep

#include "pbp/trainer/batch_ep_quadrature.hpp"
