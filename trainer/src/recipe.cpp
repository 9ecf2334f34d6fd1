// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>

#include "pbp/trainer/distance_variance.hpp"
#include "pbp/trainer/independent_tasks.hpp"
#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"
#include "recipe_search.hpp"

namespace pbp::trainer {
namespace {

constexpr size_t kFoldsBelow = 600;  // rows under which one held-out fifth is too few
// Pooled folds below kFoldsBelow rows: 3 held every row out once as 5 did, within the standard
// error on Boston and yacht, at 40 % fewer rows trained (tools/bench/RESULTS.md).
constexpr size_t kSmallDataFolds = 3;
constexpr size_t kFewestRows = 10;  // the automatic recipe's minimum
// With one held-out fifth, the final model goes on from the chosen candidate's search model
// (trained on the other four fifths) for a fifth of its epochs over every row, instead of training
// again from a random start: energy's 20 splits LL -0.737 -> -0.734 (paired +0.004 +- 0.019) at 31
// % less CPU. Not with 3 folds, whose models saw two thirds of the rows: Boston -2.340 -> -2.421
// (paired -0.080 +- 0.025). Nor from kWarmStartFrom rows: kin8nm's splits 1-4 lost 0.024 +- 0.004
// (paired). tools/bench/RESULTS.md.
constexpr uint32_t kWarmEpochsDivisor = 5;
constexpr size_t kWarmStartFrom = 5000;

bool heteroscedastic(const Model& model) {
  return model.likelihood == LikelihoodKind::heteroscedastic;
}

void check_space(const SearchSpace& space) {
  for (const LikelihoodKind likelihood : space.likelihoods) {
    if (likelihood != LikelihoodKind::gaussian && likelihood != LikelihoodKind::heteroscedastic) {
      throw std::invalid_argument("the recipe races the gaussian and heteroscedastic likelihoods");
    }
  }
  if (space.networks.empty() || space.epochs.empty()) {
    throw std::invalid_argument("the recipe's search space is empty");
  }
  if (!std::is_sorted(space.epochs.begin(), space.epochs.end()) || space.epochs.front() == 0) {
    throw std::invalid_argument("the recipe's epochs must be positive and increasing");
  }
}

// Iterate averaging unless the options turn it off: measured better with the recipe (UCI, 1 x 50
// and 2 x 50: Boston LL -2.549 -> -2.522, yacht -1.325 -> -1.292, wine -0.961 -> -0.948).
IterateAveraging averaging(const TrainOptions& options) {
  return options.averaging == IterateAveraging::off ? IterateAveraging::off : IterateAveraging::on;
}

// The likelihoods the automatic search races: the space's unless the options name one; none
// (train as paper) for the other tasks.
std::vector<LikelihoodKind> searched_likelihoods(const TrainOptions& options,
                                                 const SearchSpace& space) {
  if (options.task != Task::regression) return {};
  if (options.likelihood == LikelihoodKind::automatic) {
    if (space.likelihoods.empty())
      throw std::invalid_argument("the recipe's search space is empty");
    return space.likelihoods;
  }
  if (options.likelihood == LikelihoodKind::gaussian ||
      options.likelihood == LikelihoodKind::heteroscedastic) {
    return {options.likelihood};
  }
  return {};
}

// The calibration on the model: a Gaussian model's noise Gamma (b / (a - 1) the calibrated
// variance, as sure as the held-out rows it came from); a heteroscedastic model's noise factor
// c as log c on g's output bias (its predictive noise e^(nu_g + psi_g / 2) times c), and its noise
// floor on f's bias variance (the runtime adds it to psi_f, which the epistemic scale s
// multiplies: floor / s). Both get the epistemic scale.
void apply_calibration(Model& model, const RecipeChoice& choice) {
  model.epistemic_scale = choice.epistemic_scale;
  if (!heteroscedastic(model)) {
    model.tail_dof = choice.tail_dof;
    const double rows = static_cast<double>(choice.held_out_rows);
    model.noise = Gamma{1.0 + 0.5 * rows, choice.noise_variance * 0.5 * rows};
    return;
  }
  // Rows f then g, each bias last; a layer's sums are scaled by 1 / sqrt(inputs + 1), their
  // variances by 1 / (inputs + 1) (pbp/moments.hpp).
  Layer& output = model.layers.back();
  const double n = static_cast<double>(output.row_length());
  output.mean[output.row_length() + output.inputs] +=
      std::log(choice.noise_variance) * std::sqrt(n);
  output.variance[output.inputs] += choice.noise_floor / choice.epistemic_scale * n;
}

}  // namespace

size_t selection_folds(size_t rows) {
  return rows < kFoldsBelow ? kSmallDataFolds : 1;
}

double carried_epistemic_scale(double scale, const Model& searched, const Model& final_model,
                               const Dataset& rows) {
  double before = 0.0, after = 0.0;
  for (size_t i = 0; i < rows.rows; ++i) {
    const std::span<const double> x(rows.row(i), rows.inputs);
    before += predict(searched, x).epistemic_variance;
    after += predict(final_model, x).epistemic_variance;
  }
  if (!(before > 0.0 && after > 0.0 && std::isfinite(before / after))) return scale;
  const double carried = static_cast<float>(scale * before / after);
  return std::clamp(carried, static_cast<double>(format::model_section::kMinEpistemicScale),
                    static_cast<double>(format::model_section::kMaxEpistemicScale));
}

Model train_with_recipe(const Dataset& data, const TrainOptions& options, Recipe recipe,
                        const SearchSpace& space, RecipeChoice* choice,
                        const std::function<void(const TrainProgress&)>& progress,
                        TrainReport* report) {
  const std::vector<LikelihoodKind> likelihoods = recipe == Recipe::paper
                                                      ? std::vector<LikelihoodKind>{}
                                                      : searched_likelihoods(options, space);
  if (likelihoods.empty()) {
    TrainOptions o = options;
    o.on_epoch = [&](uint32_t done, uint32_t total, const Model& model) {
      if (options.on_epoch) options.on_epoch(done, total, model);
      if (progress) progress(TrainProgress{done, total, 0, 0, done, total});
    };
    return train(data, o, report);
  }
  check_space(space);
  const size_t folds = selection_folds(data.rows);
  if (data.rows < kFewestRows) {
    throw std::invalid_argument("the automatic recipe needs at least " +
                                std::to_string(kFewestRows) +
                                " rows (--recipe paper trains on fewer)");
  }
  // Progress in epochs: every fold's candidates, then the final training (at most the longest
  // until the search has chosen).
  const auto candidates = static_cast<uint32_t>(folds * likelihoods.size() * space.networks.size());
  recipe_detail::ProgressRelay relay(progress, candidates,
                                     (uint64_t{candidates} + 1) * space.epochs.back());
  IndependentTasks tasks(options.threads);
  std::vector<size_t> order(data.rows);
  std::iota(order.begin(), order.end(), size_t{0});
  Random(options.seed ^ 0x6F6C646F7574ull).shuffle(order);  // its own stream: "holdout"
  // With one fold, the chosen candidate's search model: the final training's start.
  const bool warm_start = folds == 1 && data.rows < kWarmStartFrom;
  TrainOptions searching = options;
  searching.averaging = averaging(options);
  recipe_detail::SearchOutcome searched = recipe_detail::search_candidates(
      data, searching, likelihoods, space, order, folds, warm_start, tasks, relay);
  const RecipeChoice& best = searched.best;

  TrainOptions o = options;
  o.hidden = best.hidden;
  o.likelihood = best.likelihood;
  o.start = searched.start ? &*searched.start : nullptr;
  o.epochs = o.start ? std::max(1u, best.epochs / kWarmEpochsDivisor) : best.epochs;
  o.averaging = averaging(options);
  relay.plan_final(o.epochs);
  o.on_epoch = [&](uint32_t epoch, uint32_t total, const Model& model) {
    relay.tick(epoch, 0, total);
    if (!options.on_epoch) return;
    Model calibrated = model;
    apply_calibration(calibrated, best);
    options.on_epoch(epoch, total, calibrated);
  };
  // The distance variance's folds score a Gaussian noise (a heteroscedastic model has its own)
  // with the final calibration. Without a warm start the search fixed it, and they train beside
  // the final training; a warm start's epistemic scale is known only after it (carried over).
  const bool distance_wanted =
      space.distance_variance && best.likelihood != LikelihoodKind::heteroscedastic;
  std::optional<DistanceFolds> distance;
  if (distance_wanted && !o.start) {
    TrainOptions cheap = o;
    cheap.start = nullptr;
    Model calibrated;  // the search's calibration: its noise Gamma
    apply_calibration(calibrated, best);
    distance.emplace(data, cheap, calibrated.noise, best.epistemic_scale, best.tail_dof);
  }
  const size_t trainings = 1 + (distance ? distance->count() : 0);
  o.threads = tasks.threads_for(trainings) > 1 ? 1 : options.threads;
  o.stop_after = [&](uint32_t epoch) {
    return (options.stop_after && options.stop_after(epoch)) || tasks.abandoned();
  };
  Model model;
  tasks.run(
      trainings,
      [&](size_t t) {
        if (t == 0) {
          model = train(data, o, report);
        } else {
          distance->score(t - 1, o.threads);
        }
      },
      [&] { relay.report(); });
  RecipeChoice calibration = best;
  if (o.start) {
    const Dataset searched_rows = data.subset(recipe_detail::fold_rows(order, folds, 0).first);
    calibration.epistemic_scale =
        carried_epistemic_scale(best.epistemic_scale, *o.start, model, searched_rows);
  }
  apply_calibration(model, calibration);
  if (distance) {
    set_distance_variance(model, data, distance->fit());
  } else if (distance_wanted) {  // after a warm start: the folds alone, with the carried scale
    o.start = nullptr;
    add_distance_variance(model, data, o);
  }
  if (choice) *choice = calibration;
  return model;
}

}  // namespace pbp::trainer
