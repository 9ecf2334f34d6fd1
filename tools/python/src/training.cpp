// SPDX-License-Identifier: Apache-2.0
#include "training.hpp"

#include <pybind11/stl.h>

#include <cmath>
#include <functional>
#include <stdexcept>

#include "arrays.hpp"
#include "pbp/host/training.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/option_names.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::python {
namespace {

[[noreturn]] void bad_option(const std::string& name, const std::string& value,
                             const std::string& choices) {
  throw std::invalid_argument(name + " must be " + choices + ", got '" + value + "'");
}

// The value `text` names in option `name`'s table (trainer/option_names.hpp).
template <class Value, size_t N>
Value named(const std::string& text, const std::string& name,
            const trainer::OptionName<Value> (&names)[N]) {
  const auto value = trainer::parse_option_name(names, text);
  if (!value) bad_option(name, text, trainer::option_choices(names, "'"));
  return *value;
}

trainer::TrainOptions train_options(const TrainRequest& r) {
  trainer::TrainOptions o;
  const auto task = trainer::parse_task(r.task);
  if (!task) bad_option("task", r.task, "regression, binary, multiclass or count");
  o.task = *task;
  o.classes = r.classes;
  if (r.hidden) o.hidden = *r.hidden;
  o.activation = named(r.activation, "activation", trainer::kActivationNames);
  if (r.epochs) o.epochs = *r.epochs;
  o.seed = r.seed;
  o.algorithm = named(r.algorithm, "algorithm", trainer::kAlgorithmNames);
  o.prior = named(r.prior, "prior", trainer::kPriorNames);
  if (r.likelihood != "auto") {
    o.likelihood = named(r.likelihood, "likelihood", trainer::kLikelihoodNames);
  }
  o.softmax = named(r.softmax, "softmax", trainer::kSoftmaxNames);
  o.samples = r.samples;
  o.inference = named(r.inference, "inference", trainer::kInferenceNames);
  o.averaging = named(r.averaging, "averaging", trainer::kAveragingNames);
  o.threads = r.threads;
  return o;
}

// The rows as the trainer takes them, every value checked: a NaN or an Inf is named by its cell.
trainer::Dataset dataset(const Matrix& x, const py::array_t<double>& y, const TrainRequest& r,
                         trainer::Task task) {
  if (y.ndim() != 1 || static_cast<size_t>(y.shape(0)) != x.rows()) {
    throw std::invalid_argument("y must be 1-D with one value per row of X");
  }
  if (!r.feature_names.empty() && r.feature_names.size() != x.columns()) {
    throw std::invalid_argument("feature_names has " + std::to_string(r.feature_names.size()) +
                                " names for " + std::to_string(x.columns()) + " columns of X");
  }
  trainer::Dataset data;
  data.source = "X";
  data.rows = x.rows();
  data.inputs = x.columns();
  data.target_name = r.target_name;
  data.feature_names = r.feature_names;
  if (data.feature_names.empty()) {  // for the trainer's messages only: the blob gets none
    for (size_t k = 0; k < x.columns(); ++k)
      data.feature_names.push_back("X[:, " + std::to_string(k) + "]");
  }
  data.x.resize(data.rows * data.inputs);
  data.y.resize(data.rows);
  const auto targets = y.unchecked<1>();
  for (size_t i = 0; i < data.rows; ++i) {
    for (size_t k = 0; k < data.inputs; ++k) {
      const double value = x.at(i, k);
      if (!std::isfinite(value)) {
        throw std::invalid_argument(cell_name("X", i, k) + " is " + std::to_string(value) +
                                    ": training inputs must be finite (no NaN or inf)");
      }
      data.x[i * data.inputs + k] = value;
    }
    const double target = targets(static_cast<py::ssize_t>(i));
    if (!std::isfinite(target)) {
      throw std::invalid_argument("y[" + std::to_string(i) + "] is " + std::to_string(target) +
                                  ": targets must be finite");
    }
    if (const auto problem = trainer::target_problem(target, task, r.classes)) {
      throw std::invalid_argument("y[" + std::to_string(i) + "]: " + *problem);
    }
    data.y[i] = target;
  }
  return data;
}

py::dict recipe_choice(const trainer::RecipeChoice& choice) {
  py::dict out;
  out["hidden"] = choice.hidden;
  out["epochs"] = choice.epochs;
  out["likelihood"] = trainer::likelihood_kind_name(choice.likelihood);
  out["held_out_loglik"] = choice.held_out_loglik;
  out["held_out_rows"] = choice.held_out_rows;
  out["folds"] = choice.folds;
  return out;
}

}  // namespace

py::dict train(const py::array& x, const py::array_t<double>& y, const TrainRequest& request,
               const py::object& progress) {
  trainer::TrainOptions options = train_options(request);
  const host::RecipeSettings settings =
      host::recipe_settings(named(request.recipe, "recipe", trainer::kRecipeNames), request.hidden,
                            request.epochs, options.task, request.distance_variance);
  host::check_training_options(options, settings);  // as `pbp train`, before any training
  const Matrix matrix(x, "X");
  const trainer::Dataset data = dataset(matrix, y, request, options.task);
  host::check_training_data(data, options);

  // Called on this thread between epochs: the GIL for Python's progress and its signals.
  const auto on_progress = [&progress](const trainer::TrainProgress& at) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(at.done, at.total);
  };
  trainer::RecipeChoice choice;
  trainer::TrainReport report;
  trainer::Model model;
  {
    py::gil_scoped_release release;
    model = trainer::train_with_recipe(data, options, settings.recipe, settings.space, &choice,
                                       on_progress, &report);
  }
  model.metadata.feature_names = request.feature_names;  // none rather than the placeholders

  py::dict out;
  out["hidden"] = choice.epochs > 0 ? choice.hidden : options.hidden;
  out["epochs"] = choice.epochs > 0 ? choice.epochs : options.epochs;
  out["constant_inputs"] = report.constant_inputs;
  out["recipe"] = choice.epochs > 0 ? py::object(recipe_choice(choice)) : py::none();
  out["model"] = TrainedModel{std::move(model)};
  return out;
}

py::bytes write_blob(const TrainedModel& trained, const std::string& notes) {
  trainer::Model model = trained.model;
  model.metadata.notes = notes;
  const std::vector<uint8_t> blob = trainer::write_blob(model);
  return py::bytes(reinterpret_cast<const char*>(blob.data()), blob.size());
}

}  // namespace pbp::python
