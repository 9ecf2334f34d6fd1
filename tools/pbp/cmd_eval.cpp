// SPDX-License-Identifier: Apache-2.0
// `pbp eval`: test metrics of a model on labelled data, in original units.
#include <filesystem>
#include <iostream>

#include "calibration_plot.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/host/evaluation.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "train_setup.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp eval --model M.pbp --data F.csv [--target NAME|INDEX] [--json]\n"
    "                [--calibration PLOT.svg] [--by-position]\n"
    "       pbp eval --model M.pbp --data IMAGES --labels LABELS ...   (IDX files)\n"
    "\n"
    "Regression: RMSE, the mean test log-likelihood log p(y | mean, total variance) of the\n"
    "model's predictive (Gaussian, or its Student-t: pbp inspect says which), and the fraction of\n"
    "targets inside its central 50 %, 90 % and 95 % intervals.\n"
    "Binary and multiclass: accuracy (most probable class), the mean log-likelihood log p(label)\n"
    "(p floored at 1e-15), the Brier score mean sum_c (p_c - [label = c])^2 (every class, also\n"
    "for binary), and the expected calibration error over 15 equal-width confidence bins.\n"
    "Count: the mean absolute deviation |y - mode| of the negative binomial's mode, and the mean\n"
    "log-likelihood log NB(y) (floored at log 1e-15).\n"
    "\n"
    "  --model M.pbp         the model blob\n"
    "  --data F              CSV with a header row, the inputs and the target; or IDX images\n"
    "  --labels L            the IDX labels file for IDX images\n"
    "  --target NAME|INDEX   CSV target column (default: the model's target name, else the last)\n"
    "  --by-position         match CSV input columns by position, not by the model's feature\n"
    "                        names (by default a header lacking one of them is an error; a\n"
    "                        model without feature names needs it)\n"
    "  --json                print one JSON object: {\"rmse\", \"loglik\", \"coverage50\",\n"
    "                        \"coverage90\", \"coverage95\", \"rows\"} (regression),\n"
    "                        {\"accuracy\", \"loglik\", \"brier\", \"ece\", \"rows\"}\n"
    "                        (binary, multiclass) or {\"mad\", \"loglik\", \"rows\"} (count)\n"
    "  --calibration PLOT    also write an SVG calibration plot: for regression the observed\n"
    "                        fraction of targets inside the central p intervals against p =\n"
    "                        0.05, 0.10, ..., 0.95, 0.99, shaded where a calibrated model\n"
    "                        would fall 95 % of the time; for binary and multiclass the\n"
    "                        reliability diagram (accuracy and mean confidence in the 15 ECE\n"
    "                        bins, and rows per bin). Not for count models.\n";

// Accuracy, coverage and calibration are fractions: fixed digits; the rest %g.
std::string metric_text(const Metric& metric) {
  const bool fraction =
      metric.key == "accuracy" || metric.key == "ece" || metric.key.rfind("coverage", 0) == 0;
  return fraction ? fixed(metric.value, 4) : general(metric.value, 6);
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

int run(const ParsedOptions& options) {
  const std::string model_path = options.required_text("model");
  const LoadedModel model = LoadedModel::load(model_path);
  const auto plot = options.text("calibration");
  if (plot) {
    require_calibration_plot(model.description().task);
    trainer::check_destination(*plot);
  }
  const ModelRows rows = load_model_rows(options, model.description(), true);
  const RowPredictions predictions = predict_rows(model, rows);
  const std::vector<Metric> metrics = score(predictions, rows.data.y);
  if (plot) {
    write_calibration_plot(*plot, predictions, rows.data.y,
                           "Calibration of " + file_name(model_path) + " on " +
                               file_name(options.required_text("data")));
  }
  if (options.has("json")) {
    JsonObject json;
    for (const Metric& metric : metrics) json.add(metric.key, metric.value);
    std::cout << json.add("rows", static_cast<double>(rows.data.rows)).str() << "\n";
    return 0;
  }
  std::cout << "rows        " << rows.data.rows << " (target " << rows.data.target_name << ")\n";
  for (const Metric& metric : metrics) {
    std::cout << metric.key << std::string(12 - metric.key.size(), ' ') << metric_text(metric)
              << "\n";
  }
  if (plot) std::cout << "wrote " << *plot << " (calibration plot)\n";
  return 0;
}

}  // namespace

int command_eval(const Arguments& args) {
  const CommandDefinition command{"eval",
                                  kUsage,
                                  {{"model"},
                                   {"data"},
                                   {"labels"},
                                   {"target"},
                                   {"json", false},
                                   {"calibration"},
                                   {"by-position", false}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
