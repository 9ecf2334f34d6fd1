// SPDX-License-Identifier: Apache-2.0
// A training request, checked in one place before any training starts (the command line's
// train, crossval and active, and Python's fit), and the loading of training data files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "pbp/host/input_columns.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::host {

// The hidden layers a blob holds: the runtime's dense layers less the output layer.
inline constexpr size_t kMaxHiddenLayers = PBP_MAX_LAYERS - 1;

// The recipe (auto or paper) and what `auto` searches: given hidden widths and epochs fix the
// networks and the epochs it tries.
struct RecipeSettings {
  trainer::Recipe recipe = trainer::Recipe::automatic;
  trainer::SearchSpace space;
};

// `recipe` searching only `hidden` and `epochs` where given (auto; paper trains with them), with
// the distance variance on or off where given: that goes only with auto and regression (else
// UsageError, the same words from every front end).
RecipeSettings recipe_settings(trainer::Recipe recipe,
                               const std::optional<std::vector<uint32_t>>& hidden,
                               const std::optional<uint32_t>& epochs, trainer::Task task,
                               std::optional<bool> distance_variance = std::nullopt);

// Throws UsageError for what the runtime could not hold or the trainer does not combine: more
// than kMaxHiddenLayers hidden layers or a width outside 1..PBP_MAX_UNITS (in `train` or any
// network the recipe searches), a class count outside 2..PBP_MAX_CLASSES, --prior ard or laplace
// or --inference sep with EBP, a thread count other than 1 or 2. The same words from every front
// end.
void check_training_options(const trainer::TrainOptions& train, const RecipeSettings& recipe);
// Throws UsageError for data a model cannot be trained on: fewer than 2 rows, no inputs or more
// than PBP_MAX_UNITS, values and rows that do not match, or (multiclass) a class count out of
// range once the labels have set it.
void check_training_data(const trainer::Dataset& data, const trainer::TrainOptions& train);

// Loads training rows: a CSV (target column `files.target`, default the last) or IDX images with
// their labels. At least 2 rows; every target is checked against the task (an InputError names
// the file and line/label). For multiclass, sets train.classes to its value or 1 + the largest
// label, so every crossval split trains the same number of outputs.
trainer::Dataset load_training_data(const DataFiles& files, trainer::TrainOptions& train);

}  // namespace pbp::host
