// SPDX-License-Identifier: Apache-2.0
// What the commands share: the training options, --data and --jobs, read into the host library's
// requests (tools/host), and the summaries `train` and `crossval` print.
#pragma once
#include <string>
#include <vector>

#include "host_names.hpp"
#include "options.hpp"
#include "pbp/host/input_columns.hpp"
#include "pbp/host/training.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::cli {

// --labels, --target, --task, --classes, --algorithm, --softmax, --samples, --hidden, --epochs,
// --seed.
std::vector<OptionSpec> training_option_specs();
extern const char* const kTrainingOptionsHelp;

// Throws UsageError for a malformed value or a combination that does not fit the task.
trainer::TrainOptions training_options(const ParsedOptions& options);

// --recipe auto|paper (default auto) and what `auto` searches: --hidden and --epochs, when given,
// fix the network and the epochs it searches over.
RecipeSettings recipe_settings(const ParsedOptions& options, const trainer::TrainOptions& train);

// "chose --hidden 50,50, 120 epochs, noise std 0.42 from 91 held-out rows" for a regression trained
// by the automatic recipe; empty otherwise.
std::string recipe_summary(const trainer::RecipeChoice& choice, const trainer::Model& model);

// Loads --data with --labels and --target (host::load_training_data).
trainer::Dataset load_training_data(const ParsedOptions& options, trainer::TrainOptions& train);
// Loads --data, --labels, --target and --by-position for `model` (host::load_model_rows).
ModelRows load_model_rows(const ParsedOptions& options, const ModelDescription& model,
                          bool labelled);
// --jobs N: 1 .. 256, default the hardware threads. UsageError when out of range.
size_t jobs_option(const ParsedOptions& options);

// "13 -> 50 -> 50 -> 1" for a data set's input count, the hidden widths and the output count.
std::string architecture(size_t inputs, const std::vector<uint32_t>& hidden, size_t outputs = 1);
// The network outputs `train` gives: classes for multiclass, else 1.
size_t output_count(const trainer::TrainOptions& train);
// "multiclass, 10 classes, softmax mean-field" and the like; empty for regression.
std::string task_summary(const trainer::TrainOptions& train);
// The noise standard deviation sqrt(b / (a - 1)) in original target units.
double noise_std(const trainer::Model& model);

}  // namespace pbp::cli
