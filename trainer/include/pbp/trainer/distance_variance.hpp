// SPDX-License-Identifier: Apache-2.0
// The automatic recipe's distance variance (runtime/core/pbp/data_distance.hpp): a regression
// prediction's epistemic variance grows by (A target_std d)^2, d the input row's distance from the
// training values in training stds, A fitted from the training rows alone. For each input, its gap
// fold (the middle third of the rows ranked by it) and its tail fold (its top and bottom tenth) are
// held out, a cheap model trained on the rest (the chosen network's first hidden layer alone, at
// most 40 epochs), and A is the value of a grid with the best held-out log-likelihood (mean over
// the folds) under the recipe's noise and epistemic scale.
// Measured against a per-fold recipe and on the UCI gap and tail splits: tools/bench/RESULTS.md.
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {

// The grid A is chosen from: 0 (no term) up to 4 target stds per training std of distance.
inline constexpr double kDistanceScales[] = {0, 0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4};

// Each input's occupancy bitmap (format::input_occupancy_section) of `data`'s rows over the ranges
// of `s` rounded to float32, as the blob holds them.
std::vector<uint32_t> input_occupancy(const Dataset& data, const Standardisation& s);

struct DistanceScaleFit {
  double scale = 0.0;
  double held_out_loglik = 0.0;  // per row, target units, mean over the folds, at `scale`
  size_t folds = 0;
};

// One fold's held-out rows: targets, the fold model's predictive without the term, and distances.
struct DistanceFoldScore {
  std::vector<double> error_squared, variance, distance;
  double target_std = 1.0;
  double loglik(double scale) const;  // mean per row, with the term at `scale`
};

// fit_distance_scale's folds, one training each, for a caller that runs them beside other work
// (the recipe: beside its final training). score(i) trains and scores fold i and touches nothing
// else, so distinct folds may be scored on different threads at once; fit() once all are scored.
class DistanceFolds {
 public:
  // The cheap form of `chosen`; the folds scored with `noise` and `epistemic_scale`. `data` must
  // outlive the folds.
  DistanceFolds(const Dataset& data, const TrainOptions& chosen, const Gamma& noise,
                double epistemic_scale);
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
  std::vector<Fold> folds_;
  std::vector<DistanceFoldScore> scores_;
};

// A from `data`'s gap and tail folds: the cheap form of `chosen` (the recipe's final network,
// epochs and settings) trained on each fold's rest, scored with `model`'s noise Gamma and
// epistemic scale; two folds at once with chosen.threads 2.
DistanceScaleFit fit_distance_scale(const Dataset& data, const TrainOptions& chosen,
                                    const Model& model);

// `model` (trained on `data`) with the fitted A and `data`'s occupancy.
void add_distance_variance(Model& model, const Dataset& data, const TrainOptions& chosen);
// `model` (trained on `data`) with the term at `scale` (none at 0) and `data`'s occupancy.
void set_distance_variance(Model& model, const Dataset& data, double scale);

}  // namespace pbp::trainer
