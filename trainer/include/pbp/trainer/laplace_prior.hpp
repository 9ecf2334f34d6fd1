// SPDX-License-Identifier: Apache-2.0
// The sparsity-promoting Laplace prior on layer 0's input weights with one common unknown scale
// (PriorMode::laplace; Jylanki, Nummenmaa & Vehtari 2014, section 2.1 and appendix F): every
// input weight w_j has the exact prior term L(w_j | 0, b(phi)) = exp(-|w_j| / b) / (2 b), whose
// variance 2 b^2 = exp(phi) is shared, and phi has the Gaussian hyperprior N(mu_0, sigma_0^2).
// EP approximates each term by a Gaussian site in w_j (PriorFactor's Gaussian part) times a
// Gaussian site in phi (LaplaceSite), so q(phi) = N(phi | mean, variance) is learned from every
// input weight at once. This is the paper's hierarchical form: the log-variance phi keeps every
// site Gaussian (the paper's reason), and its tilted moments are one-dimensional integrals over
// phi of closed-form conditional moments in w (eqs. 27-28), which we take by quadrature.
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/trainer/model.hpp"
#include "pbp/trainer/prior.hpp"

namespace pbp::trainer {

// Normaliser and first two moments of a tilted distribution.
struct TiltedMoments {
  double log_z = 0.0;
  double mean = 0.0;
  double variance = 0.0;
};

// N(w | m, v) L(w | 0, b), v > 0, b > 0: log Z, mean and variance in closed form. Each half line
// is a truncated Gaussian: Z = exp(-u^2/2) / (2b) [Phi~(u - r) + Phi~(-u - r)] with u = m / sqrt v,
// r = sqrt v / b and Phi~(x) = exp(x^2/2) Phi(x), summed in log space; the moments use the
// truncated Gaussian's pdf/cdf ratio, and its deep tail (x < -8) a continued fraction, so that
// neither the mean nor the variance cancels when sqrt(v) / b or |m| / sqrt(v) is large.
TiltedMoments laplace_tilted(double cavity_mean, double cavity_variance, double scale);

// The joint tilted distribution N(w | m, v) N(phi | mu, s2) L(w | 0, b(phi)), b = exp(phi/2)/sqrt
// 2: log Z and the marginal moments of w and phi, by trapezoidal quadrature over phi (exponentially
// accurate for this smooth integrand), placed on the tilted density itself in up to three passes:
// the first grid spans the cavity's +-10 sd, the next the previous pass's +-10 sd of the tilted
// (41 nodes each), until the tilted's mean and sd are those the grid was placed with.
// ok = false if the tilted has mass at the last grid's ends (the grid did not hold it) or a moment
// is not finite and positive where it must be.
struct ScaleTiltedMoments {
  bool ok = false;
  TiltedMoments w;
  LaplaceScale phi;
};
ScaleTiltedMoments laplace_scale_tilted(double cavity_mean, double cavity_variance,
                                        const LaplaceScale& cavity_phi);

// A Gaussian site in phi in natural parameters (mean / variance, 1 / variance), so that removing
// it from q(phi) is a subtraction; its precision may be negative, as EP's sites may.
struct LaplaceSite {
  double mean_times_precision = 0.0;
  double precision = 0.0;
};

// The hierarchical Laplace prior's state during training. The hyperprior is centred on the shared
// Gaussian prior's variance, so the Laplace weights start exactly as every other weight (PBP's
// pre-activations are divided by sqrt(inputs + 1), which makes unit-scale weights the right start;
// the paper's mu_0 = 2 log 0.01 is for its unscaled inputs). Its variance 1.5^2 is the paper's
// sigma_0^2 (its first example, section 5): enough to move the variance 10-fold either way.
struct LaplacePrior {
  LaplaceScale hyperprior;
  LaplaceScale q;                  // q(phi): the hyperprior times every site
  std::vector<LaplaceSite> sites;  // one per layer-0 input weight (row-major, bias left out)
};
inline constexpr double kLaplaceHyperpriorVariance = 1.5 * 1.5;

// The prior with phi's hyperprior mean at log(initial_variance), no site yet (q = hyperprior),
// for a first layer `first`.
LaplacePrior initial_laplace_prior(const Layer& first, double initial_variance);

// Refines one weight's Laplace term: the cavities of its w-site (`factor`'s Gaussian part, with
// FactorStart's start tilt as refine_prior_factor keeps it) and of its phi-site, the joint tilted
// moments, the new sites (damped unless damping is 1), then q(w) = (mean, variance) and q(phi).
// Returns false and changes nothing when a cavity is improper (v_cav <= 0 or >= 1e6, a phi
// variance <= 0 or >= 1e4) or the tilted moments are unusable.
bool refine_laplace_factor(double& mean, double& variance, LaplaceScale& q, PriorFactor& factor,
                           LaplaceSite& site, double damping);

// One EP sweep over layer 0's input weights (not its bias column), row by row, q(phi) updated
// after each. Adds to `result` what it attempted and skipped.
void refine_laplace_prior(Layer& first, std::vector<PriorFactor>& first_factors,
                          LaplacePrior& prior, double damping, PriorRefinement& result);

}  // namespace pbp::trainer
