// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/active_learning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "pbp/host/active_split.hpp"
#include "pbp/host/evaluation.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/parallel.hpp"
#include "pbp/host/pool_density.hpp"
#include "pbp/host/variance_reduction.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/metrics.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::host {
namespace {

// The pool position of the row of highest total predictive variance (the first on ties), by
// `variance_of(row)` of a row's inputs. The noise variance is the same for every row of one
// model, so this is also the row of highest epistemic variance.
template <class VarianceOf>
size_t highest_variance(const trainer::Dataset& data, const std::vector<size_t>& pool,
                        const VarianceOf& variance_of) {
  size_t best = 0;
  double best_variance = -1.0;
  for (size_t i = 0; i < pool.size(); ++i) {
    const double variance = variance_of(std::span<const double>(data.row(pool[i]), data.inputs));
    if (variance > best_variance) {
      best_variance = variance;
      best = i;
    }
  }
  return best;
}

// The batch EP comparator's test figures, and its predictive variance (for highest_variance).
struct EpLearner {
  trainer::batch_ep::Model model;

  std::vector<double> test(const trainer::Dataset& rows) const {
    std::vector<double> mean(rows.rows), variance(rows.rows);
    for (size_t i = 0; i < rows.rows; ++i) {
      const auto p = model.predict(std::span<const double>(rows.row(i), rows.inputs));
      mean[i] = p.mean;
      variance[i] = p.variance();
    }
    const trainer::RegressionMetrics m = trainer::regression_metrics(rows.y, mean, variance);
    return {m.rmse, m.loglik};
  }

  double variance(std::span<const double> x) const { return model.predict(x).variance(); }
};

uint32_t ep_hidden_units(const trainer::TrainOptions& options) {
  if (options.hidden.size() != 1) {
    throw std::invalid_argument(
        "--method ep is the paper's one-hidden-layer network: give one "
        "--hidden width");
  }
  return options.hidden[0];
}

// The density strategies' reference rows: enough for a smooth density, a bounded kernel matrix.
constexpr size_t kDensityReferenceRows = 500;

size_t largest(const std::vector<double>& scores) {
  size_t best = 0;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > scores[best]) best = i;
  }
  return best;
}

ActiveRun run_strategy(const trainer::Dataset& data, const ActivePlan& plan,
                       const RepeatSplit& setup, const ModelRows& test,
                       const trainer::Dataset& test_rows, Method method, Strategy strategy,
                       trainer::TrainOptions options, const RecipeSettings& recipe) {
  const auto start = std::chrono::steady_clock::now();
  options.seed = setup.training_seed;
  options.on_epoch = nullptr;
  trainer::Random picks(setup.pick_seed);
  std::vector<size_t> training = setup.training;
  std::vector<size_t> pool = setup.pool;
  ActiveRun run;
  const bool density =
      strategy == Strategy::density_variance || strategy == Strategy::density_reduction;
  std::optional<PoolCoverage> coverage;
  std::vector<size_t> positions;  // each pool row's index in setup.pool
  if (density) {
    coverage.emplace(data, pool, setup.pick_seed ^ 0x9e3779b97f4a7c15ull, plan.density_width,
                     kDensityReferenceRows);
    positions.resize(pool.size());
    std::iota(positions.begin(), positions.end(), size_t{0});
  }
  for (size_t round = 0;; ++round) {
    // Retrained from scratch; both learners standardise on the current training rows.
    size_t chosen = 0;
    if (method == Method::ep) {
      trainer::batch_ep::Options ep;
      ep.hidden = ep_hidden_units(options);
      ep.seed = setup.training_seed;
      ep.input_prior = plan.ep_prior;
      const EpLearner learner{trainer::batch_ep::train(data.subset(training), ep)};
      const std::vector<double> figures = learner.test(test_rows);
      run.rmse.push_back(figures[0]);
      run.loglik.push_back(figures[1]);
      if (round < plan.rounds && strategy == Strategy::variance) {
        chosen = highest_variance(data, pool,
                                  [&](std::span<const double> x) { return learner.variance(x); });
      }
    } else {
      const trainer::Model model =
          trainer::train_with_recipe(data.subset(training), options, recipe.recipe, recipe.space);
      const LoadedModel blob =
          LoadedModel::open(trainer::write_blob(model), "active-learning model");
      const std::vector<Metric> metrics = evaluate(blob, test);
      run.rmse.push_back(metric_value(metrics, "rmse"));
      run.loglik.push_back(metric_value(metrics, "loglik"));
      if (round < plan.rounds && strategy == Strategy::variance) {
        chosen = highest_variance(
            data, pool, [&](std::span<const double> x) { return blob.predict(x).variance(); });
      } else if (round < plan.rounds && strategy == Strategy::variance_reduction) {
        chosen = largest_variance_reduction(model, data, pool);
      }
      std::vector<double> log_density;
      if (round < plan.rounds && density) {
        log_density = coverage->log_uncovered_density(positions, training);
      }
      if (round < plan.rounds && strategy == Strategy::density_variance) {
        std::vector<double> scores(pool.size());
        for (size_t i = 0; i < pool.size(); ++i) {
          const double v = blob.predict(std::span<const double>(data.row(pool[i]), data.inputs))
                               .epistemic_variance;
          scores[i] = log_density[i] + std::log(std::max(v, 1e-300));
        }
        chosen = largest(scores);
      } else if (round < plan.rounds && strategy == Strategy::density_reduction) {
        std::vector<double> scores = variance_reductions(model, data, pool);
        for (size_t i = 0; i < pool.size(); ++i) {
          scores[i] = log_density[i] + std::log(std::max(scores[i], 1e-300));
        }
        chosen = largest(scores);
      }
    }
    if (round == plan.rounds) break;
    if (strategy == Strategy::random) chosen = static_cast<size_t>(picks.below(pool.size()));
    run.picks.push_back(pool[chosen]);
    training.push_back(pool[chosen]);
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(chosen));
    if (density) positions.erase(positions.begin() + static_cast<std::ptrdiff_t>(chosen));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace

const char* strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::variance:
      return "variance";
    case Strategy::variance_reduction:
      return "variance-reduction";
    case Strategy::density_variance:
      return "density-variance";
    case Strategy::density_reduction:
      return "density-reduction";
    case Strategy::random:
      break;
  }
  return "random";
}

std::optional<Strategy> parse_strategy(const std::string& name) {
  for (const Strategy s : {Strategy::variance, Strategy::variance_reduction, Strategy::random,
                           Strategy::density_variance, Strategy::density_reduction}) {
    if (name == strategy_name(s)) return s;
  }
  return std::nullopt;
}

std::optional<std::vector<Strategy>> parse_strategies(const std::string& text) {
  if (text == "both") return std::vector<Strategy>{Strategy::variance, Strategy::random};
  if (text == "all") {
    return std::vector<Strategy>{Strategy::variance, Strategy::variance_reduction,
                                 Strategy::random};
  }
  std::vector<Strategy> strategies;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const auto one = parse_strategy(text.substr(begin, comma - begin));
    if (!one || std::find(strategies.begin(), strategies.end(), *one) != strategies.end()) {
      return std::nullopt;
    }
    strategies.push_back(*one);
    if (comma == std::string::npos) return strategies;
    begin = comma + 1;
  }
}

const char* method_name(Method method) {
  return method == Method::pbp ? "pbp" : "ep";
}

std::optional<Method> parse_method(const std::string& name) {
  if (name == "pbp") return Method::pbp;
  if (name == "ep") return Method::ep;
  return std::nullopt;
}

std::vector<std::vector<std::vector<ActiveRun>>> run_active_learning(
    const trainer::Dataset& data, const ActivePlan& plan, const trainer::TrainOptions& options,
    const RecipeSettings& recipe, size_t jobs, const Progress& progress) {
  if (options.task != trainer::Task::regression) {
    throw std::invalid_argument("active learning is for regression models");
  }
  if (plan.initial < 2 || plan.test < 1 || data.rows < rows_needed(plan)) {
    throw std::invalid_argument("active learning needs at least initial + test + rounds rows");
  }
  if (!(plan.density_width > 0.0) || !std::isfinite(plan.density_width)) {
    throw std::invalid_argument("the density width must be a positive number");
  }
  for (const Method method : plan.methods) {
    if (method == Method::ep) ep_hidden_units(options);  // fail before any work
  }
  std::vector<std::vector<std::vector<ActiveRun>>> runs(
      plan.methods.size(), std::vector<std::vector<ActiveRun>>(
                               plan.strategies.size(), std::vector<ActiveRun>(plan.repeats)));
  parallel_for(plan.repeats, jobs, progress, [&](size_t repeat) {
    const RepeatSplit setup =
        split_repeat(data.rows, plan.initial, plan.test, plan.score_on_pool, plan.seed, repeat);
    const trainer::Dataset test_rows = data.subset(setup.scored);
    const ModelRows test = model_rows(test_rows);
    for (size_t m = 0; m < plan.methods.size(); ++m) {
      for (size_t s = 0; s < plan.strategies.size(); ++s) {
        runs[m][s][repeat] = run_strategy(data, plan, setup, test, test_rows, plan.methods[m],
                                          plan.strategies[s], options, recipe);
      }
    }
  });
  return runs;
}

}  // namespace pbp::host
