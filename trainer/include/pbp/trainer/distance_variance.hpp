// SPDX-License-Identifier: Apache-2.0
// The automatic recipe's distance variance (runtime/core/pbp/data_distance.hpp): a regression
// prediction's epistemic variance grows by (A target_std d)^2, d the input row's distance from the
// training values in training stds, A fitted from the training rows alone. For each input, its gap
// fold (the middle third of the rows ranked by it) and its tail fold (its top and bottom tenth) are
// held out, a cheap model trained on the rest (the chosen network's first hidden layer alone, at
// most 40 epochs), and A is the value of a grid with the best held-out log-likelihood (mean over
// the folds) under the recipe's noise and epistemic scale. The pair variance's A2 (unseen
// combinations of inputs) is fitted next on the same folds, A held at its value.
// Measured against a per-fold recipe and on the UCI gap and tail splits: tools/bench/RESULTS.md.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {

// The grid A is chosen from: 0 (no term) up to 4 target stds per training std of distance.
inline constexpr double kDistanceScales[] = {0, 0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4};
// The grid A2 is chosen from: 0 (no term) up to 8 target stds at f = 1 (every pair unseen).
inline constexpr double kPairScales[] = {0, 0.25, 0.5, 1, 2, 4, 8};

// Whether a model of `inputs` inputs can have the pair variance: 2 .. kMaxInputs inputs.
bool pair_variance_fits(size_t inputs);

// Each input's occupancy bitmap (format::input_occupancy_section) of `data`'s rows over the ranges
// of `s` rounded to float32, as the blob holds them.
std::vector<uint32_t> input_occupancy(const Dataset& data, const Standardisation& s);
// Each input pair's grid (format::input_pair_occupancy_section) of `data`'s rows, likewise.
std::vector<uint32_t> input_pair_occupancy(const Dataset& data, const Standardisation& s);
// Row x's pair novelty f over `grids` (input_pair_occupancy's), binned in float as the runtime
// bins it: a value on a bin's edge (common in data on a grid of values) falls in the same cell in
// the trainer, the occupancy and on the device.
double pair_novelty(std::span<const double> x, const Standardisation& s, const uint32_t* grids);

struct DistanceScaleFit {
  double scale = 0.0;
  double pair_scale = 0.0;
  double held_out_loglik = 0.0;  // per row, target units, mean over the folds, at both scales
  size_t folds = 0;
};

// One fold's held-out rows: targets, the fold model's predictive without the terms, distances
// and pair novelties (empty: the inputs do not fit the pair variance).
struct DistanceFoldScore {
  std::vector<double> error_squared, variance, distance, novelty;
  double target_std = 1.0;
  uint32_t tail_dof = 0;                                 // the predictive's shape (Model::tail_dof)
  double loglik(double scale, double pair_scale) const;  // mean per row, with the terms
};

// fit_distance_scale's folds, one training each, for a caller that runs them beside other work
// (the recipe: beside its final training). score(i) trains and scores fold i and touches nothing
// else, so distinct folds may be scored on different threads at once; fit() once all are scored.
class DistanceFolds {
 public:
  // The cheap form of `chosen`; the folds scored with `noise`, `epistemic_scale` and the
  // predictive's `tail_dof`. `data` must outlive the folds.
  DistanceFolds(const Dataset& data, const TrainOptions& chosen, const Gamma& noise,
                double epistemic_scale, uint32_t tail_dof);
  size_t count() const { return folds_.size(); }
  void score(size_t fold, uint32_t threads);  // threads: TrainOptions::threads of its training
  DistanceScaleFit fit() const;

 private:
  struct Fold {
    std::vector<size_t> fit, held_out;  // rows of data_
  };
  const Dataset& data_;
  TrainOptions options_;
  Gamma noise_;
  double epistemic_scale_;
  uint32_t tail_dof_;
  std::vector<Fold> folds_;
  std::vector<DistanceFoldScore> scores_;
};

// A from `data`'s gap and tail folds: the cheap form of `chosen` (the recipe's final network,
// epochs and settings) trained on each fold's rest, scored with `model`'s noise Gamma and
// epistemic scale and predictive shape; two folds at once with chosen.threads 2.
DistanceScaleFit fit_distance_scale(const Dataset& data, const TrainOptions& chosen,
                                    const Model& model);

// `model` (trained on `data`) with the fitted A and A2 and `data`'s occupancy.
void add_distance_variance(Model& model, const Dataset& data, const TrainOptions& chosen);
// `model` (trained on `data`) with the terms at `fit`'s scales (none at 0) and `data`'s occupancy.
void set_distance_variance(Model& model, const Dataset& data, const DistanceScaleFit& fit);

}  // namespace pbp::trainer
