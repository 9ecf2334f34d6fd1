// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <thread>

#include "pbp/trainer/distance_variance.hpp"
#include "pbp/trainer/independent_tasks.hpp"
#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"

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

HeldOutResiduals residuals(const Model& model, const Dataset& rows) {
  HeldOutResiduals r;
  const double to_standard =
      1.0 / (model.standardisation.target_std * model.standardisation.target_std);
  for (size_t i = 0; i < rows.rows; ++i) {
    const Prediction p = predict(model, std::span<const double>(rows.row(i), rows.inputs));
    const double error = rows.y[i] - p.mean;
    r.squared_error.push_back(error * error * to_standard);
    r.epistemic.push_back(p.epistemic_variance * to_standard);
    if (heteroscedastic(model)) r.aleatoric.push_back(p.aleatoric_variance * to_standard);
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

// One (network, checkpoint) of the search's race: its predictive on the held-out rows pooled so
// far, calibrated on the coarse grid, and each row's log-likelihood under it. A candidate leaves
// the race once it is below another on the same rows by more than kRaceStandardErrors standard
// errors of their paired per-row difference (the leader after each fold; or, within a training, one
// of its own earlier checkpoints). The winner is the best of those left, calibrated on every fold's
// rows on the fine grid as before: the race changes the choice only where a candidate that left
// would have overtaken.
constexpr double kRaceStandardErrors = 3.0;
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
  bool clearly_below(const RaceEntry& other) const {
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
    return mean > kRaceStandardErrors * std::sqrt(variance / static_cast<double>(n));
  }
};

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
  // The race's candidates: every network with every likelihood searched.
  std::vector<std::pair<std::vector<uint32_t>, LikelihoodKind>> candidates;
  for (const LikelihoodKind likelihood : likelihoods) {
    for (const std::vector<uint32_t>& network : space.networks) {
      candidates.emplace_back(network, likelihood);
    }
  }
  TrainProgress at;
  at.candidates = static_cast<uint32_t>(folds * candidates.size());
  at.total = (uint64_t{at.candidates} + 1) * space.epochs.back();
  // The trainings below may run on two threads; `progress` is called on this one only (as for
  // one thread: the CLI's and Python's Ctrl-C checks are there), once per epoch in the order the
  // epochs ended: the other thread's at this thread's next epoch or at its poll while it waits.
  std::mutex progress_mutex;
  std::vector<TrainProgress> unreported;
  const std::thread::id caller = std::this_thread::get_id();
  auto report_progress = [&] {
    std::vector<TrainProgress> now;
    {
      const std::lock_guard lock(progress_mutex);
      now.swap(unreported);
    }
    if (progress) {
      for (const TrainProgress& p : now) progress(p);
    }
  };
  auto tick = [&](uint32_t epoch, uint32_t candidate, uint32_t epochs) {
    {
      const std::lock_guard lock(progress_mutex);
      ++at.done;
      at.epoch = epoch;
      at.candidate = candidate;
      at.epochs = epochs;
      unreported.push_back(at);
    }
    if (std::this_thread::get_id() == caller) report_progress();
  };
  IndependentTasks tasks(options.threads);
  std::vector<size_t> order(data.rows);
  std::iota(order.begin(), order.end(), size_t{0});
  Random(options.seed ^ 0x6F6C646F7574ull).shuffle(order);  // its own stream: "holdout"

  // A race (see RaceEntry): every fold trains each network only as far as its latest checkpoint
  // still in the race; pooled[network][checkpoint] holds every fold's held-out rows at that many
  // epochs, scored on the rows pooled so far.
  const size_t networks = candidates.size(), checkpoints = space.epochs.size();
  std::vector<std::vector<HeldOutResiduals>> pooled(networks,
                                                    std::vector<HeldOutResiduals>(checkpoints));
  std::vector<std::vector<RaceEntry>> race(networks, std::vector<RaceEntry>(checkpoints));
  // With one fold, every checkpoint's model: the final training's start (kWarmEpochsDivisor).
  const bool warm_start = folds == 1 && data.rows < kWarmStartFrom;
  std::vector<std::vector<Model>> searched(networks, std::vector<Model>(checkpoints));
  uint32_t started = 0;  // candidates numbered for the progress display
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
      o.averaging = averaging(options);
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
            tick(epoch, number, total);
            const size_t c = static_cast<size_t>(
                std::find(space.epochs.begin(), space.epochs.end(), epoch) - space.epochs.begin());
            if (c == checkpoints || !race[k][c].running) return;
            pooled[k][c].append(residuals(model, held_out));
            if (warm_start) searched[k][c] = model;
            race[k][c].score(pooled[k][c]);
            past_peak = std::any_of(race[k].begin(), race[k].begin() + static_cast<ptrdiff_t>(c),
                                    [&](const RaceEntry& earlier) {
                                      return earlier.running && race[k][c].clearly_below(earlier);
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
        report_progress);
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
    const Model* searched = nullptr;
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
                             &searched[k][c]};
      }
    }
  }
  const bool varying_wins =
      varying.entry && (!gaussian.entry || gaussian.entry->clearly_below(*varying.entry));
  const RecipeChoice best = varying_wins ? varying.choice : gaussian.choice;
  if (!std::isfinite(best.held_out_loglik)) {
    throw std::runtime_error("no candidate of the automatic recipe fits the held-out rows");
  }

  TrainOptions o = options;
  o.hidden = best.hidden;
  o.likelihood = best.likelihood;
  o.start = warm_start ? (varying_wins ? varying.searched : gaussian.searched) : nullptr;
  o.epochs = o.start ? std::max(1u, best.epochs / kWarmEpochsDivisor) : best.epochs;
  o.averaging = averaging(options);
  at.total = at.done + o.epochs;
  o.on_epoch = [&](uint32_t epoch, uint32_t total, const Model& model) {
    tick(epoch, 0, total);
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
    distance.emplace(data, cheap, calibrated.noise, best.epistemic_scale);
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
      report_progress);
  RecipeChoice calibration = best;
  if (o.start) {
    const Dataset searched_rows = data.subset(fold_rows(order, folds, 0).first);
    calibration.epistemic_scale =
        carried_epistemic_scale(best.epistemic_scale, *o.start, model, searched_rows);
  }
  apply_calibration(model, calibration);
  if (distance) {
    set_distance_variance(model, data, distance->fit().scale);
  } else if (distance_wanted) {  // after a warm start: the folds alone, with the carried scale
    o.start = nullptr;
    add_distance_variance(model, data, o);
  }
  if (choice) *choice = calibration;
  return model;
}

}  // namespace pbp::trainer
