// SPDX-License-Identifier: Apache-2.0
// `pbp crossval`: the paper's protocol - train on each split's training rows, test on the rest,
// report per-split figures and mean +- standard error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "commands.hpp"
#include "output.hpp"
#include "pbp/host/evaluation.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/parallel.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/metrics.hpp"
#include "pbp/trainer/splits.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp crossval --data F.csv (--splits K [--test-fraction 0.1] [--split-seed N]\n"
    "                    | --split-files DIR) [training options] [--jobs N] [--json]\n"
    "       (IDX data: --data IMAGES --labels LABELS)\n"
    "\n"
    "Trains on each split's training rows and evaluates its blob on the test rows through the\n"
    "runtime (original units), as 'pbp train' + 'pbp eval' would; prints per-split figures and\n"
    "training time, then the mean +- standard error (population std / sqrt(K)):\n"
    "  regression   rmse, loglik, coverage50/90/95    (JSON: rmse_mean, rmse_se, loglik_mean,\n"
    "                                                  loglik_se, coverage50_mean, ...)\n"
    "  binary,      accuracy, loglik, brier, ece      (JSON: accuracy_mean, accuracy_se,\n"
    "  multiclass                                      loglik_mean, loglik_se, brier_mean,\n"
    "                                                  ece_mean)\n"
    "  count        mad, loglik                       (JSON: mad_mean, mad_se, loglik_mean,\n"
    "                                                  loglik_se)\n"
    "JSON also has train_seconds_mean (wall), train_cpu_seconds_mean (the training thread's CPU\n"
    "time: what a busy machine does not inflate) and \"splits\", one object of the figures per\n"
    "split; see\n"
    "'pbp eval --help' for what each figure is. Multiclass models all get the class count of\n"
    "the whole data set (or --classes), whichever labels a split's training rows hold.\n"
    "\n"
    "  --data F             CSV with a header row, or IDX images (with --labels)\n"
    "  --splits K           K seeded random splits ...\n"
    "  --test-fraction F    ... each holding out this fraction of rows (default: 0.1)\n"
    "  --split-seed N       seed of the random splits (default: the --seed value)\n"
    "  --split-files DIR    read DIR/index_train_<s>.txt and index_test_<s>.txt, s = 0, 1, ...\n"
    "                       (whitespace-separated 0-based row indices into the data rows)\n"
    "  --jobs N             splits trained in parallel (default: hardware threads)\n"
    "  --json               print one JSON object instead of the table\n"
    "training options (applied to every split):\n";

// How one figure appears in the table and the JSON summary.
struct Column {
  const char* key;     // JSON key, and <key>_mean / <key>_se in the summary
  const char* header;  // table column title
  int width;
  int digits;
  bool standard_error;  // the summary also gives <key>_se
};

const std::vector<Column>& columns_for(trainer::Task task) {
  static const std::vector<Column> regression{{"rmse", "rmse", 9, 4, true},
                                              {"loglik", "loglik", 9, 4, true},
                                              {"coverage50", "cover50", 8, 3, false},
                                              {"coverage90", "cover90", 8, 3, false},
                                              {"coverage95", "cover95", 8, 3, false}};
  static const std::vector<Column> classification{{"accuracy", "accuracy", 9, 4, true},
                                                  {"loglik", "loglik", 9, 4, true},
                                                  {"brier", "brier", 8, 4, false},
                                                  {"ece", "ece", 8, 4, false}};
  static const std::vector<Column> count{{"mad", "mad", 9, 4, true},
                                         {"loglik", "loglik", 9, 4, true}};
  if (task == trainer::Task::regression) return regression;
  return task == trainer::Task::count ? count : classification;
}

// This thread's CPU time. A split trains on its thread alone unless a layer is wide enough for the
// trainer's helper thread (train.hpp: not the UCI networks), whose time this leaves out.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct SplitResult {
  std::vector<Metric> metrics;
  double train_seconds = 0.0;
  double train_cpu_seconds = 0.0;  // the training thread's CPU time
  trainer::RecipeChoice choice;    // what the automatic recipe chose (epochs 0 otherwise)
  double distance_scale = 0.0, pair_scale = 0.0;  // the model's A and A2 (0: no term)
  uint32_t tail_dof = 0;                          // its Student-t predictive's (0: Gaussian)
};

SplitResult run_split(const trainer::Dataset& data, const trainer::Split& split,
                      const trainer::TrainOptions& options, const RecipeSettings& recipe) {
  const trainer::Dataset train_rows = data.subset(split.train);
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  SplitResult result;
  const trainer::Model model =
      trainer::train_with_recipe(train_rows, options, recipe.recipe, recipe.space, &result.choice);
  result.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.train_cpu_seconds = thread_cpu_seconds() - cpu_start;
  result.distance_scale = model.distance_scale;
  result.pair_scale = model.pair_scale;
  result.tail_dof = model.tail_dof;

  // Evaluate the blob through the runtime, exactly as `pbp train` + `pbp eval` would.
  const LoadedModel blob = LoadedModel::open(trainer::write_blob(model), "split blob");
  result.metrics = evaluate(blob, model_rows(data.subset(split.test)));
  return result;
}

std::vector<SplitResult> run_splits(const trainer::Dataset& data,
                                    const std::vector<trainer::Split>& splits,
                                    const trainer::TrainOptions& options,
                                    const RecipeSettings& recipe, size_t jobs) {
  std::vector<SplitResult> results(splits.size());
  ProgressBar progress("pbp crossval", "splits");
  parallel_for(
      splits.size(), jobs,
      [&progress](uint64_t done, uint64_t total) { progress.update(done, total); },
      [&](size_t s) {
        try {
          results[s] = run_split(data, splits[s], options, recipe);
        } catch (const std::exception& error) {  // which split: its rows alone can fail a check
          throw std::runtime_error("split " + std::to_string(s) + ": " + error.what());
        }
      });
  progress.finish();
  return results;
}

// Where the splits come from; checked before the (possibly large) data set is read.
struct SplitPlan {
  std::string directory;  // --split-files, or empty for random splits
  size_t count = 0;
  double test_fraction = 0.1;
  uint64_t seed = 0;
};

SplitPlan split_plan(const ParsedOptions& options, uint64_t default_seed) {
  const bool random = options.has("splits");
  if (random == options.has("split-files")) {
    throw UsageError("give exactly one of --splits K and --split-files DIR");
  }
  SplitPlan plan;
  if (!random) {
    if (options.has("test-fraction") || options.has("split-seed")) {
      throw UsageError("--test-fraction and --split-seed go with --splits, not --split-files");
    }
    plan.directory = options.required_text("split-files");
    return plan;
  }
  plan.count = static_cast<size_t>(options.integer_between("splits", 0, 1, 10'000));
  plan.test_fraction = options.real("test-fraction", 0.1);
  if (!(plan.test_fraction > 0.0 && plan.test_fraction < 1.0)) {
    throw UsageError("--test-fraction must be in (0, 1)");
  }
  plan.seed = options.unsigned_integer("split-seed", default_seed);
  return plan;
}

std::vector<trainer::Split> make_splits(const SplitPlan& plan, const trainer::Dataset& data) {
  if (!plan.directory.empty()) return trainer::read_split_files(plan.directory, data.rows);
  if (data.rows < 3) {
    throw trainer::InputError(data.source, 0, 0, "random splits need at least 3 data rows");
  }
  return trainer::random_splits(data.rows, plan.count, plan.test_fraction, plan.seed);
}

// The figures of `results` under `column`, split by split.
std::vector<double> column_values(const std::vector<SplitResult>& results, const Column& column) {
  std::vector<double> values;
  for (const SplitResult& r : results) values.push_back(metric_value(r.metrics, column.key));
  return values;
}

void print_table(const std::vector<Column>& columns, const std::vector<SplitResult>& results) {
  char cell[64];
  std::string text = "split";
  for (const Column& column : columns) {
    std::snprintf(cell, sizeof cell, " %*s", column.width, column.header);
    text += cell;
  }
  text += "  train s    cpu s\n";
  for (size_t s = 0; s < results.size(); ++s) {
    std::snprintf(cell, sizeof cell, "%5zu", s);
    text += cell;
    for (const Column& column : columns) {
      std::snprintf(cell, sizeof cell, " %*.*f", column.width, column.digits,
                    metric_value(results[s].metrics, column.key));
      text += cell;
    }
    std::snprintf(cell, sizeof cell, " %8.3f %8.3f\n", results[s].train_seconds,
                  results[s].train_cpu_seconds);
    text += cell;
  }
  text += "mean   ";
  for (const Column& column : columns) {
    const auto stats = trainer::mean_and_standard_error(column_values(results, column));
    text += fixed(stats.mean, column.digits);
    if (column.standard_error) text += " +- " + fixed(stats.standard_error, column.digits);
    text.append(" ").append(column.header).append(", ");
  }
  std::vector<double> seconds, cpu_seconds;
  for (const SplitResult& r : results) {
    seconds.push_back(r.train_seconds);
    cpu_seconds.push_back(r.train_cpu_seconds);
  }
  text += fixed(trainer::mean_and_standard_error(seconds).mean, 3) + " s training per split, " +
          fixed(trainer::mean_and_standard_error(cpu_seconds).mean, 3) + " s CPU (" +
          std::to_string(results.size()) + " splits)\n";
  std::cout << text;
}

void print_json(const std::vector<Column>& columns, const std::vector<SplitResult>& results) {
  JsonObject summary;
  for (const Column& column : columns) {
    const auto stats = trainer::mean_and_standard_error(column_values(results, column));
    summary.add(std::string(column.key) + "_mean", stats.mean);
    if (column.standard_error) summary.add(std::string(column.key) + "_se", stats.standard_error);
  }
  std::vector<double> seconds, cpu_seconds;
  std::vector<std::string> per_split;
  for (const SplitResult& r : results) {
    seconds.push_back(r.train_seconds);
    cpu_seconds.push_back(r.train_cpu_seconds);
    JsonObject split;
    for (const Column& column : columns) split.add(column.key, metric_value(r.metrics, column.key));
    split.add("train_seconds", r.train_seconds);
    split.add("train_cpu_seconds", r.train_cpu_seconds);
    split.add("distance_scale", r.distance_scale).add("pair_scale", r.pair_scale);
    split.add("tail_dof", r.tail_dof);
    if (r.choice.epochs > 0) {  // the automatic recipe's choice
      std::string hidden;
      for (const uint32_t width : r.choice.hidden) {
        hidden += (hidden.empty() ? "" : ",") + std::to_string(width);
      }
      split.add_raw("hidden", "\"" + hidden + "\"").add("epochs", r.choice.epochs);
      split.add_raw("likelihood",
                    std::string("\"") + trainer::likelihood_kind_name(r.choice.likelihood) + "\"");
    }
    per_split.push_back(split.str());
  }
  summary.add("train_seconds_mean", trainer::mean_and_standard_error(seconds).mean);
  summary.add("train_cpu_seconds_mean", trainer::mean_and_standard_error(cpu_seconds).mean);
  std::cout << summary.add_raw("splits", json_array(per_split)).str() << "\n";
}

int run(const ParsedOptions& options) {
  trainer::TrainOptions train_options = training_options(options);
  const size_t jobs = jobs_option(options);
  const SplitPlan plan = split_plan(options, train_options.seed);
  const RecipeSettings recipe = recipe_settings(options, train_options);
  const trainer::Dataset data = load_training_data(options, train_options);
  check_training_data(data, train_options);
  const std::vector<trainer::Split> splits = make_splits(plan, data);
  for (size_t s = 0; s < splits.size(); ++s) {
    if (splits[s].train.size() < 2) {
      throw std::runtime_error("split " + std::to_string(s) + " has fewer than 2 training rows");
    }
  }

  // Splits trained in parallel already use the cores: one thread per update then.
  if (!options.has("threads") && std::min(jobs, splits.size()) > 1) train_options.threads = 1;
  const std::vector<SplitResult> results = run_splits(data, splits, train_options, recipe, jobs);
  const std::vector<Column>& columns = columns_for(train_options.task);
  if (options.has("json")) {
    print_json(columns, results);
  } else {
    print_table(columns, results);
  }
  return 0;
}

}  // namespace

int command_crossval(const Arguments& args) {
  CommandDefinition command{"crossval",
                            std::string(kUsage) + kTrainingOptionsHelp,
                            {{"data"},
                             {"splits"},
                             {"test-fraction"},
                             {"split-seed"},
                             {"split-files"},
                             {"jobs"},
                             {"json", false}}};
  for (const OptionSpec& spec : training_option_specs()) command.options.push_back(spec);
  return run_command(command, args, run);
}

}  // namespace pbp::cli
