// SPDX-License-Identifier: Apache-2.0
#include "recipe_search.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>
#include <stdexcept>

#include "pbp/trainer/noise_calibration.hpp"

namespace pbp::trainer::recipe_detail {
namespace {

HeldOutResiduals residuals(const Model& model, const Dataset& rows) {
  HeldOutResiduals r;
  const double to_standard =
      1.0 / (model.standardisation.target_std * model.standardisation.target_std);
  for (size_t i = 0; i < rows.rows; ++i) {
    const Prediction p = predict(model, std::span<const double>(rows.row(i), rows.inputs));
    const double error = rows.y[i] - p.mean;
    r.squared_error.push_back(error * error * to_standard);
    r.epistemic.push_back(p.epistemic_variance * to_standard);
    if (model.likelihood == LikelihoodKind::heteroscedastic) {
      r.aleatoric.push_back(p.aleatoric_variance * to_standard);
    }
  }
  return r;
}

// One (network, checkpoint) of the search's race: its predictive on the held-out rows pooled so
// far, calibrated on the coarse grid, and each row's log-likelihood under it. A candidate leaves
// the race once it is below another on the same rows by more than kRaceStandardErrors standard
// errors of their paired per-row difference (the leader after each fold; or, within a training, one
// of its own earlier checkpoints). The winner is the best of those left, calibrated on every fold's
// rows on the fine grid as before: the race changes the choice only where a candidate that left
// would have overtaken.
constexpr double kRaceStandardErrors = 3.0;
// With one held-out fifth a training also stops once a checkpoint is one standard error below an
// earlier one: all its held-out rows are in, and the stop ends that training only. Wine's 20
// splits: CPU 2.01 -> 1.09 s a split, LL +0.0009 +- 0.0009; the other sets' models unchanged.
// Not with pooled folds, where the first fold's third of the rows decides for every fold (Boston
// -0.015 +- 0.011). tools/bench/RESULTS.md.
constexpr double kPeakStandardErrorsOneFold = 1.0;
// The coarse and fine grids' log-likelihoods agree to about 1e-6 nats per row (UCI sets' held-out
// rows); a candidate this far below the best coarse fit cannot win on the fine grid.
constexpr double kFineMargin = 1e-3;

struct RaceEntry {
  bool running = true;
  PredictiveCalibration fit{0.0, 1.0, -INFINITY};
  std::vector<double> row_loglik;

  void score(const HeldOutResiduals& rows) {
    fit = calibrate_predictive(rows, CalibrationGrid::coarse);
    row_loglik.resize(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const double v = fit.epistemic_scale * rows.epistemic[i] +
                       rows.noise_at(i, fit.noise_variance) +
                       fit.noise_floor;  // 0 but for heteroscedastic rows
      row_loglik[i] = -0.5 * (std::log(2.0 * std::numbers::pi * v) + rows.squared_error[i] / v);
    }
  }
  bool clearly_below(const RaceEntry& other, double standard_errors = kRaceStandardErrors) const {
    const size_t n = row_loglik.size();
    if (&other == this || n < 2 || other.row_loglik.size() != n) return false;
    double sum = 0.0, sum_squares = 0.0;
    for (size_t i = 0; i < n; ++i) {
      const double d = other.row_loglik[i] - row_loglik[i];
      sum += d;
      sum_squares += d * d;
    }
    const double mean = sum / static_cast<double>(n);
    const double variance = std::max(0.0, (sum_squares - sum * mean) / static_cast<double>(n - 1));
    return mean > standard_errors * std::sqrt(variance / static_cast<double>(n));
  }
};

}  // namespace

void ProgressRelay::tick(uint32_t epoch, uint32_t candidate, uint32_t epochs) {
  {
    const std::lock_guard lock(mutex_);
    ++at_.done;
    at_.epoch = epoch;
    at_.candidate = candidate;
    at_.epochs = epochs;
    unreported_.push_back(at_);
  }
  if (std::this_thread::get_id() == caller_) report();
}

void ProgressRelay::report() {
  std::vector<TrainProgress> now;
  {
    const std::lock_guard lock(mutex_);
    now.swap(unreported_);
  }
  if (progress_) {
    for (const TrainProgress& p : now) progress_(p);
  }
}

void ProgressRelay::plan_final(uint32_t epochs) {
  const std::lock_guard lock(mutex_);
  at_.total = at_.done + epochs;
}

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

SearchOutcome search_candidates(const Dataset& data, const TrainOptions& options,
                                const std::vector<LikelihoodKind>& likelihoods,
                                const SearchSpace& space, const std::vector<size_t>& order,
                                size_t folds, bool keep_models, IndependentTasks& tasks,
                                ProgressRelay& relay) {
  // The race's candidates: every network with every likelihood searched.
  std::vector<std::pair<std::vector<uint32_t>, LikelihoodKind>> candidates;
  for (const LikelihoodKind likelihood : likelihoods) {
    for (const std::vector<uint32_t>& network : space.networks) {
      candidates.emplace_back(network, likelihood);
    }
  }
  // A race (see RaceEntry): every fold trains each network only as far as its latest checkpoint
  // still in the race; pooled[network][checkpoint] holds every fold's held-out rows at that many
  // epochs, scored on the rows pooled so far.
  const size_t networks = candidates.size(), checkpoints = space.epochs.size();
  std::vector<std::vector<HeldOutResiduals>> pooled(networks,
                                                    std::vector<HeldOutResiduals>(checkpoints));
  std::vector<std::vector<RaceEntry>> race(networks, std::vector<RaceEntry>(checkpoints));
  // With keep_models, every checkpoint's model: the final training's start.
  std::vector<std::vector<Model>> searched(networks, std::vector<Model>(checkpoints));
  uint32_t started = 0;  // candidates numbered for the progress display
  const double peak_errors = folds == 1 ? kPeakStandardErrorsOneFold : kRaceStandardErrors;
  for (size_t f = 0; f < folds; ++f) {
    const auto [fit_rows, held_out_rows] = fold_rows(order, folds, f);
    const Dataset fit = data.subset(fit_rows);
    const Dataset held_out = data.subset(held_out_rows);
    // This fold's trainings: each network with a checkpoint still in the race, as far as the
    // latest. A training reads and writes its own network's race, pooled rows and models only,
    // so they may run at once; the leader is found once all have ended.
    std::vector<TrainOptions> fold_options;
    std::vector<size_t> network_of;
    for (size_t k = 0; k < networks; ++k) {
      const auto last = std::find_if(race[k].rbegin(), race[k].rend(),
                                     [](const RaceEntry& e) { return e.running; });
      if (last == race[k].rend()) continue;  // none of its checkpoints can win
      TrainOptions o = options;
      o.hidden = candidates[k].first;
      o.likelihood = candidates[k].second;
      o.epochs = space.epochs[checkpoints - 1 - static_cast<size_t>(last - race[k].rbegin())];
      fold_options.push_back(std::move(o));
      network_of.push_back(k);
    }
    const uint32_t first_number = started;
    started += static_cast<uint32_t>(network_of.size());
    const uint32_t threads = tasks.threads_for(network_of.size());
    tasks.run(
        network_of.size(),
        [&](size_t t) {
          const size_t k = network_of[t];
          TrainOptions& o = fold_options[t];
          if (threads > 1) o.threads = 1;  // one thread per training
          const uint32_t number = first_number + static_cast<uint32_t>(t) + 1;
          bool past_peak = false;
          o.on_epoch = [&, k, number](uint32_t epoch, uint32_t total, const Model& model) {
            relay.tick(epoch, number, total);
            const size_t c = static_cast<size_t>(
                std::find(space.epochs.begin(), space.epochs.end(), epoch) - space.epochs.begin());
            if (c == checkpoints || !race[k][c].running) return;
            pooled[k][c].append(residuals(model, held_out));
            if (keep_models) searched[k][c] = model;
            race[k][c].score(pooled[k][c]);
            past_peak = std::any_of(race[k].begin(), race[k].begin() + static_cast<ptrdiff_t>(c),
                                    [&](const RaceEntry& earlier) {
                                      return earlier.running &&
                                             race[k][c].clearly_below(earlier, peak_errors);
                                    });
            // Falling beyond doubt on the same rows: the later checkpoints are out.
            if (past_peak) {
              for (size_t later = c + 1; later < checkpoints; ++later)
                race[k][later].running = false;
            }
          };
          o.stop_after = [&](uint32_t) { return past_peak || tasks.abandoned(); };
          train(fit, o);
        },
        [&] { relay.report(); });
    const RaceEntry* leader = nullptr;
    for (const auto& entries : race) {
      for (const RaceEntry& e : entries) {
        if (e.running && (!leader || e.fit.loglik > leader->fit.loglik)) leader = &e;
      }
    }
    if (!leader) break;  // nothing scored: reported below
    for (auto& entries : race) {
      for (RaceEntry& e : entries) e.running = e.running && !e.clearly_below(*leader);
    }
  }

  // The best of each likelihood on the fine grid. The heteroscedastic model, more to learn and
  // less stable (a single training of it can miss: energy, one of 5 splits), only where the
  // Gaussian's held-out rows are below its own beyond doubt (as a candidate leaves the race).
  struct Best {
    RecipeChoice choice;
    const RaceEntry* entry = nullptr;
    Model* searched = nullptr;
    const HeldOutResiduals* rows = nullptr;
  };
  Best gaussian, varying;
  gaussian.choice.held_out_loglik = varying.choice.held_out_loglik = -INFINITY;
  // The fine grid costs about ten coarse ones per candidate (Boston: 14 % of the recipe's CPU):
  // only the candidates whose coarse fit is within kFineMargin of their likelihood's best get it.
  double best_coarse[2] = {-INFINITY, -INFINITY};  // gaussian, heteroscedastic
  const auto slot = [&](size_t k) {
    return candidates[k].second == LikelihoodKind::heteroscedastic ? 1 : 0;
  };
  for (size_t k = 0; k < networks; ++k) {
    for (const RaceEntry& e : race[k]) {
      if (e.running) best_coarse[slot(k)] = std::max(best_coarse[slot(k)], e.fit.loglik);
    }
  }
  for (size_t k = 0; k < networks; ++k) {
    for (size_t c = 0; c < checkpoints; ++c) {
      if (!race[k][c].running || race[k][c].fit.loglik < best_coarse[slot(k)] - kFineMargin) {
        continue;
      }
      const PredictiveCalibration fit = calibrate_predictive(pooled[k][c]);
      Best& of_its_likelihood =
          candidates[k].second == LikelihoodKind::heteroscedastic ? varying : gaussian;
      if (fit.loglik > of_its_likelihood.choice.held_out_loglik) {
        of_its_likelihood = {{candidates[k].first, space.epochs[c], fit.loglik, fit.noise_variance,
                              fit.epistemic_scale, pooled[k][c].size(), folds, candidates[k].second,
                              fit.noise_floor},
                             &race[k][c],
                             &searched[k][c],
                             &pooled[k][c]};
      }
    }
  }
  const bool varying_wins =
      varying.entry && (!gaussian.entry || gaussian.entry->clearly_below(*varying.entry));
  const Best& chosen = varying_wins ? varying : gaussian;
  if (!std::isfinite(chosen.choice.held_out_loglik)) {
    throw std::runtime_error("no candidate of the automatic recipe fits the held-out rows");
  }
  SearchOutcome outcome{chosen.choice, std::nullopt};
  // The predictive's tails, from the same rows at the calibration kept (Gaussian models only).
  if (!varying_wins) {
    outcome.best.tail_dof = calibrated_tail_dof(
        *chosen.rows, {chosen.choice.noise_variance, chosen.choice.epistemic_scale,
                       chosen.choice.held_out_loglik, chosen.choice.noise_floor});
  }
  if (keep_models) outcome.start = std::move(*chosen.searched);
  return outcome;
}

}  // namespace pbp::trainer::recipe_detail
