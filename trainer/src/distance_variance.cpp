// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/distance_variance.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>

#include "pbp/data_distance.hpp"
#include "pbp/trainer/independent_tasks.hpp"
#include "pbp/trainer/noise_calibration.hpp"

namespace pbp::trainer {
namespace {

namespace layout = format::input_occupancy_section;
namespace pair_layout = format::input_pair_occupancy_section;

// Measured on energy, yacht and Boston training rows (tools/bench/RESULTS.md): the recipe's own
// network and epochs per fold cost 4.5x the recipe (16 folds on energy) and move A little; a
// 1 x 50 network for 40 epochs costs 7 % more.
constexpr uint32_t kFoldEpochs = 40;
// And at most this many updates (40 epochs of 1 000 rows), so that the fit's cost stops growing
// with the rows: kin8nm's 16 folds 40 -> 5 epochs, its training 31.4 -> 24.0 CPU s a split, and
// its gap and tail splits' LL +0.037 and +0.021 (the folds now choose A = 0 there); below 1 000
// rows nothing changes. tools/bench/RESULTS.md.
constexpr double kFoldUpdates = 40000.0;

// Rows of input `j`'s gap fold (`tail` false) or tail fold, held out of `rows` rows.
std::vector<bool> held_out_rows(const Dataset& data, size_t j, bool tail) {
  const size_t n = data.rows;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return data.row(a)[j] < data.row(b)[j]; });
  std::vector<bool> held(n, false);
  const size_t tenth = n / 10;
  for (size_t k = 0; k < n; ++k) {
    held[order[k]] = tail ? k < tenth || k >= n - tenth : k >= n / 3 && k < n - n / 3;
  }
  return held;
}

DistanceFoldScore score_fold(const Dataset& fit, const Dataset& held_out, const Model& fold) {
  const Standardisation& s = fold.standardisation;
  const std::vector<uint32_t> occupancy = input_occupancy(fit, s);
  const bool pairs = pair_variance_fits(fit.inputs);
  const std::vector<uint32_t> grids =
      pairs ? input_pair_occupancy(fit, s) : std::vector<uint32_t>{};
  DistanceFoldScore score;
  score.target_std = s.target_std;
  for (size_t i = 0; i < held_out.rows; ++i) {
    const std::span<const double> x(held_out.row(i), held_out.inputs);
    const Prediction p = predict(fold, x);
    const double error = held_out.y[i] - p.mean;
    score.error_squared.push_back(error * error);
    score.variance.push_back(p.variance());
    score.distance.push_back(distance::row_distance(x.data(), s.input_min.data(),
                                                    s.input_max.data(), s.input_std.data(),
                                                    occupancy.data(), fold.input_count()));
    if (pairs) {
      score.novelty.push_back(pair_novelty(x, s, grids.data()));
    }
  }
  return score;
}

}  // namespace

bool pair_variance_fits(size_t inputs) {
  return inputs >= 2 && inputs <= pair_layout::kMaxInputs;
}

double DistanceFoldScore::loglik(double scale, double pair_scale) const {
  double total = 0.0;
  for (size_t i = 0; i < variance.size(); ++i) {
    double v = variance[i] + distance::distance_variance(scale, distance[i], target_std);
    if (!novelty.empty()) v += distance::distance_variance(pair_scale, novelty[i], target_std);
    total += predictive_loglik(error_squared[i], v, tail_dof);
  }
  return total / static_cast<double>(variance.size());
}

std::vector<uint32_t> input_occupancy(const Dataset& data, const Standardisation& s) {
  std::vector<uint32_t> words(size_t{layout::kWordsPerInput} * data.inputs, 0u);
  const auto set = [&](size_t input, uint32_t bin) {
    words[layout::kWordsPerInput * input + bin / 32u] |= 1u << (bin % 32u);
  };
  for (size_t j = 0; j < data.inputs; ++j) {
    set(j, 0u);
    set(j, layout::kBins - 1u);
    const double min = static_cast<float>(s.input_min[j]);
    const double max = static_cast<float>(s.input_max[j]);
    const double width = (max - min) * (1.0 / layout::kBins);
    if (!(width > 0.0)) continue;
    for (size_t i = 0; i < data.rows; ++i) {
      set(j, distance::occupancy_bin(std::clamp(data.row(i)[j], min, max), min, width));
    }
  }
  return words;
}

double pair_novelty(std::span<const double> x, const Standardisation& s, const uint32_t* grids) {
  const auto n = static_cast<uint32_t>(x.size());
  if (!pair_variance_fits(n)) throw std::invalid_argument("pair_novelty: 2 to 32 inputs");
  float xf[pair_layout::kMaxInputs], min[pair_layout::kMaxInputs], max[pair_layout::kMaxInputs];
  for (uint32_t j = 0; j < n; ++j) {
    xf[j] = static_cast<float>(x[j]);
    min[j] = static_cast<float>(s.input_min[j]);
    max[j] = static_cast<float>(s.input_max[j]);
  }
  return distance::pair_novelty(xf, min, max, grids, n);
}

std::vector<uint32_t> input_pair_occupancy(const Dataset& data, const Standardisation& s) {
  const auto n = static_cast<uint32_t>(data.inputs);
  std::vector<uint32_t> words(size_t{pair_layout::kWordsPerPair} * pair_layout::pair_count(n), 0u);
  std::vector<float> min(n), max(n);
  for (uint32_t j = 0; j < n; ++j) {
    min[j] = static_cast<float>(s.input_min[j]);  // as the blob holds them, binned as in predict
    max[j] = static_cast<float>(s.input_max[j]);
  }
  std::vector<uint32_t> bins(n);
  for (size_t i = 0; i < data.rows; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      bins[j] = distance::pair_bin(static_cast<float>(data.row(i)[j]), min[j], max[j]);
    }
    uint32_t* grid = words.data();
    for (uint32_t a = 0; a + 1u < n; ++a) {
      for (uint32_t b = a + 1u; b < n; ++b, grid += pair_layout::kWordsPerPair) {
        const uint32_t cell = distance::pair_cell(bins[a], bins[b]);
        grid[cell / 32u] |= 1u << (cell % 32u);
      }
    }
  }
  return words;
}

DistanceFolds::DistanceFolds(const Dataset& data, const TrainOptions& chosen, const Gamma& noise,
                             double epistemic_scale, uint32_t tail_dof)
    : data_(data),
      options_(chosen),
      noise_(noise),
      epistemic_scale_(epistemic_scale),
      tail_dof_(tail_dof) {
  options_.on_epoch = {};
  options_.stop_after = {};
  // The cheap model: one hidden layer, at most kFoldEpochs epochs and about kFoldUpdates updates.
  options_.hidden = {chosen.hidden.empty() ? 50u : chosen.hidden.front()};
  const auto budget =
      static_cast<uint32_t>(std::max(1.0, kFoldUpdates / static_cast<double>(data.rows)));
  options_.epochs = std::min({options_.epochs, kFoldEpochs, budget});
  for (size_t j = 0; j < data.inputs; ++j) {
    for (const bool tail : {false, true}) {
      const std::vector<bool> held = held_out_rows(data, j, tail);
      std::vector<size_t> fit_rows, held_rows;
      for (size_t i = 0; i < data.rows; ++i) (held[i] ? held_rows : fit_rows).push_back(i);
      if (fit_rows.size() < 2 || held_rows.empty()) continue;
      folds_.push_back({std::move(fit_rows), std::move(held_rows)});
    }
  }
  scores_.resize(folds_.size());
}

void DistanceFolds::score(size_t fold, uint32_t threads) {
  TrainOptions options = options_;
  options.threads = threads;
  const Dataset fit = data_.subset(folds_[fold].fit);
  Model model = train(fit, options);
  model.noise = noise_;
  model.epistemic_scale = epistemic_scale_;
  scores_[fold] = score_fold(fit, data_.subset(folds_[fold].held_out), model);
  scores_[fold].tail_dof = tail_dof_;
}

DistanceScaleFit DistanceFolds::fit() const {
  DistanceScaleFit best;
  best.folds = scores_.size();
  best.held_out_loglik = -INFINITY;
  const auto mean_loglik = [&](double scale, double pair_scale) {
    double total = 0.0;
    for (const DistanceFoldScore& f : scores_) total += f.loglik(scale, pair_scale);
    return scores_.empty() ? 0.0 : total / static_cast<double>(scores_.size());
  };
  // A first, alone; then A2 beside it. Fitted jointly, A2 takes over part of A's work on the
  // folds and the tails lose it (energy's tail splits: worst -3.96 -> -13.5).
  for (const double scale : kDistanceScales) {
    const double mean = mean_loglik(scale, 0.0);
    if (mean > best.held_out_loglik) {  // ties: the smaller A
      best.scale = scale;
      best.held_out_loglik = mean;
    }
  }
  if (!pair_variance_fits(data_.inputs)) return best;
  for (const double pair_scale : kPairScales) {
    const double mean = mean_loglik(best.scale, pair_scale);
    if (mean > best.held_out_loglik) {  // ties: the smaller A2
      best.pair_scale = pair_scale;
      best.held_out_loglik = mean;
    }
  }
  return best;
}

DistanceScaleFit fit_distance_scale(const Dataset& data, const TrainOptions& chosen,
                                    const Model& model) {
  DistanceFolds folds(data, chosen, model.noise, model.epistemic_scale, model.tail_dof);
  IndependentTasks tasks(chosen.threads);
  const uint32_t threads = tasks.threads_for(folds.count()) > 1 ? 1 : chosen.threads;
  tasks.run(folds.count(), [&](size_t i) { folds.score(i, threads); });
  return folds.fit();
}

void add_distance_variance(Model& model, const Dataset& data, const TrainOptions& chosen) {
  set_distance_variance(model, data, fit_distance_scale(data, chosen, model));
}

void set_distance_variance(Model& model, const Dataset& data, const DistanceScaleFit& fit) {
  // A term the held-out rows want none of (0) leaves its section out of the blob.
  if (fit.scale != 0.0) {
    model.distance_scale = fit.scale;
    model.input_occupancy = input_occupancy(data, model.standardisation);
  }
  if (fit.pair_scale != 0.0 && pair_variance_fits(data.inputs)) {
    model.pair_scale = fit.pair_scale;
    model.pair_occupancy = input_pair_occupancy(data, model.standardisation);
  }
}

}  // namespace pbp::trainer
