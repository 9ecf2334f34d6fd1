// `pbp eval`: test metrics of a model on a labelled CSV file, in original units.
#include <iostream>

#include "commands.hpp"
#include "input_columns.hpp"
#include "model_file.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/trainer/metrics.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp eval --model M.pbp --data F.csv [--target NAME|INDEX] [--json]\n"
    "\n"
    "Prints RMSE, the mean test log-likelihood log N(y | mean, total variance), and the\n"
    "fraction of targets inside the central 50 %, 90 % and 95 % Gaussian predictive intervals.\n"
    "\n"
    "  --model M.pbp         the model blob\n"
    "  --data F.csv          CSV with a header row, the inputs and the target\n"
    "  --target NAME|INDEX   target column (default: the model's target name, else the last)\n"
    "  --json                print {\"rmse\", \"loglik\", \"coverage50\", \"coverage90\",\n"
    "                        \"coverage95\", \"rows\"} as one JSON object\n";

int run(const ParsedOptions& options) {
  const std::string model_path = options.required_text("model");
  const std::string data_path = options.required_text("data");
  const LoadedModel model = LoadedModel::load(model_path);
  const trainer::CsvTable table = trainer::read_csv(data_path, 1);
  const size_t target = select_target_column(table, model.description(), options.text("target"));
  const std::vector<size_t> columns = select_input_columns(table, model.description(), target);

  std::vector<double> targets(table.rows), mean(table.rows), variance(table.rows);
  for (size_t row = 0; row < table.rows; ++row) {
    const trainer::Prediction p = predict_row(model, table, row, columns);
    targets[row] = table.at(row, target);
    mean[row] = p.mean;
    variance[row] = p.variance();
  }
  const trainer::RegressionMetrics metrics = trainer::regression_metrics(targets, mean, variance);
  if (options.has("json")) {
    std::cout << JsonObject()
                     .add("rmse", metrics.rmse)
                     .add("loglik", metrics.loglik)
                     .add("coverage50", metrics.coverage50)
                     .add("coverage90", metrics.coverage90)
                     .add("coverage95", metrics.coverage95)
                     .add("rows", static_cast<double>(metrics.count))
                     .str()
              << "\n";
    return 0;
  }
  std::cout << "rows        " << metrics.count << " (target " << table.header[target] << ")\n"
            << "rmse        " << general(metrics.rmse, 6) << "\n"
            << "loglik      " << general(metrics.loglik, 6) << "\n"
            << "coverage50  " << fixed(metrics.coverage50, 4) << "\n"
            << "coverage90  " << fixed(metrics.coverage90, 4) << "\n"
            << "coverage95  " << fixed(metrics.coverage95, 4) << "\n";
  return 0;
}

}  // namespace

int command_eval(const Arguments& args) {
  const CommandDefinition command{
      "eval", kUsage, {{"model"}, {"data"}, {"target"}, {"json", false}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
