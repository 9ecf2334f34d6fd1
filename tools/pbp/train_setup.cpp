#include "train_setup.hpp"

#include <cmath>

#include "pbp/trainer/csv.hpp"

namespace pbp::cli {

std::vector<OptionSpec> training_option_specs() {
  return {{"target"}, {"hidden"}, {"epochs"}, {"seed"}};
}

const char* const kTrainingOptionsHelp =
    "  --target NAME|INDEX  target column by header name or 0-based index (default: last)\n"
    "  --hidden W[,W...]    widths of the ReLU hidden layers (default: 50)\n"
    "  --epochs N           passes over the training data (default: 40)\n"
    "  --seed N             random seed; equal seeds give identical models (default: 1)\n";

trainer::TrainOptions training_options(const ParsedOptions& options) {
  trainer::TrainOptions train;
  train.hidden = options.width_list("hidden", train.hidden);
  const uint64_t epochs = options.unsigned_integer("epochs", train.epochs);
  if (epochs == 0 || epochs > 1'000'000) throw UsageError("--epochs must be between 1 and 1000000");
  train.epochs = static_cast<uint32_t>(epochs);
  train.seed = options.unsigned_integer("seed", train.seed);
  return train;
}

trainer::Dataset load_training_data(const ParsedOptions& options) {
  const trainer::CsvTable table = trainer::read_csv(options.required_text("data"), 2);
  return trainer::to_dataset(table, trainer::resolve_column(table, options.text("target")));
}

std::string architecture(size_t inputs, const std::vector<uint32_t>& hidden) {
  std::string text = std::to_string(inputs);
  for (const uint32_t width : hidden) text += " -> " + std::to_string(width);
  return text + " -> 1";
}

double noise_std(const trainer::Model& model) {
  return std::sqrt(model.noise.variance_estimate()) * model.standardisation.target_std;
}

}  // namespace pbp::cli
