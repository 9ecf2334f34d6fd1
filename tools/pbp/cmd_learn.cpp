// SPDX-License-Identifier: Apache-2.0
// `pbp learn --model M.pbp --data NEW.csv --out M2.pbp [--passes N]`: the device's learning on a
// workstation. Runs the runtime's float update (pbp_learn.h, the bits a device computes) over the
// rows, writes the learnt blob atomically and prints the figures before and after.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/host/evaluation.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "pbp/trainer/blob.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp learn --model M.pbp --data NEW.csv --out M2.pbp [--passes N] [--target "
    "NAME|INDEX]\n"
    "                 [--by-position] [--no-recalibrate]\n"
    "\n"
    "Learns from labelled rows the way a device does (runtime/include/pbp/pbp_learn.h): one PBP\n"
    "update per row in float, the same bits as on any target, starting from M.pbp; the prior "
    "stays\n"
    "as trained (no EP sweep). Regression and binary models. Writes the learnt model to M2.pbp\n"
    "atomically (float32 weights, the source's layout) and prints, on the rows, before and after:\n"
    "RMSE (regression) or accuracy (binary), the mean log-likelihood, and the mean epistemic std\n"
    "(regression: of the prediction, in target units; binary: of the network output z).\n"
    "\n"
    "  --model M.pbp         the model to start from\n"
    "  --data F.csv          CSV with a header row, the inputs and the target\n"
    "  --out M2.pbp          the learnt model to write\n"
    "  --passes N            passes over the rows (default 1; PBP counts a row once per pass)\n"
    "  --target NAME|INDEX   CSV target column (default: the model's target name, else the last)\n"
    "  --by-position         match CSV input columns by position, not by the model's feature "
    "names\n"
    "                        (a model without feature names needs it)\n"
    "  --no-recalibrate      keep the epistemic scale and let the noise follow ADF: without it,\n"
    "                        a model with an epistemic scale (pbp train's recipe) re-fits both\n"
    "                        from the learner's running check of its own predictions\n"
    "                        (pbp_learn_set_recalibration)\n";

struct Figures {
  std::vector<Metric> metrics;
  double epistemic_std = 0.0;
};

Figures figures_of(const std::vector<uint8_t>& blob, const std::string& source,
                   const ModelRows& rows) {
  const LoadedModel model = LoadedModel::open(blob, source);
  Figures f;
  f.metrics = evaluate(model, rows);
  const bool regression = model.description().task == trainer::Task::regression;
  const trainer::Model doubles = regression ? trainer::Model{} : trainer::read_blob(blob);
  for (size_t r = 0; r < rows.data.rows; ++r) {
    const std::span<const double> x(rows.data.row(r), rows.data.inputs);
    f.epistemic_std += regression
                           ? std::sqrt(model.predict(x).epistemic_variance)
                           : std::sqrt(trainer::output_layer_moments(doubles, x).variance[0]);
  }
  f.epistemic_std /= static_cast<double>(rows.data.rows);
  return f;
}

void print_row(const std::string& name, double before, double after) {
  std::printf("%-20s %-12s %s\n", name.c_str(), general(before, 6).c_str(),
              general(after, 6).c_str());
}

int run(const ParsedOptions& options) {
  const std::string model_path = options.required_text("model");
  const std::string out = options.required_text("out");
  const uint64_t passes = options.integer_between("passes", 1, 1, 1000000);
  const std::vector<uint8_t> bytes = read_model_file(model_path);
  const std::vector<uint32_t> aligned = aligned_copy(bytes);
  pbp::Model model;
  open_blob(model, aligned.data(), bytes.size(), model_path);
  if (model.task() != PBP_TASK_REGRESSION && model.task() != PBP_TASK_BINARY) {
    throw UsageError("pbp learn: the device learns regression and binary models only");
  }
  const LoadedModel loaded = LoadedModel::open(bytes, model_path);
  const ModelRows rows = load_model_rows(options, loaded.description(), true);
  trainer::check_destination(out);
  const Figures before = figures_of(bytes, model_path, rows);

  pbp::Learner learner;
  std::vector<float> state(pbp::learn_state_bytes(model.view().weight_count) / 4);
  const pbp::Status init = learner.init(model, state.data(), state.size() * 4);
  if (init != PBP_OK) throw std::runtime_error(std::string("pbp learn: ") + status_string(init));
  if (options.has("no-recalibrate")) {
    const pbp::Status off =
        pbp_learn_set_recalibration(const_cast<pbp_learner*>(&learner.view()), 0u);
    if (off != PBP_OK) {
      throw std::runtime_error(std::string("pbp learn: --no-recalibrate: ") + status_string(off));
    }
  }
  std::vector<float> workspace(learner.workspace_bytes() / 4);
  std::map<pbp::Status, uint64_t> rejected;
  uint64_t skipped_weights = 0, applied = 0;
  std::vector<float> x(rows.data.inputs);
  for (uint64_t pass = 0; pass < passes; ++pass) {
    for (size_t r = 0; r < rows.data.rows; ++r) {
      for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(rows.data.row(r)[k]);
      pbp_learn_outcome outcome{};
      const pbp::Status status = learner.update(x.data(), static_cast<uint32_t>(x.size()),
                                                static_cast<float>(rows.data.y[r]),
                                                workspace.data(), workspace.size() * 4, &outcome);
      if (status != PBP_OK) {
        ++rejected[status];
        continue;
      }
      ++applied;
      skipped_weights += outcome.skipped_weights;
    }
  }
  std::vector<uint32_t> written((learner.blob_bytes() + 3) / 4);
  size_t size = 0;
  const pbp::Status write = learner.write_blob(written.data(), written.size() * 4, &size);
  if (write != PBP_OK) throw std::runtime_error(std::string("pbp learn: ") + status_string(write));
  const std::vector<uint8_t> blob(reinterpret_cast<const uint8_t*>(written.data()),
                                  reinterpret_cast<const uint8_t*>(written.data()) + size);
  const Figures after = figures_of(blob, out, rows);
  trainer::write_file_atomically(out, blob);

  std::printf("rows                 %zu (target %s), %llu pass%s\n", rows.data.rows,
              rows.data.target_name.c_str(), static_cast<unsigned long long>(passes),
              passes == 1 ? "" : "es");
  std::printf(
      "updates              %llu applied, %llu weight updates skipped (variance not "
      "positive)\n",
      static_cast<unsigned long long>(applied), static_cast<unsigned long long>(skipped_weights));
  for (const auto& [status, count] : rejected) {
    std::printf("rejected rows        %llu: %s\n", static_cast<unsigned long long>(count),
                status_string(status));
  }
  std::printf("%-20s %-12s %s\n", "on these rows", "before", "after");
  const bool regression = model.task() == PBP_TASK_REGRESSION;
  const char* headline = regression ? "rmse" : "accuracy";
  print_row(headline, metric_value(before.metrics, headline),
            metric_value(after.metrics, headline));
  print_row("loglik", metric_value(before.metrics, "loglik"),
            metric_value(after.metrics, "loglik"));
  print_row("mean epistemic std", before.epistemic_std, after.epistemic_std);
  if (regression) {
    print_row(
        "noise std",
        std::sqrt(model.view().noise_b / (model.view().noise_a - 1.0)) * model.view().target_std,
        std::sqrt(learner.model().noise_b / (learner.model().noise_a - 1.0)) *
            learner.model().target_std);
  }
  std::printf("wrote %s: %zu bytes\n", out.c_str(), size);
  return 0;
}

}  // namespace

int command_learn(const Arguments& args) {
  const CommandDefinition command{"learn",
                                  kUsage,
                                  {{"model"},
                                   {"data"},
                                   {"out"},
                                   {"passes"},
                                   {"target"},
                                   {"by-position", false},
                                   {"no-recalibrate", false}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
