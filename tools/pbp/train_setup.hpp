// What `train` and `crossval` share: the training options and the data loading.
#pragma once
#include <string>
#include <vector>

#include "options.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::cli {

// --target, --hidden, --epochs, --seed.
std::vector<OptionSpec> training_option_specs();
extern const char* const kTrainingOptionsHelp;

trainer::TrainOptions training_options(const ParsedOptions& options);
// Loads --data (at least 2 rows) and splits off the --target column (default: the last).
trainer::Dataset load_training_data(const ParsedOptions& options);

// "13 -> 50 -> 50 -> 1" for a data set's input count and the hidden widths.
std::string architecture(size_t inputs, const std::vector<uint32_t>& hidden);
// The noise standard deviation sqrt(b / (a - 1)) in original target units.
double noise_std(const trainer::Model& model);

}  // namespace pbp::cli
