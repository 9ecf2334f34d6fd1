// SPDX-License-Identifier: Apache-2.0
// `pbp demo`: from nothing to "my model runs on a (simulated) microcontroller and says how sure
// it is": trains the PBP paper's toy problem and Boston housing, exports both blobs, predicts
// with the freestanding runtime on the host and, given a device command, on the device, and
// prints the predictions with their uncertainty and whether host and device agree bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "calibration_plot.hpp"
#include "commands.hpp"
#include "demo_report.hpp"
#include "device_runner.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/host/evaluation.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/plot/plots.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/option_names.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/splits.hpp"
#include "pbp/trainer/toy_problem.hpp"
#include "pbp/trainer/train.hpp"
#include "training_curve.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp demo [--out-dir DIR] [--boston boston.csv] [--device COMMAND] [--seed N]\n"
    "                [--recipe paper|auto]\n"
    "\n"
    "Trains the PBP paper's toy problem (20 points, x ~ U[-4, 4], y = x^3 + N(0, 9), 100 hidden\n"
    "units, 40 epochs) and, given its CSV, Boston housing (a seeded 90/10 split, 1 x 50, 40\n"
    "epochs); writes both blobs; predicts a few inputs with the freestanding runtime and prints\n"
    "whether each input lies inside its training range (OUTSIDE: the model extrapolates), then\n"
    "the prediction, its 95 % interval and its epistemic and aleatoric std; for the toy, on a\n"
    "grid, how often the 95 % interval holds x^3 and the expected LL where x was drawn and\n"
    "beyond. With --device, runs the same blobs and inputs on the device and says whether every\n"
    "output is bit-identical (exit 1 if any differs). Plots (SVG): toy_predictive.svg (the\n"
    "paper's Figure 1: data, true function, predictive mean +- 3 std, training range),\n"
    "boston_calibration.svg (observed vs nominal coverage of central intervals on the test\n"
    "houses) and boston_training_curve.svg (RMSE and LL per epoch).\n"
    "\n"
    "  --out-dir DIR     where the blobs, inputs and device outputs go (default: pbp-demo)\n"
    "  --boston F.csv    Boston housing CSV, target last (tools/scripts/fetch_datasets.sh)\n"
    "  --device COMMAND  runs `COMMAND model.pbp inputs.f32` and reads the model_runner "
    "firmware's\n"
    "                    output, e.g. 'bash targets/tools/run-on-device.sh --preset cortex-m4f'\n"
    "  --seed N          seed of the data, splits and training (default 1)\n"
    "  --recipe R        paper (default): the networks above, as the PBP paper trains them;\n"
    "                    auto: pbp train's defaults (network, epochs, noise and the variance\n"
    "                    away from the data chosen from held-out training rows)\n";

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string output_path(const std::string& out_dir, const std::string& name) {
  return (std::filesystem::path(out_dir) / name).string();
}

// Predicts `inputs` with the runtime on the host and, if given, on the device; fills the rows.
void predict_on_host_and_device(DemoSection& section, const LoadedModel& host,
                                const std::vector<DemoInput>& inputs, const std::string& name,
                                const std::string& out_dir,
                                const std::optional<std::string>& device) {
  std::vector<std::vector<float>> rows;
  for (const DemoInput& input : inputs) {
    const std::vector<double> x(input.x.begin(), input.x.end());
    DemoRange range{host.input_range(x), ""};
    const std::vector<std::string>& names = host.description().feature_names;
    const uint32_t farthest = range.report.farthest_input;
    range.farthest_name = farthest < names.size() ? names[farthest] : std::to_string(farthest);
    section.rows.push_back({input, host.predict_interval(x, 0.95), std::nullopt, range});
    rows.push_back(input.x);
  }
  if (!device) return;
  const std::string inputs_path = output_path(out_dir, name + "_inputs.f32");
  write_runner_inputs(inputs_path, rows);
  const Clock::time_point start = Clock::now();
  const RunnerOutput device_run = run_on_device(*device, section.blob_path, inputs_path);
  const std::vector<OutputBits>& outputs = device_run.rows;
  section.device_board = device_run.board;
  section.device_seconds = seconds_since(start);
  if (outputs.size() != rows.size()) {
    throw std::runtime_error("the device printed " + std::to_string(outputs.size()) + " rows for " +
                             std::to_string(rows.size()) + " inputs");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    section.rows[i].device_equal = same_bits(section.rows[i].host, outputs[i]);
  }
}

// Writes the blob `name`.pbp and opens it with the runtime, as a device would.
LoadedModel save_and_open(DemoSection& section, const trainer::Model& model,
                          const std::string& name, const std::string& out_dir) {
  section.blob_path = output_path(out_dir, name + ".pbp");
  section.blob_bytes = save_model(section.blob_path, model).size();
  return LoadedModel::load(section.blob_path);
}

// How the demo trains: the PBP paper's recipe (`paper_hidden` units, 40 epochs) or the trainer's
// defaults (`auto`: pbp train's search).
struct DemoTraining {
  trainer::Recipe recipe = trainer::Recipe::paper;
  uint64_t seed = 1;
};

struct DemoModel {
  trainer::Model model;
  std::string network;  // "1 x 100 ReLU, 40 epochs" ("auto: 2 x 50 ReLU, 200 epochs")
  std::string plotted;  // "1 × 100 ReLU" ("auto, 2 × 50 ReLU")
};

DemoModel train_demo_model(
    const trainer::Dataset& data, uint32_t paper_hidden, const DemoTraining& training,
    const std::function<void(uint32_t, uint32_t, const trainer::Model&)>& on_epoch = nullptr) {
  const bool paper = training.recipe == trainer::Recipe::paper;
  trainer::TrainOptions options;
  options.seed = training.seed;
  options.on_epoch = on_epoch;
  if (paper) {
    options.hidden = {paper_hidden};
    options.epochs = 40;
  }
  trainer::RecipeChoice choice;
  DemoModel out{trainer::train_with_recipe(data, options, training.recipe, {}, &choice), "", ""};
  const std::vector<uint32_t>& hidden = paper ? options.hidden : choice.hidden;
  // "2 x 50" for equal widths, as the papers write them; else "100-50".
  std::string widths = std::to_string(hidden.size()) + " x " + std::to_string(hidden.front());
  if (std::adjacent_find(hidden.begin(), hidden.end(), std::not_equal_to<>()) != hidden.end()) {
    widths.clear();
    for (const uint32_t width : hidden) {
      widths += (widths.empty() ? "" : "-") + std::to_string(width);
    }
  }
  const uint32_t epochs = paper ? options.epochs : choice.epochs;
  out.network = (paper ? "" : "auto: ") + widths + " ReLU, " + std::to_string(epochs) + " epochs";
  const size_t times = widths.find(" x ");
  if (times != std::string::npos) widths.replace(times, 3, " × ");
  out.plotted = (paper ? "" : "auto, ") + widths + " ReLU";
  return out;
}

DemoSection toy_section(const DemoTraining& training, const std::string& out_dir,
                        const std::optional<std::string>& device) {
  const trainer::Dataset data = trainer::toy_problem(20, training.seed);
  const Clock::time_point start = Clock::now();
  const DemoModel trained = train_demo_model(data, 100, training);
  const trainer::Model& model = trained.model;
  const double train_seconds = seconds_since(start);
  std::vector<DemoInput> inputs;
  for (double x : {-6.0, -4.0, -2.0, 0.0, 2.0, 4.0, 6.0}) {
    inputs.push_back({"x = " + fixed(x, 1), {static_cast<float>(x)}, trainer::toy_function(x)});
  }
  DemoSection section;
  const LoadedModel host = save_and_open(section, model, "toy", out_dir);
  predict_on_host_and_device(section, host, inputs, "toy", out_dir, device);
  section.title = "Toy problem (PBP paper, Figure 1): y = x^3 + N(0, 9), 20 points on [-4, 4]";

  // The paper's Figure 1, predicted by the runtime: data, truth, mean and a +-3 std band.
  // The same grid scores the predictive where x was drawn (|x| <= 4) and beyond (4 < |x| <= 6):
  // what the band's width is worth where the model extrapolates.
  plot::BandPlot band;
  band.train_x = data.x;
  band.train_y = data.y;
  std::vector<GridPoint> inside, outside;
  for (int g = 0; g <= 240; ++g) {
    const double x = -6.0 + 12.0 * g / 240.0;
    const RegressionPrediction p = host.predict_interval({&x, 1}, 0.95);
    band.grid_x.push_back(x);
    band.true_y.push_back(trainer::toy_function(x));
    band.mean.push_back(p.moments.mean);
    band.std.push_back(p.std);
    const GridPoint point{trainer::toy_function(x), p.moments.mean, p.std, p.lower, p.upper};
    (std::abs(x) <= trainer::kToyInputLimit ? inside : outside).push_back(point);
  }
  const double noise_variance = trainer::kToyNoiseStd * trainer::kToyNoiseStd;
  section.notes.push_back(
      "on a grid every 0.05: x^3 in the 95 % interval; expected LL of y = x^3 + N(0, 9)");
  for (const auto& [label, points] : {std::pair{"|x| <= 4 (where x was drawn)", &inside},
                                      std::pair{"4 < |x| <= 6 (beyond)", &outside}}) {
    section.notes.push_back(
        grid_honesty_line(label, grid_honesty(*points, noise_variance, host.view().tail_dof)));
  }
  const auto [low, high] = std::minmax_element(data.x.begin(), data.x.end());
  band.training_range = plot::Range{*low, *high};
  band.title = "Toy problem: PBP, " + trained.plotted + ", 20 points, mean ± 3 std";
  section.plots.push_back(output_path(out_dir, "toy_predictive.svg"));
  plot::write_band_plot(section.plots.back(), band);
  section.summary = trained.network + ", trained in " + fixed(train_seconds * 1000.0, 0) + " ms";
  section.truth_label = "x^3";
  return section;
}

DemoSection boston_section(const std::string& csv, const DemoTraining& training,
                           const std::string& out_dir, const std::optional<std::string>& device) {
  const uint64_t seed = training.seed;
  const trainer::CsvTable table = trainer::read_csv(csv, 10);
  const trainer::Dataset data = trainer::to_dataset(table, table.columns() - 1);
  const trainer::Split split = trainer::random_splits(data.rows, 1, 0.1, seed).front();
  const trainer::Dataset train_rows = data.subset(split.train);
  const trainer::Dataset test_rows = data.subset(split.test);
  // Test RMSE and LL after every epoch, scored through the blob as `pbp eval` does.
  TrainingCurve curve(trainer::Task::regression);
  curve.add_data_set("training set", model_rows(train_rows));
  curve.add_data_set("test set", model_rows(test_rows));
  const Clock::time_point start = Clock::now();
  const DemoModel trained = train_demo_model(
      train_rows, 50, training, [&curve](uint32_t done, uint32_t, const trainer::Model& model) {
        curve.record(done, model);
      });
  const trainer::Model& model = trained.model;
  const double train_seconds = seconds_since(start) - curve.seconds();

  // The first test houses, and the first one again far outside the data (12 rooms, crime 80).
  std::vector<DemoInput> inputs;
  for (size_t i = 0; i < 4 && i < test_rows.rows; ++i) {
    const double* x = test_rows.row(i);
    inputs.push_back({"test house " + std::to_string(i + 1),
                      std::vector<float>(x, x + test_rows.inputs), test_rows.y[i]});
  }
  DemoInput unusual = inputs.front();
  unusual.label = "house 1, 12 rooms, crime 80";
  unusual.truth = std::nan("");
  for (size_t c = 0; c < data.feature_names.size(); ++c) {
    if (data.feature_names[c] == "RM") unusual.x[c] = 12.0f;
    if (data.feature_names[c] == "CRIM") unusual.x[c] = 80.0f;
  }
  inputs.push_back(unusual);

  DemoSection section;
  const LoadedModel host = save_and_open(section, model, "boston", out_dir);
  predict_on_host_and_device(section, host, inputs, "boston", out_dir, device);
  const RowPredictions predictions = predict_rows(host, model_rows(test_rows));
  const std::vector<Metric> metrics = score(predictions, test_rows.y);
  section.plots.push_back(output_path(out_dir, "boston_calibration.svg"));
  write_calibration_plot(section.plots.back(), predictions, test_rows.y,
                         "Boston test houses: coverage of central predictive intervals");
  section.plots.push_back(output_path(out_dir, "boston_training_curve.svg"));
  curve.write(section.plots.back(),
              "Boston housing, " + trained.plotted + ": figures after each epoch");
  section.title = "Boston housing: median value of homes in k$ (" +
                  std::to_string(train_rows.rows) + " training / " +
                  std::to_string(test_rows.rows) + " test houses)";
  section.summary = trained.network + ", trained in " + fixed(train_seconds * 1000.0, 0) +
                    " ms; test RMSE " + fixed(metric_value(metrics, "rmse"), 2) + ", LL " +
                    fixed(metric_value(metrics, "loglik"), 2) + ", 95 % interval coverage " +
                    fixed(metric_value(metrics, "coverage95"), 2);
  section.truth_label = "price";
  return section;
}

int run(const ParsedOptions& options) {
  const std::string out_dir = options.text("out-dir").value_or("pbp-demo");
  DemoTraining training;
  training.seed = options.unsigned_integer("seed", 1);
  if (const auto recipe = options.text("recipe")) {
    const auto value = trainer::parse_option_name(trainer::kRecipeNames, *recipe);
    if (!value) {
      throw UsageError("--recipe expects " + trainer::option_choices(trainer::kRecipeNames) +
                       ", got '" + *recipe + "'");
    }
    training.recipe = *value;
  }
  const std::optional<std::string> device = options.text("device");
  std::filesystem::create_directories(out_dir);
  const Clock::time_point start = Clock::now();

  std::vector<DemoSection> sections;
  sections.push_back(toy_section(training, out_dir, device));
  if (const std::optional<std::string> boston = options.text("boston")) {
    sections.push_back(boston_section(*boston, training, out_dir, device));
  }
  bool all_equal = true;
  for (const DemoSection& section : sections) {
    print_section(std::cout, section, device.has_value());
    for (const DemoRow& row : section.rows) all_equal &= row.device_equal.value_or(true);
  }
  print_device_summary(std::cout, sections, device);
  std::cout << "done in " << fixed(seconds_since(start), 1) << " s; files in " << out_dir << "\n";
  return all_equal ? 0 : 1;
}

}  // namespace

int command_demo(const Arguments& args) {
  const CommandDefinition command{
      "demo", kUsage, {{"out-dir"}, {"boston"}, {"device"}, {"seed"}, {"recipe"}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
