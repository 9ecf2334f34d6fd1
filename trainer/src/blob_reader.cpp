// SPDX-License-Identifier: Apache-2.0
// The model blob reader of the trainer: the runtime's validated model (pbp_open, then
// model_view.hpp's accessors, the one reader of blob bytes) widened into a double-precision Model,
// so `pbp verify` can compare the trainer's arithmetic with the runtime's on the very weights a
// device holds.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/model_view.hpp"
#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/input_relevance.hpp"

namespace pbp::trainer {
namespace {

namespace fmt = pbp::format;
namespace view = pbp::model_view;

std::vector<double> widened(const float* values, uint32_t count) {
  return std::vector<double>(values, values + count);
}

std::string text(const view::MetadataEntry& entry) {
  return std::string(reinterpret_cast<const char*>(entry.value), entry.length);
}

// The metadata entries into model.metadata, the ARD input priors into model.input_priors (after
// the layers: their count is the model's inputs) and a Laplace model's q(phi).
void read_metadata(const pbp_model& opened, Model& model) {
  Metadata& metadata = model.metadata;
  view::for_each_metadata_entry(opened, [&](const view::MetadataEntry& entry) {
    const std::span<const uint8_t> value(entry.value, entry.length);
    switch (static_cast<fmt::MetadataKey>(entry.key)) {
      case fmt::MetadataKey::name:
        metadata.name = text(entry);
        break;
      case fmt::MetadataKey::target_name:
        metadata.target_name = text(entry);
        break;
      case fmt::MetadataKey::notes:
        metadata.notes = text(entry);
        break;
      case fmt::MetadataKey::writer:
        metadata.writer = text(entry);
        break;
      case fmt::MetadataKey::training_rows:
        metadata.training_rows = opened.training_rows;
        break;
      case fmt::MetadataKey::feature_name:
        metadata.feature_names.push_back(text(entry));
        break;
      case fmt::MetadataKey::input_prior_precision:
        if (!model.input_priors.empty()) throw std::invalid_argument("input priors appear twice");
        model.input_priors = decode_input_priors(value, model.input_count());
        break;
      case fmt::MetadataKey::input_laplace_scale:
        if (model.input_laplace_scale) {
          throw std::invalid_argument("the Laplace prior's scale appears twice");
        }
        model.input_laplace_scale = decode_laplace_scale(value);
        break;
    }
  });
}

}  // namespace

Model read_model(const pbp_model& opened) {
  Model model;
  model.task = static_cast<Task>(opened.task);
  model.likelihood = trainer_likelihood(opened.likelihood);  // likelihood_table.hpp
  model.epistemic_scale = opened.epistemic_scale;
  model.noise = {opened.noise_a, opened.noise_b};
  model.prior = {opened.prior_a, opened.prior_b};
  for (uint32_t l = 0; l < opened.layer_count; ++l) {
    const pbp_layer& stored = opened.layers[l];
    Layer layer;
    layer.inputs = stored.inputs;
    layer.outputs = stored.outputs;
    // pbp_open admitted only the activations fmt::Activation names.
    layer.activation = static_cast<fmt::Activation>(stored.activation);
    layer.mean.resize(view::weight_element_count(stored));
    layer.variance.resize(layer.mean.size());
    view::decode_weights(stored, false, layer.mean.data());
    view::decode_weights(stored, true, layer.variance.data());
    // pbp_open checked each layer has one storage type for both tensors.
    model.layer_storage.push_back(static_cast<fmt::Storage>(stored.storage));
    model.layers.push_back(std::move(layer));
  }
  // One storage for the model where the layers agree; else per layer, and the coarsest overall
  // (the storage ids rise from float32 to float16 to int8; both int8 types count as int8).
  const auto coarseness = [](fmt::Storage s) {
    return fmt::has_int8_means(static_cast<uint32_t>(s)) ? fmt::Storage::int8 : s;
  };
  model.weight_storage = fmt::Storage::float32;
  for (const fmt::Storage s : model.layer_storage) {
    model.weight_storage = std::max(model.weight_storage, coarseness(s));
  }
  if (std::all_of(model.layer_storage.begin(), model.layer_storage.end(),
                  [&](fmt::Storage s) { return s == model.weight_storage; })) {
    model.layer_storage.clear();
  }

  Standardisation& standardisation = model.standardisation;
  standardisation.target_mean = opened.target_mean;
  standardisation.target_std = opened.target_std;
  standardisation.input_mean = widened(opened.input_mean, opened.input_count);
  standardisation.input_std = widened(opened.input_std, opened.input_count);
  if (opened.input_min != nullptr) {  // a blob written before ranges has none
    standardisation.input_min = widened(opened.input_min, opened.input_count);
    standardisation.input_max = widened(opened.input_max, opened.input_count);
  }
  if (opened.input_occupancy != nullptr) {
    model.distance_scale = opened.distance_scale;
    model.input_occupancy.assign(
        opened.input_occupancy,
        opened.input_occupancy + fmt::input_occupancy_section::kWordsPerInput * opened.input_count);
  }
  model.tail_dof = opened.tail_dof;
  if (opened.pair_occupancy != nullptr) {
    namespace layout = fmt::input_pair_occupancy_section;
    model.pair_scale = opened.pair_scale;
    model.pair_occupancy.assign(opened.pair_occupancy,
                                opened.pair_occupancy + size_t{layout::kWordsPerPair} *
                                                            layout::pair_count(opened.input_count));
  }
  read_metadata(opened, model);
  return model;
}

Model read_blob(std::span<const uint8_t> blob) {
  // pbp_open needs 4-byte alignment, which a byte span does not promise.
  std::vector<uint32_t> aligned((blob.size() + 3) / 4);
  if (!blob.empty()) std::memcpy(aligned.data(), blob.data(), blob.size());
  pbp_model opened;
  const pbp_status status = pbp_open(&opened, aligned.data(), blob.size());
  if (status != PBP_OK) {
    throw std::invalid_argument(std::string("read_blob: not a valid model blob: ") +
                                pbp_status_string(status));
  }
  return read_model(opened);
}

}  // namespace pbp::trainer
