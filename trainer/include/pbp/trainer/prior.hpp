// SPDX-License-Identifier: Apache-2.0
// EP refinement of the approximate prior factors (PBP supplement, section 6): after every ADF
// pass, each weight's factor N(w | 0, 1/lambda) is removed from q, re-matched and put back.
// Every weight's precision lambda belongs to a group with its own Gamma: one group is PBP's
// shared prior; one group per input (ARD, Jylanki et al. 2014, section 2.1) adds input relevance.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// One approximate factor N(w | .) Gamma(lambda | .) in natural parameters, so that removing it
// from q (the cavity) is a subtraction.
struct PriorFactor {
  double mean_times_precision = 0.0;  // m~ / v~
  double precision = 0.0;             // 1 / v~
  double a = 0.0;                     // Gamma shape minus its uniform value
  double b = 0.0;                     // Gamma rate
  // FactorStart::start_site: the start's linear tilt m0 / v0, carried in mean_times_precision
  // (so no cavity holds it) and put back into q after every re-match (so q keeps it).
  double start_tilt = 0.0;
};

// One factor per weight, laid out like Layer::mean.
using PriorFactors = std::vector<std::vector<PriorFactor>>;

// Which prior Gamma each weight's factor belongs to: a group index per weight, laid out like
// Layer::mean, each below `count`.
struct PriorGroups {
  uint32_t count = 1;
  std::vector<std::vector<uint32_t>> of_weight;
};

// The group of a weight whose prior is not a Gaussian with a Gamma precision (the Laplace
// input prior, laplace_prior.hpp): refine_prior leaves its factor alone.
inline constexpr uint32_t kNotGaussianPrior = UINT32_MAX;

// Every weight in group 0: the paper's one shared prior precision.
PriorGroups shared_prior_groups(const std::vector<Layer>& layers);

// ARD: column c of layer 0 (input c's weight into every hidden unit) in group 1 + c, layer 0's
// bias column in group 1 + inputs, every deeper weight in the shared group 0.
PriorGroups input_prior_groups(const std::vector<Layer>& layers);

// The Laplace input prior: layer 0's input weights kNotGaussianPrior, its bias column and every
// deeper weight in the shared group 0.
PriorGroups laplace_prior_groups(const std::vector<Layer>& layers);

// Where the factors' means start. q starts as N(m0, v0): the prior's variance v0 = b/(a-1) and a
// random mean m0 that breaks the hidden units' symmetry.
// - zero_mean, as the reference starts them (PBP's perturbation of the weight means is slight and
//   stays out of the factors). Then q / factor - the cavity, what the data is credited with -
//   holds the start's tilt m0 / v0 with almost no precision, so its mean is the start amplified
//   by v_cav / v0 = 1 / (1 - v / v0), large wherever the data has hardly shrunk v. On small
//   training sets one epoch shrinks v by a few percent: the amplification is ~50 (Boston, 46
//   rows) against ~5 on the full 455, every first-layer cavity claims a weight of ~10-30, the
//   shared Gamma matches a prior variance of hundreds in the first sweep, and the wider prior
//   lets later cavities grow further until b overflows float32 or the predictive variance
//   drives the noise Gamma's a below 1 (issue 12, part 5). The same amplification turns
//   unit-scale starting means into an unbounded prior variance (digits).
// - initial_means: the factors start at m0, so q starts as the product of the factors and every
//   cavity holds only what the data added; the first re-match drops the start from q.
// - start_site: the start is a site of its own, neither data nor prior: out of every cavity (as
//   initial_means) and kept in q after each re-match (as the reference keeps it, so the units
//   stay apart). The prior Gamma then learns from what the data added alone.
enum class FactorStart { zero_mean, initial_means, start_site };

// The factors with precision (a-1)/b of the prior Gamma, Gamma parts 0 (the Gamma prior itself is
// already in q), and means as `start` says.
PriorFactors initial_prior_factors(const std::vector<Layer>& layers, const Gamma& prior,
                                   FactorStart start = FactorStart::zero_mean);

// Damping of the factor updates (Jylanki et al. 2014, section 3.2.1): the factor's natural
// parameters move to damping * matched + (1 - damping) * old. PBP's reference does not damp its
// shared prior (1). With one Gamma per input, undamped updates oscillate and let a few hidden
// units move their scale into layer 0 (ReLU is scale-free, layers 0 and 1 have separate Gammas),
// which inflates those inputs' Gammas without bound; the paper damps its prior terms by 0.5-0.7.
inline constexpr double kUndamped = 1.0;
inline constexpr double kArdDamping = 0.5;

// Refines one factor: cavity, moment match of the cavity times N(w | 0, 1/lambda) with Z from
// eq. 11, new factor (damped unless damping is 1). Updates the weight's (m, v) and its group's
// prior Gamma. Returns false (and changes nothing) when the cavity is not a proper distribution:
// v_cav <= 0 or >= 1e6, b_cav <= 0 or a_cav <= 1, or when the matched moments are unusable (a
// variance that is not positive and finite, or a prior Gamma with a <= 1 or b/(a-1) >= 1e6).
bool refine_prior_factor(double& mean, double& variance, Gamma& prior, PriorFactor& factor,
                         double damping = kUndamped);

struct PriorRefinement {
  uint64_t attempted = 0;
  uint64_t skipped = 0;
};

// One EP sweep over every weight's factor, in layer/row/column order, the weight's group Gamma
// priors[groups.of_weight[l][i]] updated after each weight (as the reference does with its one);
// weights in kNotGaussianPrior are neither refined nor counted.
// `priors` has groups.count Gammas; damping in (0, 1].
PriorRefinement refine_prior(std::vector<Layer>& layers, std::span<Gamma> priors,
                             const PriorGroups& groups, PriorFactors& factors,
                             double damping = kUndamped);

}  // namespace pbp::trainer
