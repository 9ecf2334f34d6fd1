// SPDX-License-Identifier: Apache-2.0
// `pbp active`: active learning as in the PBP paper's section 5.4 - does picking the pool point
// of highest predictive variance beat picking at random?
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>

#include "commands.hpp"
#include "output.hpp"
#include "pbp/host/active_learning.hpp"
#include "pbp/host/parallel.hpp"
#include "pbp/trainer/metrics.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

constexpr uint64_t kMaxCount = 100'000;

const char* const kUsage =
    "usage: pbp active --pool F.csv [--initial 20] [--test 100] [--rounds 9]\n"
    "                  [--strategy S] [--method pbp|ep|both]\n"
    "                  [--ep-prior ard|common|fixed] [--repeats 40] [--jobs N]\n"
    "                  [--density-width 3] [--score-on test|pool]\n"
    "                  [training options] [--json]\n"
    "\n"
    "Active learning as in the PBP paper (section 5.4; it uses --hidden 10). Each repeat splits\n"
    "the rows of F at random into --initial training rows, --test test rows and a pool of the\n"
    "rest (targets hidden until a row is picked). A model is trained from scratch on the\n"
    "training rows and its test RMSE and log-likelihood measured (through the runtime, as\n"
    "'pbp eval' does); then, --rounds times, one pool row moves to the training set, the model\n"
    "is retrained from scratch (inputs and targets standardised on the current training rows)\n"
    "and tested again: rounds + 1 evaluations in all. The strategy picks the row of highest\n"
    "total predictive variance (variance, the paper's choice: maximal entropy of p(y | x, D);\n"
    "the noise variance is the same for every row, so it is also the row of highest epistemic\n"
    "variance), the row whose label would most reduce the predictive variance summed over the\n"
    "pool (variance-reduction, Cohn's ALC: the network linearised at its weight means, the\n"
    "pool's inputs only; PBP only), or one uniformly at random (random). density-variance and\n"
    "density-reduction multiply the epistemic variance, or the variance reduction, by a kernel\n"
    "density of the pool's inputs that the labelled rows do not cover yet (pool inputs only; PBP\n"
    "only), so that the picks are typical rows rather than the farthest ones. Several strategies,\n"
    "separated by commas ('both' is variance,random; 'all' the three), run on the same splits.\n"
    "Everything derives\n"
    "from --seed: each repeat's split, its training seed and its random picks are the same for\n"
    "every strategy, so round 0 agrees and the runs are reproducible.\n"
    "Prints, per round, the training rows and mean +- standard error (population std /\n"
    "sqrt(repeats)) of the test RMSE and log-likelihood per strategy; with random among them,\n"
    "also of the RMSE difference random - S for every other strategy S, taken per repeat\n"
    "(paired, so the split's own difficulty cancels).\n"
    "--method ep runs, in place of PBP, the batch EP algorithm for two-layer networks of probit\n"
    "units (Jylanki, Nummenmaa & Vehtari 2014) that the PBP paper compares with (Table 2, EP-A\n"
    "and EP-R): one hidden layer of --hidden units, ARD priors, noise learned; it runs on the\n"
    "host only (no blob) and ignores the PBP training options. 'both' runs PBP and EP on the\n"
    "same splits and seeds and reports each one's seconds per repeat.\n"
    "\n"
    "  --pool F          CSV with a header row (target: --target, default the last column),\n"
    "                    or IDX images with --labels\n"
    "  --initial N       training rows before the first addition (default: 20; at least 2)\n"
    "  --test N          test rows (default: 100)\n"
    "  --rounds N        pool rows added one at a time (default: 9)\n"
    "  --strategy S      variance (default), variance-reduction, random, density-variance,\n"
    "                    density-reduction, both, all (the first three), or a comma-separated\n"
    "                    list\n"
    "  --method M        pbp (default), ep, or both (each on the same splits)\n"
    "  --ep-prior P      EP's input-weight prior: ard (default; N(0, exp phi_l), one learned\n"
    "                    phi per input column and one for the bias, the EP paper's NN-EP-ARD),\n"
    "                    common (one learned phi for every input weight) or fixed (N(0, 0.5))\n"
    "  --repeats N       random splits (default: 40)\n"
    "  --density-width F the density strategies' kernel width in units of Scott's bandwidth\n"
    "                    m^(-1/(d+4)) on pool-standardised inputs (default: 3, chosen with\n"
    "                    --score-on pool on the UCI sets)\n"
    "  --score-on W      test (default): score on the split's test rows; pool: leave them out\n"
    "                    altogether and score on --test rows taken from the pool instead (the\n"
    "                    development protocol: choose settings without ever seeing a test row)\n"
    "  --jobs N          repeats run in parallel (default: hardware threads)\n"
    "  --json            print one JSON object: {\"strategy\", \"repeats\", \"initial\",\n"
    "                    \"test\", \"scored_on\", \"pool\", \"rounds\", \"seed\",\n"
    "                    \"training_rows\", \"rmse_mean\", \"rmse_se\", \"loglik_mean\",\n"
    "                    \"loglik_se\", \"picks\", \"rmse_per_repeat\"}: lists with one value\n"
    "                    per test evaluation (the last after the final addition); per\n"
    "                    repeat, \"picks\" holds the 0-based data rows added and\n"
    "                    \"rmse_per_repeat\" the test RMSEs.\n"
    "                    With several: {\"variance\": {...}, \"random\": {...}, ...}, and\n"
    "                    with random among them, each other strategy's object also has\n"
    "                    \"random_minus_rmse_mean\" and \"random_minus_rmse_se\": random - it,\n"
    "                    taken per repeat (paired: the same split).\n"
    "                    Each object also names its \"method\"; with --method both:\n"
    "                    {\"pbp\": {...}, \"ep\": {...}}. The JSON has no timings (it is the\n"
    "                    same bits for a seed); the table gives each method's seconds per repeat\n"
    "training options (--seed is the seed of the whole experiment):\n";

size_t count_option(const ParsedOptions& options, const std::string& name, uint64_t fallback,
                    uint64_t minimum) {
  return static_cast<size_t>(options.integer_between(name, fallback, minimum, kMaxCount));
}

ActivePlan active_plan(const ParsedOptions& options, const trainer::TrainOptions& train) {
  if (train.task != trainer::Task::regression) {
    throw UsageError("active learning compares test RMSE: it needs --task regression");
  }
  ActivePlan plan;
  plan.initial = count_option(options, "initial", plan.initial, 2);
  plan.test = count_option(options, "test", plan.test, 1);
  plan.rounds = count_option(options, "rounds", plan.rounds, 0);
  plan.repeats = count_option(options, "repeats", plan.repeats, 1);
  plan.seed = train.seed;
  plan.density_width = options.real("density-width", plan.density_width);
  if (!(plan.density_width > 0.0) || !(plan.density_width < 1e6)) {
    throw UsageError("--density-width must be a positive number below 1e6, got '" +
                     options.text("density-width").value_or("") + "'");
  }
  const std::string score_on = options.text("score-on").value_or("test");
  if (score_on != "test" && score_on != "pool") {
    throw UsageError("--score-on expects test or pool, got '" + score_on + "'");
  }
  plan.score_on_pool = score_on == "pool";
  const std::string strategy = options.text("strategy").value_or("variance");
  const auto strategies = parse_strategies(strategy);
  if (!strategies) {
    throw UsageError(
        "--strategy expects variance, variance-reduction, random, both, all or a "
        "comma-separated list of distinct names, got '" +
        strategy + "'");
  }
  plan.strategies = *strategies;
  const std::string method = options.text("method").value_or("pbp");
  if (method == "both") {
    plan.methods = {Method::pbp, Method::ep};
  } else if (const auto one = parse_method(method)) {
    plan.methods = {*one};
  } else {
    throw UsageError("--method expects pbp, ep or both, got '" + method + "'");
  }
  const std::string prior = options.text("ep-prior").value_or("ard");
  if (prior == "ard") {
    plan.ep_prior = trainer::batch_ep::InputPrior::ard;
  } else if (prior == "common") {
    plan.ep_prior = trainer::batch_ep::InputPrior::common;
  } else if (prior == "fixed") {
    plan.ep_prior = trainer::batch_ep::InputPrior::fixed;
  } else {
    throw UsageError("--ep-prior expects ard, common or fixed, got '" + prior + "'");
  }
  const auto uses = [&](Strategy s) {
    return std::find(plan.strategies.begin(), plan.strategies.end(), s) != plan.strategies.end();
  };
  if (method != "pbp" && uses(Strategy::variance_reduction)) {
    throw UsageError(
        "--strategy variance-reduction goes with --method pbp (it linearises PBP's network)");
  }
  if (method != "pbp" && (uses(Strategy::density_variance) || uses(Strategy::density_reduction))) {
    throw UsageError("--strategy density-variance and density-reduction go with --method pbp");
  }
  if (method != "pbp" && train.hidden.size() != 1) {
    throw UsageError("--method ep is a one-hidden-layer network: give one --hidden width");
  }
  return plan;
}

// Mean and standard error over repeats of a figure, one value per test evaluation.
struct RoundSummary {
  std::vector<double> mean, standard_error;
};

// `value(repeat, round)` summarised over the repeats, for every round.
RoundSummary summarise(size_t repeats, size_t evaluations,
                       const std::function<double(size_t, size_t)>& value) {
  RoundSummary summary;
  for (size_t round = 0; round < evaluations; ++round) {
    std::vector<double> values;
    for (size_t repeat = 0; repeat < repeats; ++repeat) values.push_back(value(repeat, round));
    const trainer::MeanAndError stats = trainer::mean_and_standard_error(values);
    summary.mean.push_back(stats.mean);
    summary.standard_error.push_back(stats.standard_error);
  }
  return summary;
}

// Every figure the output shows: per strategy, and each strategy's paired difference to random.
struct ActiveSummary {
  std::vector<RoundSummary> rmse, loglik;  // per strategy
  // Per strategy: random - it per repeat; empty for random itself, or with no random run.
  std::vector<RoundSummary> random_minus_rmse;
};

// The index of the random strategy in the plan, or the strategy count.
size_t random_index(const ActivePlan& plan) {
  return static_cast<size_t>(
      std::find(plan.strategies.begin(), plan.strategies.end(), Strategy::random) -
      plan.strategies.begin());
}

ActiveSummary summarise(const ActivePlan& plan, const std::vector<std::vector<ActiveRun>>& runs) {
  const size_t evaluations = plan.rounds + 1;
  ActiveSummary summary;
  for (const std::vector<ActiveRun>& strategy : runs) {
    summary.rmse.push_back(summarise(plan.repeats, evaluations, [&](size_t r, size_t round) {
      return strategy[r].rmse[round];
    }));
    summary.loglik.push_back(summarise(plan.repeats, evaluations, [&](size_t r, size_t round) {
      return strategy[r].loglik[round];
    }));
  }
  const size_t random = random_index(plan);
  summary.random_minus_rmse.resize(runs.size());
  for (size_t s = 0; s < runs.size() && random < runs.size(); ++s) {
    if (s == random) continue;
    summary.random_minus_rmse[s] =
        summarise(plan.repeats, evaluations, [&](size_t r, size_t round) {
          return runs[random][r].rmse[round] - runs[s][r].rmse[round];
        });
  }
  return summary;
}

// Mean wall time per repeat of one method's runs (all its strategies).
double seconds_per_repeat(const std::vector<std::vector<ActiveRun>>& runs) {
  double total = 0.0;
  size_t repeats = 0;
  for (const std::vector<ActiveRun>& strategy : runs) {
    for (const ActiveRun& run : strategy) total += run.seconds;
    repeats = strategy.size();
  }
  return repeats ? total / static_cast<double>(repeats) : 0.0;
}

std::string number_list(const std::vector<double>& values) {
  std::vector<std::string> items;
  for (const double value : values) items.push_back(json_number(value));
  return json_array(items);
}

std::string strategy_json(const ActivePlan& plan, size_t pool, const ActiveSummary& summary,
                          const std::vector<std::vector<ActiveRun>>& runs, size_t s,
                          Method method) {
  std::vector<double> training_rows;
  for (size_t round = 0; round <= plan.rounds; ++round) {
    training_rows.push_back(static_cast<double>(plan.initial + round));
  }
  std::vector<std::string> picks, rmse;
  for (const ActiveRun& run : runs[s]) {
    picks.push_back(number_list(std::vector<double>(run.picks.begin(), run.picks.end())));
    rmse.push_back(number_list(run.rmse));
  }
  JsonObject object;
  object.add_raw("method", json_string(method_name(method)))
      .add_raw("strategy", json_string(strategy_name(plan.strategies[s])))
      .add("repeats", static_cast<double>(plan.repeats))
      .add("initial", static_cast<double>(plan.initial))
      .add("test", static_cast<double>(plan.test))
      .add_raw("scored_on", json_string(plan.score_on_pool ? "pool" : "test"))
      .add("pool", static_cast<double>(pool))
      .add("rounds", static_cast<double>(plan.rounds))
      .add("seed", static_cast<double>(plan.seed))
      .add_raw("training_rows", number_list(training_rows))
      .add_raw("rmse_mean", number_list(summary.rmse[s].mean))
      .add_raw("rmse_se", number_list(summary.rmse[s].standard_error))
      .add_raw("loglik_mean", number_list(summary.loglik[s].mean))
      .add_raw("loglik_se", number_list(summary.loglik[s].standard_error))
      .add_raw("picks", json_array(picks))
      .add_raw("rmse_per_repeat", json_array(rmse));
  const RoundSummary& difference = summary.random_minus_rmse[s];
  if (!difference.mean.empty()) {
    object.add_raw("random_minus_rmse_mean", number_list(difference.mean))
        .add_raw("random_minus_rmse_se", number_list(difference.standard_error));
  }
  return object.str();
}

std::string method_json(const ActivePlan& plan, size_t pool, const ActiveSummary& summary,
                        const std::vector<std::vector<ActiveRun>>& runs, Method method) {
  if (runs.size() == 1) return strategy_json(plan, pool, summary, runs, 0, method);
  JsonObject both;
  both.add_raw("method", json_string(method_name(method)));
  for (size_t s = 0; s < runs.size(); ++s) {
    both.add_raw(strategy_name(plan.strategies[s]),
                 strategy_json(plan, pool, summary, runs, s, method));
  }
  return both.str();
}

void print_table(const ActivePlan& plan, const ActiveSummary& summary, Method method,
                 double seconds) {
  char cell[96];
  std::string text = std::string("method ") + method_name(method) + ", " + fixed(seconds, 2) +
                     " s per repeat (all strategies, wall time per repeat)\nround  train";
  for (const Strategy strategy : plan.strategies) {
    const std::string name = strategy_name(strategy);
    std::snprintf(cell, sizeof cell, "  %-17s  %-18s", (name + " rmse").c_str(),
                  (name + " loglik").c_str());
    text += cell;
  }
  for (size_t s = 0; s < plan.strategies.size(); ++s) {
    if (summary.random_minus_rmse[s].mean.empty()) continue;
    std::snprintf(cell, sizeof cell, "  %-17s",
                  (std::string("rmse random - ") + strategy_name(plan.strategies[s])).c_str());
    text += cell;
  }
  text += "\n";
  for (size_t round = 0; round <= plan.rounds; ++round) {
    std::snprintf(cell, sizeof cell, "%5zu  %5zu", round, plan.initial + round);
    text += cell;
    for (size_t s = 0; s < plan.strategies.size(); ++s) {
      std::snprintf(cell, sizeof cell, "  %7.4f +- %6.4f  %8.4f +- %6.4f",
                    summary.rmse[s].mean[round], summary.rmse[s].standard_error[round],
                    summary.loglik[s].mean[round], summary.loglik[s].standard_error[round]);
      text += cell;
    }
    for (const RoundSummary& difference : summary.random_minus_rmse) {
      if (difference.mean.empty()) continue;
      std::snprintf(cell, sizeof cell, "  %7.4f +- %6.4f", difference.mean[round],
                    difference.standard_error[round]);
      text += cell;
    }
    text += "\n";
  }
  text += "final test RMSE (" + std::to_string(plan.repeats) + " repeats):";
  for (size_t s = 0; s < plan.strategies.size(); ++s) {
    text += std::string(s ? "," : "") + " " + strategy_name(plan.strategies[s]) + " " +
            fixed(summary.rmse[s].mean.back(), 4) + " +- " +
            fixed(summary.rmse[s].standard_error.back(), 4);
  }
  for (size_t s = 0; s < plan.strategies.size(); ++s) {
    const RoundSummary& difference = summary.random_minus_rmse[s];
    if (difference.mean.empty()) continue;
    text += std::string("; random - ") + strategy_name(plan.strategies[s]) +
            ", paired by repeat: " + fixed(difference.mean.back(), 4) + " +- " +
            fixed(difference.standard_error.back(), 4);
  }
  std::cout << text << "\n";
}

int run(const ParsedOptions& options) {
  trainer::TrainOptions train_options = training_options(options);
  const ActivePlan plan = active_plan(options, train_options);
  const size_t jobs = jobs_option(options);
  // Repeats run in parallel already use the cores: one thread per update then.
  if (!options.has("threads") && std::min<size_t>(jobs, plan.repeats) > 1)
    train_options.threads = 1;
  ParsedOptions data_options = options;  // the loader reads --data
  data_options.values_["data"] = options.required_text("pool");
  const RecipeSettings recipe = recipe_settings(options, train_options);
  const trainer::Dataset data = load_training_data(data_options, train_options);
  check_training_data(data, train_options);
  const size_t needed = rows_needed(plan);
  if (data.rows < needed) {
    throw std::runtime_error(
        data.source + ": --initial " + std::to_string(plan.initial) + " + --test " +
        std::to_string(plan.test) + (plan.score_on_pool ? " (twice, with --score-on pool)" : "") +
        " + --rounds " + std::to_string(plan.rounds) + " need " + std::to_string(needed) +
        " rows, the file has " + std::to_string(data.rows));
  }

  ProgressBar progress("pbp active", "repeats");
  const auto start = std::chrono::steady_clock::now();
  const auto runs = run_active_learning(
      data, plan, train_options, recipe, jobs,
      [&progress](uint64_t done, uint64_t total) { progress.update(done, total); });
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const size_t pool = data.rows - (needed - plan.rounds);  // before the first addition
  std::vector<ActiveSummary> summaries;
  for (const auto& method_runs : runs) summaries.push_back(summarise(plan, method_runs));
  if (options.has("json")) {
    if (runs.size() == 1) {
      std::cout << method_json(plan, pool, summaries[0], runs[0], plan.methods[0]) << "\n";
    } else {
      JsonObject methods;
      for (size_t m = 0; m < runs.size(); ++m) {
        methods.add_raw(method_name(plan.methods[m]),
                        method_json(plan, pool, summaries[m], runs[m], plan.methods[m]));
      }
      std::cout << methods.str() << "\n";
    }
    return 0;
  }
  std::cout << "active learning on " << data.source << ": " << plan.repeats << " repeats, "
            << plan.initial << " training / " << plan.test
            << (plan.score_on_pool ? " scored (from the pool; test rows left out)" : " test")
            << " / " << pool << " pool rows, " << plan.rounds << " additions; "
            << architecture(data.inputs, train_options.hidden) << ", " << train_options.epochs
            << " epochs, seed " << plan.seed << "\n";
  for (size_t m = 0; m < runs.size(); ++m) {
    print_table(plan, summaries[m], plan.methods[m], seconds_per_repeat(runs[m]));
  }
  std::cout << "took " << fixed(seconds, 1) << " s\n";
  return 0;
}

}  // namespace

int command_active(const Arguments& args) {
  CommandDefinition command{"active",
                            std::string(kUsage) + kTrainingOptionsHelp,
                            {{"pool"},
                             {"initial"},
                             {"test"},
                             {"rounds"},
                             {"strategy"},
                             {"method"},
                             {"ep-prior"},
                             {"repeats"},
                             {"density-width"},
                             {"score-on"},
                             {"jobs"},
                             {"json", false}}};
  for (const OptionSpec& spec : training_option_specs()) command.options.push_back(spec);
  return run_command(command, args, run);
}

}  // namespace pbp::cli
