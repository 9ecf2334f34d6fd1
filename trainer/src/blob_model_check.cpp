// SPDX-License-Identifier: Apache-2.0
// The model checks write_blob runs first (blob_model_check.hpp), apart from the writer itself.
#include "blob_model_check.hpp"

#include <stdexcept>
#include <string>

#include "pbp/activations.hpp"
#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/storage_types.hpp"
#include "pbp/trainer/likelihood_table.hpp"

namespace pbp::trainer {

namespace fmt = pbp::format;

uint32_t model_blob_likelihood(const Model& model) {
  return blob_likelihood(model.likelihood, model.task, model.epistemic_scale != 1.0);
}

void check_blob_model(const Model& model) {
  if (static_cast<uint32_t>(model.task) > PBP_TASK_COUNT_DATA) {
    throw std::invalid_argument("write_blob: unsupported task");
  }
  if (likelihood_task(model.likelihood, model.task) != model.task) {
    throw std::invalid_argument(std::string("write_blob: the ") +
                                likelihood_kind_name(model.likelihood) +
                                " likelihood goes with another task");
  }
  const auto known = [](fmt::Storage s) { return is_storage_type(static_cast<uint32_t>(s)); };
  if (!known(model.weight_storage)) {
    throw std::invalid_argument("write_blob: unsupported weight storage");
  }
  if (!model.layer_storage.empty()) {
    if (model.layer_storage.size() != model.layers.size()) {
      throw std::invalid_argument("write_blob: layer_storage needs one storage per layer");
    }
    for (const fmt::Storage s : model.layer_storage) {
      if (!known(s)) throw std::invalid_argument("write_blob: unsupported weight storage");
    }
  }
  const float scale = static_cast<float>(model.epistemic_scale);
  if (model.epistemic_scale != 1.0 &&
      (model.task != Task::regression || !(scale >= fmt::model_section::kMinEpistemicScale &&
                                           scale <= fmt::model_section::kMaxEpistemicScale))) {
    throw std::invalid_argument(
        "write_blob: the epistemic scale must be 1, or in [2^-10, 2^10] for regression");
  }
  if (model.layers.empty() || model.layers.size() > PBP_MAX_LAYERS) {
    throw std::invalid_argument("write_blob: layer count must be 1.." +
                                std::to_string(PBP_MAX_LAYERS));
  }
  uint32_t expected_inputs = model.input_count();
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const Layer& layer = model.layers[l];
    const bool last = l + 1 == model.layers.size();
    const fmt::Activation a = layer.activation;
    const bool activation_ok =
        last ? a == fmt::Activation::linear : is_hidden_activation(static_cast<uint32_t>(a));
    const size_t weights = size_t{layer.outputs} * layer.row_length();
    if (layer.inputs == 0 || layer.inputs > PBP_MAX_UNITS || layer.outputs == 0 ||
        layer.outputs > PBP_MAX_UNITS || layer.inputs != expected_inputs ||
        layer.mean.size() != weights || layer.variance.size() != weights || !activation_ok) {
      throw std::invalid_argument("write_blob: layer " + std::to_string(l) +
                                  " has an inconsistent shape or activation");
    }
    expected_inputs = layer.outputs;
  }
  if (model.task == Task::multiclass) {
    if (model.output_count() < 2 || model.output_count() > PBP_MAX_CLASSES) {
      throw std::invalid_argument("write_blob: multiclass needs 2.." +
                                  std::to_string(PBP_MAX_CLASSES) + " outputs (one per class)");
    }
  } else if (model.output_count() != likelihood_outputs(model_blob_likelihood(model))) {
    throw std::invalid_argument(
        std::string("write_blob: the output count does not match the ") +
        likelihood_kind_name(resolve_likelihood(model.likelihood, model.task)) + " likelihood's " +
        std::to_string(likelihood_outputs(model_blob_likelihood(model))));
  }
  const Standardisation& s = model.standardisation;
  if (s.input_mean.size() != model.input_count() || s.input_std.size() != model.input_count()) {
    throw std::invalid_argument("write_blob: standardisation does not match the input count");
  }
  if (s.input_min.size() != s.input_max.size() ||
      (!s.input_min.empty() && s.input_min.size() != model.input_count())) {
    throw std::invalid_argument("write_blob: input ranges do not match the input count");
  }
  if (!model.input_occupancy.empty() &&
      (model.input_occupancy.size() !=
           size_t{fmt::input_occupancy_section::kWordsPerInput} * model.input_count() ||
       s.input_min.empty() || model.task != Task::regression)) {
    throw std::invalid_argument(
        "write_blob: input occupancy needs a regression model with input ranges and 2 words per "
        "input");
  }
  if (!model.pair_occupancy.empty() &&
      (model.input_count() < 2 ||
       model.input_count() > fmt::input_pair_occupancy_section::kMaxInputs ||
       model.pair_occupancy.size() !=
           size_t{fmt::input_pair_occupancy_section::kWordsPerPair} *
               fmt::input_pair_occupancy_section::pair_count(model.input_count()) ||
       s.input_min.empty() || model.task != Task::regression)) {
    throw std::invalid_argument(
        "write_blob: input pair occupancy needs a regression model of 2 to 32 inputs with input "
        "ranges and 8 words per input pair");
  }
  if (model.tail_dof != 0 &&
      (!math::student_t_dof_valid(model.tail_dof) ||
       (model_blob_likelihood(model) != PBP_LIKELIHOOD_GAUSSIAN &&
        model_blob_likelihood(model) != PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED))) {
    throw std::invalid_argument(
        "write_blob: a Student-t predictive needs a Gaussian regression model and degrees of "
        "freedom in 3 .. 32");
  }
  if (!model.metadata.feature_names.empty() &&
      model.metadata.feature_names.size() != model.input_count()) {
    throw std::invalid_argument("write_blob: feature name count does not match the input count");
  }
  if (!model.input_priors.empty() && model.input_priors.size() != model.input_count() + 1u) {
    throw std::invalid_argument("write_blob: ARD needs one input prior per input and the bias");
  }
}
}  // namespace pbp::trainer
