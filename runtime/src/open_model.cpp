// SPDX-License-Identifier: Apache-2.0
// pbp_open: validates a whole blob and builds the pbp_model view into it.
#include <stdint.h>

#include "blob_view.hpp"
#include "pbp/data_distance.hpp"
#include "pbp/math.hpp"
#include "pbp/moments.hpp"
#include "stored_weights.hpp"

namespace pbp::detail {
namespace {

pbp_status read_model_section(Span section, pbp_model* model) {
  if (section.size < format::model_section::kSize) return PBP_ERR_SECTION_SIZE;
  const uint8_t* p = section.data;
  model->likelihood = format::load_u32(p + format::model_section::kLikelihood);
  model->input_count = format::load_u32(p + format::model_section::kInputCount);
  model->output_count = format::load_u32(p + format::model_section::kOutputCount);
  model->layer_count = format::load_u32(p + format::model_section::kLayerCount);
  model->noise_a = format::load_f32(p + format::model_section::kNoiseA);
  model->noise_b = format::load_f32(p + format::model_section::kNoiseB);
  model->prior_a = format::load_f32(p + format::model_section::kPriorA);
  model->prior_b = format::load_f32(p + format::model_section::kPriorB);

  // likelihoods.hpp: one of the table and built into this runtime (pbp_config.h); its task,
  // output width and epistemic scale from one lookup (each a flash cost on small parts).
  const uint32_t entry = likelihood_entry(model->likelihood);
  if (entry == 0u) return PBP_ERR_UNSUPPORTED_TASK;
  model->task = entry & 0xFFu;
  model->epistemic_scale = 1.0f;
  if ((entry >> 16 & 1u) != 0u) {
    if (section.size < format::model_section::kSizeWithEpistemicScale) {
      return PBP_ERR_BAD_EPISTEMIC_SCALE;
    }
    model->epistemic_scale = format::load_f32(p + format::model_section::kEpistemicScale);
    // The range also rejects NaN and infinities (every comparison with NaN is false).
    if (!(model->epistemic_scale >= format::model_section::kMinEpistemicScale &&
          model->epistemic_scale <= format::model_section::kMaxEpistemicScale)) {
      return PBP_ERR_BAD_EPISTEMIC_SCALE;
    }
  }
  if (model->layer_count == 0 || model->layer_count > PBP_MAX_LAYERS) return PBP_ERR_LAYER_COUNT;
  if (model->input_count == 0 || model->input_count > PBP_MAX_UNITS) return PBP_ERR_UNIT_COUNT;
  const uint32_t outputs = entry >> 8 & 0xFFu;  // 0: the class count
  if (outputs == 0 ? model->output_count < 2 || model->output_count > PBP_MAX_CLASSES
                   : model->output_count != outputs) {
    return PBP_ERR_OUTPUT_COUNT;
  }
  const float gammas[4] = {model->noise_a, model->noise_b, model->prior_a, model->prior_b};
  const pbp_status status = check_finite(gammas, 4);
  if (status != PBP_OK) return status;
  if (!(model->noise_a > 1.0f) || !(model->noise_b > 0.0f) || !(model->prior_a > 1.0f) ||
      !(model->prior_b > 0.0f)) {
    return PBP_ERR_BAD_GAMMA;
  }
  return PBP_OK;
}

// Counts, chaining and activation of layer `index`: its shape, checked before any tensor.
pbp_status read_layer_shape(const uint8_t* record, uint32_t index, pbp_model* model) {
  pbp_layer& layer = model->layers[index];
  layer.inputs = format::load_u32(record + format::layer_record::kInputs);
  layer.outputs = format::load_u32(record + format::layer_record::kOutputs);
  layer.activation = format::load_u32(record + format::layer_record::kActivation);
  if (layer.inputs == 0 || layer.inputs > PBP_MAX_UNITS || layer.outputs == 0 ||
      layer.outputs > PBP_MAX_UNITS) {
    return PBP_ERR_UNIT_COUNT;
  }
  const bool last = index + 1 == model->layer_count;
  const uint32_t expected_inputs =
      index == 0 ? model->input_count : model->layers[index - 1].outputs;
  if (layer.inputs != expected_inputs || (last && layer.outputs != model->output_count)) {
    return PBP_ERR_LAYER_SHAPE;
  }
  // network_moments runs a built-in activation of the table (activations.hpp) after every layer
  // but the last, which is linear.
  const uint32_t a = layer.activation;
  if (last ? a != PBP_ACTIVATION_LINEAR : !hidden_activation_built(a)) return PBP_ERR_ACTIVATION;
  return PBP_OK;
}

pbp_status read_layers(Span section, Span tensor_data, pbp_model* model) {
  if (static_cast<uint64_t>(section.size) !=
      static_cast<uint64_t>(model->layer_count) * format::layer_record::kSize) {
    return PBP_ERR_SECTION_SIZE;
  }
  for (uint32_t l = 0; l < model->layer_count; ++l) {
    const pbp_status status =
        read_layer_shape(section.data + l * format::layer_record::kSize, l, model);
    if (status != PBP_OK) return status;
  }
  uint64_t weight_count = 0;
  for (uint32_t l = 0; l < model->layer_count; ++l) {
    pbp_layer& layer = model->layers[l];
    const uint8_t* record = section.data + l * format::layer_record::kSize;
    const pbp_status status =
        read_stored_weights(record + format::layer_record::kMean,
                            record + format::layer_record::kVariance, tensor_data, &layer);
    if (status != PBP_OK) return status;
    weight_count += static_cast<uint64_t>(layer.outputs) * (layer.inputs + 1u);
    if (layer.outputs > model->max_width) model->max_width = layer.outputs;
  }
  // Fits once check_tensors_disjoint has passed (<= size / 4); a failed open zeroes the model.
  model->weight_count = static_cast<uint32_t>(weight_count);
  return PBP_OK;
}

// The optional appended input ranges: none in a section of exactly the v1 size, else both
// tensors, finite, with min <= mean <= max for every input.
pbp_status read_input_ranges(Span section, Span tensor_data, pbp_model* model) {
  namespace layout = format::standardisation_section;
  if (section.size == layout::kSize) return PBP_OK;
  if (section.size < layout::kSizeWithRanges) return PBP_ERR_SECTION_SIZE;
  const float* min = nullptr;
  const float* max = nullptr;
  pbp_status status =
      locate_float_tensor(section.data + layout::kInputMin, model->input_count, tensor_data, &min);
  if (status != PBP_OK) return status;
  status =
      locate_float_tensor(section.data + layout::kInputMax, model->input_count, tensor_data, &max);
  if (status != PBP_OK) return status;
  status = check_finite(min, model->input_count);
  if (status != PBP_OK) return status;
  status = check_finite(max, model->input_count);
  if (status != PBP_OK) return status;
  for (uint32_t i = 0; i < model->input_count; ++i) {
    if (!(min[i] <= model->input_mean[i] && model->input_mean[i] <= max[i])) {
      return PBP_ERR_BAD_RANGE;
    }
  }
  model->input_min = min;
  model->input_max = max;
  return PBP_OK;
}

pbp_status read_standardisation(Span section, Span tensor_data, pbp_model* model) {
  if (section.size < format::standardisation_section::kSize) return PBP_ERR_SECTION_SIZE;
  const uint8_t* p = section.data;
  model->target_mean = format::load_f32(p + format::standardisation_section::kTargetMean);
  model->target_std = format::load_f32(p + format::standardisation_section::kTargetStd);
  pbp_status status = locate_float_tensor(p + format::standardisation_section::kInputMean,
                                          model->input_count, tensor_data, &model->input_mean);
  if (status != PBP_OK) return status;
  status = locate_float_tensor(p + format::standardisation_section::kInputStd, model->input_count,
                               tensor_data, &model->input_std);
  if (status != PBP_OK) return status;
  const float target[2] = {model->target_mean, model->target_std};
  status = check_finite(target, 2);
  if (status != PBP_OK) return status;
  if (!(model->target_std > 0.0f)) return PBP_ERR_BAD_STANDARDISATION;
  status = check_finite(model->input_mean, model->input_count);
  if (status != PBP_OK) return status;
  status = check_input_stds(model->input_mean, model->input_std, model->input_count);
  if (status != PBP_OK) return status;
  return read_input_ranges(section, tensor_data, model);
}

// The optional distance variance (format.hpp, input_occupancy_section): its exact size, the input
// ranges it is binned over, a scale in range, and each input's first and last bins occupied (so
// data_distance.hpp's walks stop inside the bitmap).
pbp_status read_input_occupancy(Span section, pbp_model* model) {
  namespace layout = format::input_occupancy_section;
  if (section.size != layout::size(model->input_count)) return PBP_ERR_SECTION_SIZE;
  if (model->input_min == nullptr) return PBP_ERR_BAD_RANGE;
  const float scale = format::load_f32(section.data + layout::kDistanceScale);
  if (!(scale >= 0.0f && scale <= layout::kMaxDistanceScale)) return PBP_ERR_BAD_EPISTEMIC_SCALE;
  // The section starts 4-aligned in a 4-aligned blob: its words are read in place.
  const uint32_t* bitmaps = reinterpret_cast<const uint32_t*>(section.data + layout::kBitmaps);
  for (uint32_t i = 0; i < model->input_count; ++i) {
    const uint32_t* bitmap = bitmaps + layout::kWordsPerInput * i;
    if (!distance::occupied(bitmap, 0u) || !distance::occupied(bitmap, layout::kBins - 1u)) {
      return PBP_ERR_BAD_RANGE;
    }
  }
  model->input_occupancy = bitmaps;
  model->distance_scale = scale;
  return PBP_OK;
}

// The optional pair variance (format.hpp, input_pair_occupancy_section): its exact size for an
// input count it allows, the input ranges its grids span, and a scale in range. Any bits are valid.
pbp_status read_input_pair_occupancy(Span section, pbp_model* model) {
  namespace layout = format::input_pair_occupancy_section;
  if (model->input_count < 2u || model->input_count > layout::kMaxInputs ||
      section.size != layout::size(model->input_count)) {
    return PBP_ERR_SECTION_SIZE;
  }
  if (model->input_min == nullptr) return PBP_ERR_BAD_RANGE;
  const float scale = format::load_f32(section.data + layout::kPairScale);
  if (!(scale >= 0.0f && scale <= layout::kMaxPairScale)) return PBP_ERR_BAD_EPISTEMIC_SCALE;
  // 4-aligned like the input occupancy: read in place.
  model->pair_occupancy = reinterpret_cast<const uint32_t*>(section.data + layout::kGrids);
  model->pair_scale = scale;
  return PBP_OK;
}

// The optional Student-t predictive (format.hpp, predictive_tail_section): exactly one word, on a
// Gaussian regression model, degrees of freedom the quantile takes (3 .. 32).
pbp_status read_predictive_tail(Span section, pbp_model* model) {
  namespace layout = format::predictive_tail_section;
  if (section.size != layout::kSize) return PBP_ERR_SECTION_SIZE;
  if (model->likelihood != PBP_LIKELIHOOD_GAUSSIAN &&
      model->likelihood != PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED) {
    return PBP_ERR_BAD_PREDICTIVE_TAIL;
  }
  const uint32_t dof = format::load_u32(section.data + layout::kDegreesOfFreedom);
  if (!math::student_t_dof_valid(dof)) return PBP_ERR_BAD_PREDICTIVE_TAIL;
  model->tail_dof = dof;
  return PBP_OK;
}

// Tensor `k` of the opened model as a byte range: layer l's mean (2l) and variance (2l + 1), then
// the input mean, std, and the optional input min and max. Empty past the last.
struct ByteRange {
  uintptr_t begin, end;
};
ByteRange tensor_bytes(const pbp_model* model, uint32_t k) {
  const float* elements = nullptr;
  const uint32_t layer_tensors = 2u * model->layer_count;
  if (k < layer_tensors) {
    const pbp_layer& layer = model->layers[k / 2u];
    const void* stored = k % 2u == 0u ? layer.stored_mean : layer.stored_variance;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(stored);
    return ByteRange{begin, begin + stored_weight_bytes(layer, k % 2u != 0u)};
  }
  if (k == layer_tensors) {
    elements = model->input_mean;
  } else if (k == layer_tensors + 1u) {
    elements = model->input_std;
  } else if (k == layer_tensors + 2u) {
    elements = model->input_min;  // null (empty) without ranges
  } else if (k == layer_tensors + 3u) {
    elements = model->input_max;
  }
  if (elements == nullptr) return ByteRange{0, 0};
  const uintptr_t begin = reinterpret_cast<uintptr_t>(elements);
  return ByteRange{begin, begin + sizeof(float) * model->input_count};
}

// No two tensors (the input ranges too) share a byte. Then every weight has at least 2 bytes of its
// own (two halves, or two int8 codes) in a blob smaller than 4 GiB, so weight_count fits in 32
// bits, and a prediction's work is bounded by the blob's size. (Aliased tensors could repeat one
// byte range in every layer.) The ranges are recomputed per pair rather than tabled: no stack
// table.
pbp_status check_tensors_disjoint(const pbp_model* model) {
  const uint32_t count = 2u * model->layer_count + 4u;
  for (uint32_t i = 0; i < count; ++i) {
    const ByteRange a = tensor_bytes(model, i);
    if (a.begin == a.end) continue;
    for (uint32_t j = i + 1u; j < count; ++j) {
      const ByteRange b = tensor_bytes(model, j);
      if (b.begin != b.end && a.begin < b.end && b.begin < a.end) return PBP_ERR_TENSOR_OVERLAP;
    }
  }
  return PBP_OK;
}

pbp_status open_checked(pbp_model* model, const uint8_t* blob, size_t size) {
  pbp_status status = check_envelope(blob, size);
  if (status != PBP_OK) return status;
  // check_envelope made size equal to a u32 field.
  const uint32_t blob_size = static_cast<uint32_t>(size);
  Sections sections;
  status = locate_sections(blob, blob_size, &sections);
  if (status != PBP_OK) return status;
  status = read_model_section(sections.model, model);
  if (status != PBP_OK) return status;
  status = read_layers(sections.layers, sections.tensor_data, model);
  if (status != PBP_OK) return status;
  status = read_standardisation(sections.standardisation, sections.tensor_data, model);
  if (status != PBP_OK) return status;
  status = check_tensors_disjoint(model);
  if (status != PBP_OK) return status;
  // Never located without the flag (blob_envelope.cpp): then no code for it either.
  if (PBP_WITH_DATA_DISTANCE && sections.input_occupancy.data != nullptr) {
    status = read_input_occupancy(sections.input_occupancy, model);
    if (status != PBP_OK) return status;
  }
  if (PBP_WITH_DATA_DISTANCE && sections.input_pair_occupancy.data != nullptr) {
    status = read_input_pair_occupancy(sections.input_pair_occupancy, model);
    if (status != PBP_OK) return status;
  }
  if (PBP_WITH_PREDICTIVE_TAIL && sections.predictive_tail.data != nullptr) {
    status = read_predictive_tail(sections.predictive_tail, model);
    if (status != PBP_OK) return status;
  }
  if (sections.metadata.data != nullptr) {
    status = read_metadata(sections.metadata, model);
    if (status != PBP_OK) return status;
  }
  // A learn_check section (located: inside the blob) is the learner's alone: pbp_learn_init checks
  // it, so a firmware that only predicts skips it as an unknown optional section.
  model->blob = blob;
  model->blob_size = blob_size;
  model->workspace_bytes = static_cast<uint32_t>(sizeof(float)) *
                           (model->input_count + network_workspace_elements(model->max_width));
  model->open_marker = kOpenMarker;
  return PBP_OK;
}

}  // namespace
}  // namespace pbp::detail

extern "C" pbp_status pbp_open(pbp_model* model, const void* blob, size_t size) {
  if (model == nullptr) return PBP_ERR_NULL_ARGUMENT;
  *model = pbp_model{};
  if (blob == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (reinterpret_cast<uintptr_t>(blob) % 4u != 0) return PBP_ERR_MISALIGNED_POINTER;
  const pbp_status status =
      pbp::detail::open_checked(model, static_cast<const uint8_t*>(blob), size);
  if (status != PBP_OK) *model = pbp_model{};  // a failed open leaves nothing usable
  return status;
}

extern "C" uint32_t pbp_peek_total_size(const void* blob_start, size_t available) {
  const uint8_t* p = static_cast<const uint8_t*>(blob_start);
  if (p == nullptr || available < pbp::format::header::kTotalSize + 4u) return 0;
  for (uint32_t i = 0; i < 4; ++i) {
    if (p[i] != pbp::format::kMagic[i]) return 0;
  }
  return pbp::format::load_u32(p + pbp::format::header::kTotalSize);
}
