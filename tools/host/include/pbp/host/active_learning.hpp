// SPDX-License-Identifier: Apache-2.0
// Active learning as in the PBP paper's section 5.4: each repeat splits the data at random into
// a small training set, a test set and a pool; the model is trained from scratch, tested, and
// one pool point at a time (by the strategy: see Strategy) moves to the training set, followed by
// retraining and testing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pbp/host/progress.hpp"
#include "pbp/host/training.hpp"
#include "pbp/trainer/batch_ep.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::host {

// Which pool row a round adds:
//   variance:           the row of highest predictive variance (the paper's choice);
//   variance_reduction: the row whose label would most reduce the pool's summed predictive
//                       variance (variance_reduction.hpp);
//   random:             one uniformly at random.
//   density_variance:   the row of highest epistemic variance times pool density
//   (pool_density.hpp); density_reduction:  the row of largest variance reduction times pool
//   density.
enum class Strategy { variance, variance_reduction, random, density_variance, density_reduction };

const char* strategy_name(Strategy strategy);  // "variance", "variance-reduction", "random"
std::optional<Strategy> parse_strategy(const std::string& name);
// A --strategy value: one name, "both" (variance and random), "all" (the three), or names
// separated by commas, each at most once. nullopt if anything else.
std::optional<std::vector<Strategy>> parse_strategies(const std::string& text);

// The learner: PBP (through a blob and the runtime, as a device runs it), or the batch EP
// comparator of the paper's Table 2 (trainer/include/pbp/trainer/batch_ep.hpp, host only).
enum class Method { pbp, ep };

const char* method_name(Method method);
std::optional<Method> parse_method(const std::string& name);

// The density strategies' default kernel width, in units of Scott's bandwidth: chosen once for
// every data set by the development protocol (score_on_pool), never on test rows
// (tools/bench/RESULTS.md, active learning).
inline constexpr double kDefaultDensityWidth = 3.0;

struct ActivePlan {
  size_t initial = 20;  // training rows before the first addition
  size_t test = 100;
  size_t rounds = 9;  // additions; the test set is evaluated rounds + 1 times
  size_t repeats = 40;
  uint64_t seed = 1;  // every repeat's split, training and random picks derive from it
  std::vector<Strategy> strategies;  // each sees the same splits, training seeds and pool order
  std::vector<Method> methods{Method::pbp};  // each sees the same splits and seeds too
  trainer::batch_ep::InputPrior ep_prior = trainer::batch_ep::InputPrior::ard;
  // Score on `test` rows taken from the pool and leave the split's test rows out altogether:
  // the development protocol, for choosing a strategy's settings without the test rows.
  bool score_on_pool = false;
  // The density strategies' kernel width in units of Scott's bandwidth (pool_density.hpp).
  double density_width = kDefaultDensityWidth;
};

// The rows a plan needs: initial + test + rounds, and test again with score_on_pool.
inline size_t rows_needed(const ActivePlan& plan) {
  return plan.initial + (plan.score_on_pool ? 2 : 1) * plan.test + plan.rounds;
}

// One repeat of one strategy: test figures before the first addition and after each.
struct ActiveRun {
  std::vector<double> rmse;    // rounds + 1 values, in original target units
  std::vector<double> loglik;  // mean test log-likelihood, rounds + 1 values
  std::vector<size_t> picks;   // the data rows added, in order (rounds values)
  double seconds = 0.0;        // wall time of this run's rounds + 1 trainings and evaluations
};

// Runs every repeat of every method and strategy (repeats spread over `jobs` threads; `progress`
// counts repeats). Returns runs[method][strategy][repeat]. Regression only; data.rows >=
// rows_needed(plan) and initial >= 2 (std::invalid_argument otherwise). Deterministic for a plan.
std::vector<std::vector<std::vector<ActiveRun>>> run_active_learning(
    const trainer::Dataset& data, const ActivePlan& plan, const trainer::TrainOptions& options,
    const RecipeSettings& recipe, size_t jobs, const Progress& progress);

}  // namespace pbp::host
