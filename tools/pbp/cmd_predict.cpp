// SPDX-License-Identifier: Apache-2.0
// `pbp predict`: the predictive distribution of every row of a data file.
#include <iostream>

#include "commands.hpp"
#include "device_runner.hpp"
#include "options.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/prediction_csv.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp predict --model M.pbp --data F [--out P.csv] [--by-position] [--inputs-f32 I]\n"
    "\n"
    "Writes one CSV row per data row (original units), by the model's task:\n"
    "  regression         mean,std,epistemic_std,aleatoric_std\n"
    "                     (std, as a device computes it: std^2 = epistemic_std^2 +\n"
    "                     aleatoric_std^2 up to float rounding)\n"
    "  binary             p0,p1,entropy\n"
    "  multiclass         p0,...,p<C-1>,entropy   (class probabilities; entropy in nats)\n"
    "  count              mean,variance,mode,lower,upper\n"
    "                     (negative binomial; [lower, upper] the central 95 % interval)\n"
    "then, for every task, range,range_distance,range_input: the row against the inputs'\n"
    "training ranges: inside, outside (range_distance: the farthest input's distance beyond its\n"
    "range in training stds; range_input: that input) or unknown (a model written before\n"
    "ranges were stored).\n"
    "CSV input columns are matched by the model's feature names: a header that lacks one is an\n"
    "error naming the missing and unexpected columns. By position only with --by-position\n"
    "(which a model without feature names needs); the target column may be present (it is\n"
    "dropped by name, else the last column). IDX images (MNIST format, uncompressed) are read by "
    "position.\n"
    "\n"
    "  --model M.pbp   the model blob\n"
    "  --data F        CSV with a header row, or IDX images\n"
    "  --out P.csv     write here (atomically) instead of standard output\n"
    "  --by-position   match CSV columns to the inputs by position, ignoring the header\n"
    "  --inputs-f32 I  also write each row's inputs as the runtime receives them: float32,\n"
    "                  little-endian, in the model's input order, row after row (the inputs\n"
    "                  of targets/tools/run-on-device.sh and the model_runner firmware)\n";

int run(const ParsedOptions& options) {
  const LoadedModel model = LoadedModel::load(options.required_text("model"));
  const ModelRows rows = load_model_rows(options, model.description(), false);
  if (const auto out = options.text("out")) trainer::check_destination(*out);
  if (const auto inputs = options.text("inputs-f32")) trainer::check_destination(*inputs);

  const trainer::Task task = model.description().task;
  // Each task's columns, then the range report's (their rows end in the newline dropped here).
  std::string csv = prediction_csv_header(model.description());
  csv.back() = ',';
  csv += range_csv_header() + "\n";
  for (size_t row = 0; row < rows.data.rows; ++row) {
    if (task == trainer::Task::regression) {
      csv += prediction_csv_row(predict_interval_row(model, rows, row, 0.95));
    } else if (task == trainer::Task::count) {
      csv += prediction_csv_row(predict_count_row(model, rows, row));
    } else {
      csv += prediction_csv_row(predict_classes_row(model, rows, row));
    }
    const std::span<const double> x(rows.data.row(row), rows.data.inputs);
    csv.back() = ',';
    csv += range_csv_fields(model.input_range(x), model.description()) + "\n";
  }
  if (const auto inputs = options.text("inputs-f32")) {
    std::vector<std::vector<float>> floats;  // rounded as LoadedModel rounds them to predict
    for (size_t row = 0; row < rows.data.rows; ++row) {
      floats.emplace_back(rows.data.row(row), rows.data.row(row) + rows.data.inputs);
    }
    write_runner_inputs(*inputs, floats);
  }
  if (const auto out = options.text("out")) {
    trainer::write_file_atomically(*out, csv);
  } else {
    std::cout << csv << std::flush;
  }
  return 0;
}

}  // namespace

int command_predict(const Arguments& args) {
  const CommandDefinition command{
      "predict", kUsage, {{"model"}, {"data"}, {"out"}, {"by-position", false}, {"inputs-f32"}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
