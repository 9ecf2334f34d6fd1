// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>

#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

constexpr size_t kFoldsBelow = 600;  // rows under which one held-out fifth is too few
constexpr size_t kSmallDataFolds = 5;

HeldOutResiduals residuals(const Model& model, const Dataset& rows) {
  HeldOutResiduals r;
  const double to_standard =
      1.0 / (model.standardisation.target_std * model.standardisation.target_std);
  for (size_t i = 0; i < rows.rows; ++i) {
    const Prediction p = predict(model, std::span<const double>(rows.row(i), rows.inputs));
    const double error = rows.y[i] - p.mean;
    r.squared_error.push_back(error * error * to_standard);
    r.epistemic.push_back(p.epistemic_variance * to_standard);
  }
  return r;
}

// Row indices of fold `f`'s training and held-out parts, from a seeded order of the rows.
std::pair<std::vector<size_t>, std::vector<size_t>> fold_rows(const std::vector<size_t>& order,
                                                              size_t folds, size_t f) {
  std::vector<size_t> fit, held_out;
  for (size_t i = 0; i < order.size(); ++i) {
    const bool held = folds == 1 ? i < order.size() / 5 : i % folds == f;
    (held ? held_out : fit).push_back(order[i]);
  }
  std::sort(fit.begin(), fit.end());
  std::sort(held_out.begin(), held_out.end());
  return {fit, held_out};
}

void check_space(const SearchSpace& space) {
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

// Whether the automatic search applies: it calibrates the Gaussian likelihood's shared noise, which
// a heteroscedastic model does not have (its g output carries the noise), so that trains as paper.
bool searched(const TrainOptions& options) {
  return options.task == Task::regression &&
         resolve_likelihood(options.likelihood, options.task) == LikelihoodKind::gaussian;
}

}  // namespace

size_t selection_folds(size_t rows) {
  return rows < kFoldsBelow ? kSmallDataFolds : 1;
}

Model train_with_recipe(const Dataset& data, const TrainOptions& options, Recipe recipe,
                        const SearchSpace& space, RecipeChoice* choice,
                        const std::function<void(const TrainProgress&)>& progress,
                        TrainReport* report) {
  if (recipe == Recipe::paper || !searched(options)) {
    TrainOptions o = options;
    o.on_epoch = [&](uint32_t done, uint32_t total, const Model& model) {
      if (options.on_epoch) options.on_epoch(done, total, model);
      if (progress) progress(TrainProgress{done, total, 0, 0, done, total});
    };
    return train(data, o, report);
  }
  check_space(space);
  const size_t folds = selection_folds(data.rows);
  if (data.rows < 2 * kSmallDataFolds) {
    throw std::invalid_argument("the automatic recipe needs at least " +
                                std::to_string(2 * kSmallDataFolds) +
                                " rows (--recipe paper trains on fewer)");
  }
  // Progress in epochs: every fold's candidates, then the final training (at most the longest
  // until the search has chosen).
  TrainProgress at;
  at.candidates = static_cast<uint32_t>(folds * space.networks.size());
  at.total = (uint64_t{at.candidates} + 1) * space.epochs.back();
  auto tick = [&](uint32_t epoch) {
    ++at.done;
    at.epoch = epoch;
    if (progress) progress(at);
  };
  std::vector<size_t> order(data.rows);
  std::iota(order.begin(), order.end(), size_t{0});
  Random(options.seed ^ 0x6F6C646F7574ull).shuffle(order);  // its own stream: "holdout"

  // pooled[network][checkpoint]: every fold's held-out rows at that many epochs.
  std::vector<std::vector<HeldOutResiduals>> pooled(
      space.networks.size(), std::vector<HeldOutResiduals>(space.epochs.size()));
  for (size_t f = 0; f < folds; ++f) {
    const auto [fit_rows, held_out_rows] = fold_rows(order, folds, f);
    const Dataset fit = data.subset(fit_rows);
    const Dataset held_out = data.subset(held_out_rows);
    for (size_t k = 0; k < space.networks.size(); ++k) {
      TrainOptions o = options;
      o.hidden = space.networks[k];
      o.epochs = space.epochs.back();
      o.averaging = averaging(options);
      ++at.candidate;
      at.epochs = o.epochs;
      o.on_epoch = [&](uint32_t epoch, uint32_t, const Model& model) {
        tick(epoch);
        const auto at = std::find(space.epochs.begin(), space.epochs.end(), epoch);
        if (at != space.epochs.end()) {
          pooled[k][static_cast<size_t>(at - space.epochs.begin())].append(
              residuals(model, held_out));
        }
      };
      train(fit, o);
    }
  }

  RecipeChoice best;
  best.held_out_loglik = -INFINITY;
  for (size_t k = 0; k < space.networks.size(); ++k) {
    for (size_t c = 0; c < space.epochs.size(); ++c) {
      const PredictiveCalibration fit = calibrate_predictive(pooled[k][c]);
      if (fit.loglik > best.held_out_loglik) {
        best = {space.networks[k],   space.epochs[c],     fit.loglik, fit.noise_variance,
                fit.epistemic_scale, pooled[k][c].size(), folds};
      }
    }
  }
  if (!std::isfinite(best.held_out_loglik)) {
    throw std::runtime_error("no candidate of the automatic recipe fits the held-out rows");
  }

  TrainOptions o = options;
  o.hidden = best.hidden;
  o.epochs = best.epochs;
  o.averaging = averaging(options);
  // A Gamma whose b / (a - 1) is the calibrated variance, as sure as the rows it came from.
  const double rows = static_cast<double>(best.held_out_rows);
  const Gamma calibrated{1.0 + 0.5 * rows, best.noise_variance * 0.5 * rows};
  at.total = at.done + o.epochs;
  at.candidate = 0;
  at.epochs = o.epochs;
  o.on_epoch = [&](uint32_t epoch, uint32_t total, const Model& model) {
    tick(epoch);
    if (!options.on_epoch) return;
    Model with_noise = model;
    with_noise.noise = calibrated;
    with_noise.epistemic_scale = best.epistemic_scale;
    options.on_epoch(epoch, total, with_noise);
  };
  Model model = train(data, o, report);
  model.noise = calibrated;
  model.epistemic_scale = best.epistemic_scale;
  if (choice) *choice = best;
  return model;
}

}  // namespace pbp::trainer
