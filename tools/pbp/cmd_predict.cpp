// `pbp predict`: the predictive distribution of every row of a CSV file.
#include <charconv>
#include <cmath>
#include <iostream>

#include "commands.hpp"
#include "input_columns.hpp"
#include "model_file.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/trainer/atomic_file.hpp"

namespace pbp::cli {
namespace {

// The runtime computes in float: print the shortest text that reads back as the same float.
std::string float_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value));
  return std::string(buffer, result.ptr);
}

const char* const kUsage =
    "usage: pbp predict --model M.pbp --data F.csv [--out P.csv]\n"
    "\n"
    "Writes one CSV row per data row: mean,std,epistemic_std,aleatoric_std (original units;\n"
    "std^2 = epistemic_std^2 + aleatoric_std^2). Input columns are matched by the model's\n"
    "feature names when the header has them all, otherwise by position; the target column may\n"
    "be present (it is dropped by name, else the last column).\n"
    "\n"
    "  --model M.pbp   the model blob\n"
    "  --data F.csv    CSV with a header row\n"
    "  --out P.csv     write here (atomically) instead of standard output\n";

int run(const ParsedOptions& options) {
  const std::string model_path = options.required_text("model");
  const std::string data_path = options.required_text("data");
  const LoadedModel model = LoadedModel::load(model_path);
  const trainer::CsvTable table = trainer::read_csv(data_path, 1);
  const std::vector<size_t> columns =
      select_input_columns(table, model.description(), std::nullopt);
  if (const auto out = options.text("out")) trainer::check_destination(*out);

  std::string csv = "mean,std,epistemic_std,aleatoric_std\n";
  for (size_t row = 0; row < table.rows; ++row) {
    const trainer::Prediction p = predict_row(model, table, row, columns);
    csv.append(float_text(p.mean)).append(",").append(float_text(std::sqrt(p.variance())));
    csv.append(",").append(float_text(std::sqrt(p.epistemic_variance))).append(",");
    csv.append(float_text(std::sqrt(p.aleatoric_variance))).append("\n");
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
  const CommandDefinition command{"predict", kUsage, {{"model"}, {"data"}, {"out"}}};
  return run_command(command, args, run);
}

}  // namespace pbp::cli
