// `pbp crossval`: the paper's protocol - train on each split's training rows, test on the rest,
// report per-split figures and mean +- standard error.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

#include "commands.hpp"
#include "model_file.hpp"
#include "output.hpp"
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
    "\n"
    "Trains on each split's training rows and evaluates its blob on the test rows through the\n"
    "runtime (original units), as 'pbp train' + 'pbp eval' would;\n"
    "prints per-split RMSE, test log-likelihood, 95 % coverage and training time, then the mean\n"
    "+- standard error (population std / sqrt(K)).\n"
    "\n"
    "  --data F.csv         CSV with a header row\n"
    "  --splits K           K seeded random splits ...\n"
    "  --test-fraction F    ... each holding out this fraction of rows (default: 0.1)\n"
    "  --split-seed N       seed of the random splits (default: the --seed value)\n"
    "  --split-files DIR    read DIR/index_train_<s>.txt and index_test_<s>.txt, s = 0, 1, ...\n"
    "                       (whitespace-separated 0-based row indices into the CSV body)\n"
    "  --jobs N             splits trained in parallel (default: hardware threads)\n"
    "  --json               print one JSON object instead of the table\n"
    "training options (applied to every split):\n";

struct SplitResult {
  trainer::RegressionMetrics metrics;
  double train_seconds = 0.0;
};

SplitResult run_split(const trainer::Dataset& data, const trainer::Split& split,
                      const trainer::TrainOptions& options) {
  const trainer::Dataset train_rows = data.subset(split.train);
  const trainer::Dataset test_rows = data.subset(split.test);
  const auto start = std::chrono::steady_clock::now();
  const trainer::Model model = trainer::train(train_rows, options);
  SplitResult result;
  result.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // Evaluate the blob through the runtime, exactly as `pbp train` + `pbp eval` would.
  const LoadedModel blob = LoadedModel::open(trainer::write_blob(model), "split blob");
  std::vector<double> mean(test_rows.rows), variance(test_rows.rows);
  for (size_t i = 0; i < test_rows.rows; ++i) {
    const trainer::Prediction prediction = blob.predict({test_rows.row(i), test_rows.inputs});
    mean[i] = prediction.mean;
    variance[i] = prediction.variance();
  }
  result.metrics = trainer::regression_metrics(test_rows.y, mean, variance);
  return result;
}

// Runs every split on `jobs` threads; results land by index, so they do not depend on timing.
std::vector<SplitResult> run_splits(const trainer::Dataset& data,
                                    const std::vector<trainer::Split>& splits,
                                    const trainer::TrainOptions& options, size_t jobs) {
  std::vector<SplitResult> results(splits.size());
  std::vector<std::exception_ptr> failures(splits.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  std::mutex progress_mutex;
  ProgressBar progress("crossval");
  progress.update(0, splits.size());
  auto worker = [&] {
    for (size_t s = next++; s < splits.size(); s = next++) {
      try {
        results[s] = run_split(data, splits[s], options);
      } catch (...) {
        failures[s] = std::current_exception();
      }
      const std::lock_guard lock(progress_mutex);
      progress.update(++finished, splits.size());
    }
  };
  {
    std::vector<std::jthread> threads;
    for (size_t t = 1; t < std::min(jobs, splits.size()); ++t) threads.emplace_back(worker);
    worker();
  }
  progress.finish();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
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
  const uint64_t count = options.unsigned_integer("splits", 0);
  if (count == 0 || count > 10'000) throw UsageError("--splits must be between 1 and 10000");
  plan.count = static_cast<size_t>(count);
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

void print_table(const std::vector<SplitResult>& results, const trainer::MeanAndError& rmse,
                 const trainer::MeanAndError& loglik, const trainer::MeanAndError& coverage,
                 const trainer::MeanAndError& seconds) {
  std::cout << "split      rmse    loglik  cover95  train s\n";
  for (size_t s = 0; s < results.size(); ++s) {
    const SplitResult& r = results[s];
    char line[128];
    std::snprintf(line, sizeof line, "%5zu %9.4f %9.4f %8.3f %8.3f\n", s, r.metrics.rmse,
                  r.metrics.loglik, r.metrics.coverage95, r.train_seconds);
    std::cout << line;
  }
  std::cout << "mean   " << fixed(rmse.mean, 4) << " +- " << fixed(rmse.standard_error, 4)
            << " rmse, " << fixed(loglik.mean, 4) << " +- " << fixed(loglik.standard_error, 4)
            << " loglik, " << fixed(coverage.mean, 3) << " cover95, " << fixed(seconds.mean, 3)
            << " s training per split (" << results.size() << " splits)\n";
}

int run(const ParsedOptions& options) {
  const trainer::TrainOptions train_options = training_options(options);
  const uint64_t jobs_wanted =
      options.unsigned_integer("jobs", std::max(1u, std::thread::hardware_concurrency()));
  if (jobs_wanted == 0 || jobs_wanted > 256) throw UsageError("--jobs must be between 1 and 256");
  const SplitPlan plan = split_plan(options, train_options.seed);
  const trainer::Dataset data = load_training_data(options);
  const std::vector<trainer::Split> splits = make_splits(plan, data);
  for (size_t s = 0; s < splits.size(); ++s) {
    if (splits[s].train.size() < 2) {
      throw std::runtime_error("split " + std::to_string(s) + " has fewer than 2 training rows");
    }
  }

  const std::vector<SplitResult> results =
      run_splits(data, splits, train_options, static_cast<size_t>(jobs_wanted));
  std::vector<double> rmse, loglik, coverage, seconds;
  for (const SplitResult& r : results) {
    rmse.push_back(r.metrics.rmse);
    loglik.push_back(r.metrics.loglik);
    coverage.push_back(r.metrics.coverage95);
    seconds.push_back(r.train_seconds);
  }
  const auto rmse_stats = trainer::mean_and_standard_error(rmse);
  const auto loglik_stats = trainer::mean_and_standard_error(loglik);
  const auto coverage_stats = trainer::mean_and_standard_error(coverage);
  const auto seconds_stats = trainer::mean_and_standard_error(seconds);
  if (!options.has("json")) {
    print_table(results, rmse_stats, loglik_stats, coverage_stats, seconds_stats);
    return 0;
  }
  std::vector<std::string> per_split;
  for (const SplitResult& r : results) {
    per_split.push_back(JsonObject()
                            .add("rmse", r.metrics.rmse)
                            .add("loglik", r.metrics.loglik)
                            .add("coverage95", r.metrics.coverage95)
                            .add("train_seconds", r.train_seconds)
                            .str());
  }
  std::cout << JsonObject()
                   .add("rmse_mean", rmse_stats.mean)
                   .add("rmse_se", rmse_stats.standard_error)
                   .add("loglik_mean", loglik_stats.mean)
                   .add("loglik_se", loglik_stats.standard_error)
                   .add("coverage95_mean", coverage_stats.mean)
                   .add("train_seconds_mean", seconds_stats.mean)
                   .add_raw("splits", json_array(per_split))
                   .str()
            << "\n";
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
