// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/training.hpp"

#include <string>

#include "pbp/host/errors.hpp"
#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/idx.hpp"
#include "pbp/trainer/option_names.hpp"

namespace pbp::host {
namespace {

// The name option `names` gives `value` (trainer/option_names.hpp).
template <class Value, size_t N>
std::string name_of(const trainer::OptionName<Value> (&names)[N], Value value) {
  for (const trainer::OptionName<Value>& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

void check_network(const std::vector<uint32_t>& hidden) {
  if (hidden.size() > kMaxHiddenLayers) {
    throw UsageError("hidden has " + std::to_string(hidden.size()) +
                     " layers: the runtime takes at most " + std::to_string(kMaxHiddenLayers));
  }
  for (const uint32_t width : hidden) {
    if (width < 1 || width > PBP_MAX_UNITS) {
      throw UsageError("hidden layer widths must be in 1.." + std::to_string(PBP_MAX_UNITS) +
                       ", got " + std::to_string(width));
    }
  }
}

trainer::Dataset load_idx(const DataFiles& files, const trainer::TrainOptions& train) {
  if (files.target) throw UsageError("--target goes with CSV data, not IDX images");
  const std::string labels = files.labels.value_or("");
  if (labels.empty()) throw UsageError("IDX images need their " + files.labels_option + " file");
  trainer::Dataset data = trainer::idx_dataset(
      trainer::read_idx(files.data), trainer::read_idx(labels), train.task, train.classes);
  if (data.rows < 2) {
    throw trainer::InputError(data.source, 0, 0,
                              "need at least 2 images, found " + std::to_string(data.rows));
  }
  return data;
}

trainer::Dataset load_csv(const DataFiles& files, const trainer::TrainOptions& train) {
  const trainer::CsvTable table = trainer::read_csv(files.data, 2);
  if (files.labels) {
    throw UsageError(files.labels_option +
                     " goes with IDX images; a CSV file holds its target (--target)");
  }
  const size_t target = trainer::resolve_column(table, files.target);
  trainer::check_target_column(table, target, train.task, train.classes);
  return trainer::to_dataset(table, target);
}

}  // namespace

RecipeSettings recipe_settings(trainer::Recipe recipe,
                               const std::optional<std::vector<uint32_t>>& hidden,
                               const std::optional<uint32_t>& epochs, trainer::Task task,
                               std::optional<bool> distance_variance) {
  RecipeSettings settings;
  settings.recipe = recipe;
  if (hidden) settings.space.networks = {*hidden};
  if (epochs) settings.space.epochs = {*epochs};
  if (distance_variance) {
    if (recipe != trainer::Recipe::automatic || task != trainer::Task::regression) {
      throw UsageError("--distance-variance goes with --recipe auto (regression)");
    }
    settings.space.distance_variance = *distance_variance;
  }
  return settings;
}

void check_training_options(const trainer::TrainOptions& train, const RecipeSettings& recipe) {
  check_network(train.hidden);
  if (recipe.recipe == trainer::Recipe::automatic) {
    for (const std::vector<uint32_t>& network : recipe.space.networks) check_network(network);
  }
  if (train.task == trainer::Task::multiclass && train.classes != 0 &&
      (train.classes < 2 || train.classes > PBP_MAX_CLASSES)) {
    throw UsageError("multiclass takes 2.." + std::to_string(PBP_MAX_CLASSES) + " classes, got " +
                     std::to_string(train.classes));
  }
  const trainer::Task likelihood_task = trainer::likelihood_task(train.likelihood, train.task);
  if (likelihood_task != train.task) {
    throw UsageError(std::string("--likelihood ") +
                     trainer::likelihood_kind_name(train.likelihood) + " goes with --task " +
                     trainer::task_name(likelihood_task));
  }
  if ((train.prior == trainer::PriorMode::ard || train.prior == trainer::PriorMode::laplace) &&
      train.algorithm == trainer::Algorithm::ebp) {
    throw UsageError("--prior " + name_of(trainer::kPriorNames, train.prior) +
                     " goes with --algorithm pbp (EBP keeps the prior fixed)");
  }
  if (train.inference == trainer::Inference::sep && train.algorithm == trainer::Algorithm::ebp) {
    throw UsageError("--inference sep goes with --algorithm pbp (EBP keeps variances fixed)");
  }
  if (train.threads != 1 && train.threads != 2) {
    throw UsageError("threads must be 1 or 2, got " + std::to_string(train.threads));
  }
}

void check_training_data(const trainer::Dataset& data, const trainer::TrainOptions& train) {
  if (data.rows < 2) {
    throw UsageError(data.source + " has " + std::to_string(data.rows) +
                     " rows: training needs at least 2");
  }
  if (data.inputs < 1 || data.inputs > PBP_MAX_UNITS) {
    throw UsageError(data.source + " has " + std::to_string(data.inputs) +
                     " inputs: the runtime takes 1.." + std::to_string(PBP_MAX_UNITS));
  }
  if (data.x.size() != data.rows * data.inputs || data.y.size() != data.rows) {
    throw UsageError(data.source + ": the inputs and targets do not fill " +
                     std::to_string(data.rows) + " rows");
  }
  check_training_options(train, {trainer::Recipe::paper, {}});
}

trainer::Dataset load_training_data(const DataFiles& files, trainer::TrainOptions& train) {
  const bool idx = trainer::looks_like_idx(files.data);
  trainer::Dataset data = idx ? load_idx(files, train) : load_csv(files, train);
  if (train.task == trainer::Task::multiclass) {
    train.classes = trainer::class_count(data.y, train.classes);
    if (train.classes < 2) {
      throw trainer::InputError(data.source, 0, 0,
                                "multiclass needs at least 2 classes but every label is 0");
    }
  }
  return data;
}

}  // namespace pbp::host
