// SPDX-License-Identifier: Apache-2.0
// How a regression model's size, training length and noise level are chosen.
//
// `paper`: PBP as published (Hernandez-Lobato & Adams 2015): the given network (default 1 x 50)
// trained for the given epochs (default 40) by ADF, the noise Gamma learnt along the way.
// `automatic` (the default for regression): every choice made from the training rows alone.
// A seeded part of them is held out (3 folds, pooled, below 600 rows; one fifth above); the
// candidate networks are trained on the rest, scored on the held-out rows after 10, 20, 40, 80,
// ... epochs with the noise variance that fits those rows best (noise_calibration.hpp), and the
// best (network, epochs) is trained again on every row (with one held-out fifth, below 5 000 rows:
// going on from its search model for a fifth of its epochs), each epoch's model the average of the
// posterior over its updates (iterate_average.hpp). Its noise is the calibrated one. The search is
// a race: a candidate whose held-out rows are below another's beyond three standard errors is
// trained no further, in this fold or the next (recipe_search.cpp). With options.threads 2, a
// fold's candidates train two at once, and the final training beside the distance fit's folds
// (independent_tasks.hpp): the same bits as on one thread.
// Measured on the UCI benchmark's 20 splits (tools/bench/RESULTS.md, tools/bench/uci.sh).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {

enum class Recipe : uint32_t { automatic = 0, paper = 1 };

// What `automatic` chooses among. The defaults: 1 x 50 and 2 x 50, up to 200 epochs.
// `likelihoods`: raced when the options leave the likelihood automatic (an option naming one
// trains that one alone). Each candidate is calibrated on the held-out rows: a heteroscedastic
// one by a factor on its own noise, a floor added to it and the epistemic scale (noise_calibration
// .hpp), and it wins only where the best Gaussian candidate's rows are below it beyond three
// standard errors. Gaussian alone by default: a heteroscedastic model's log noise extrapolates
// linearly away from the data (predictions far outside the training ranges overflow), its int8
// form moves further from the float32 one, and `pbp learn` does not take it (tests/host/cli).
struct SearchSpace {
  std::vector<std::vector<uint32_t>> networks{{50}, {50, 50}};  // hidden widths
  std::vector<uint32_t> epochs{10, 20, 40, 80, 120, 160, 200};  // increasing
  std::vector<LikelihoodKind> likelihoods{LikelihoodKind::gaussian};
  // The chosen model's variance grows with the distance from the training values, its scale
  // fitted on held-out gap and tail folds (distance_variance.hpp).
  bool distance_variance = true;
};

struct RecipeChoice {
  std::vector<uint32_t> hidden;
  uint32_t epochs = 0;
  double held_out_loglik = 0.0;  // per row, standardised units, of the chosen candidate
  double noise_variance = 0.0;   // calibrated, standardised units (heteroscedastic: a factor)
  double epistemic_scale = 1.0;  // calibrated with it; carried over to a warm-started model
  size_t held_out_rows = 0;      // pooled over the folds
  size_t folds = 0;
  LikelihoodKind likelihood = LikelihoodKind::gaussian;
  double noise_floor = 0.0;  // heteroscedastic: added to every row's noise (noise_calibration.hpp)
  uint32_t tail_dof = 0;  // Gaussian: the predictive's Student-t dof, 0 for none (Model::tail_dof)
};

// Where training stands, for progress displays: the search's candidates (one network on one fold,
// trained to the longest epoch count) one after another, then the final training.
struct TrainProgress {
  uint64_t done = 0;               // epochs trained, over the whole recipe
  uint64_t total = 0;              // epochs planned (once the search has chosen: exactly)
  uint32_t candidate = 0;          // 1-based candidate in training; 0 in the final training
  uint32_t candidates = 0;         // every fold's networks; 0 for `paper` and other tasks
  uint32_t epoch = 0, epochs = 0;  // within the training under way
};

// Held-out folds for `rows` training rows: 3 (pooled) below 600 rows, else 1 (a fifth held out).
size_t selection_folds(size_t rows);

// The epistemic scale `scale`, fitted to `searched`'s variances on held-out rows, carried over to
// `final_model`, which went on from it over every row (ADF's over-counting shrinks the variances
// further): times the ratio of their summed epistemic variances on `rows`, rows both trained on
// (on the held-out rows the final model, which has seen them, would also report how much nearer
// they are to its data). Rounded to float32 and kept within the blob's [2^-10, 2^10]; `scale`
// itself if either sum is zero or not finite. Measured: tools/bench/RESULTS.md.
double carried_epistemic_scale(double scale, const Model& searched, const Model& final_model,
                               const Dataset& rows);

// Trains by `recipe`: `paper` is train(data, options) itself; `automatic` (the regression
// likelihoods only: other tasks and likelihoods train as `paper`) searches `space` with
// options' other settings, and options.on_epoch sees the final training's epochs with the
// calibrated noise. `progress` (may be empty) is called after every epoch of the search and of the
// final training; `report` (may be null) gets the final training's report. Deterministic.
Model train_with_recipe(const Dataset& data, const TrainOptions& options, Recipe recipe,
                        const SearchSpace& space = {}, RecipeChoice* choice = nullptr,
                        const std::function<void(const TrainProgress&)>& progress = {},
                        TrainReport* report = nullptr);

}  // namespace pbp::trainer
