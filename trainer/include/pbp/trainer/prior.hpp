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
};

// One factor per weight, laid out like Layer::mean.
using PriorFactors = std::vector<std::vector<PriorFactor>>;

// Which prior Gamma each weight's factor belongs to: a group index per weight, laid out like
// Layer::mean, each below `count`.
struct PriorGroups {
  uint32_t count = 1;
  std::vector<std::vector<uint32_t>> of_weight;
};

// Every weight in group 0: the paper's one shared prior precision.
PriorGroups shared_prior_groups(const std::vector<Layer>& layers);

// ARD: column c of layer 0 (input c's weight into every hidden unit) in group 1 + c, layer 0's
// bias column in group 1 + inputs, every deeper weight in the shared group 0.
PriorGroups input_prior_groups(const std::vector<Layer>& layers);

// Where the factors' means start: at 0, as the reference starts them (PBP's perturbation of the
// weight means is slight and stays out of the factors), or at each weight's initial mean, so
// that q starts as the product of the factors and every later cavity q / factor holds only what
// the data added. With zero-mean factors the cavity credits the data with the start, amplified by
// v0 / (v0 - v): about 40 for a first-layer weight of a 784-input network after an epoch, which
// turns unit-scale starting means into a prior variance that grows without bound (digits: prior
// b not finite).
enum class FactorStart { zero_mean, initial_means };

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
// variance that is not positive and finite, or a prior Gamma with a <= 1).
bool refine_prior_factor(double& mean, double& variance, Gamma& prior, PriorFactor& factor,
                         double damping = kUndamped);

struct PriorRefinement {
  uint64_t attempted = 0;
  uint64_t skipped = 0;
};

// One EP sweep over every weight's factor, in layer/row/column order, the weight's group Gamma
// priors[groups.of_weight[l][i]] updated after each weight (as the reference does with its one).
// `priors` has groups.count Gammas; damping in (0, 1].
PriorRefinement refine_prior(std::vector<Layer>& layers, std::span<Gamma> priors,
                             const PriorGroups& groups, PriorFactors& factors,
                             double damping = kUndamped);

}  // namespace pbp::trainer
