// SPDX-License-Identifier: Apache-2.0
// `pbp inspect model.pbp [--json]`: validates a blob with the runtime and describes it.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "input_relevance_report.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pbp/activations.hpp"
#include "pbp/data_distance.hpp"
#include "pbp/format.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/host/prediction_csv.hpp"
#include "pbp/host/stored_weights_report.hpp"
#include "pbp/model_view.hpp"
#include "pbp/outputs.hpp"
#include "pbp/pbp.hpp"
#include "pbp/predictive_tail.hpp"
#include "pbp/trainer/input_relevance.hpp"
#include "target_cost.hpp"

namespace pbp::cli {
namespace {

namespace fmt = pbp::format;

const char* const kUsage =
    "usage: pbp inspect MODEL.pbp [--json] [--target TARGET]\n"
    "\n"
    "Validates a model blob exactly as a device would (pbp_open) and prints its header, sizes,\n"
    "CRC and metadata. Exits 1 with the runtime's status if the blob is invalid.\n"
    "\n"
    "  --target TARGET  also: will it fit TARGET (a targets/presets.txt name: cortex-m0, -m3,\n"
    "           -m4f, -m7, -m33, -m55, aarch64-linux, armv7hf-linux, rv32imac, rv32imafc),\n"
    "           and how fast? Flash (blob + runtime), RAM (workspace + predict stack) against its\n"
    "           board, and instructions per prediction from a cost formula fitted to QEMU\n"
    "           counts (targets/DEPLOYING.md, \"Will it fit\"). With --json: a \"target\" object\n"
    "  --json   dump everything as JSON: task, layers (inputs, outputs, activation, mean and\n"
    "           variance as row-major outputs x (inputs + 1) lists, bias last), noise_gamma,\n"
    "           prior_gamma, input_mean, input_std, input_min, input_max (null: a blob\n"
    "           without training ranges), distance_scale (null: no distance variance),\n"
    "           pair_scale (null: no pair variance), tail_dof (null: a Gaussian predictive),\n"
    "           target_mean, target_std, metadata; for\n"
    "           an ARD model (pbp train --prior ard) also input_relevance and bias_prior_gamma;\n"
    "           for a Laplace model (--prior laplace) input_relevance and laplace_scale.\n"
    "           Only regression uses noise_gamma, target_mean and target_std: other tasks'\n"
    "           blobs hold placeholders there (runtime/FORMAT.md)\n"
    "\n"
    "An ARD model's input relevance: E[1/lambda] = b/(a-1), the expected prior variance of the\n"
    "input's first-layer weights under its learned Gamma(a, b), relative to the largest input's\n"
    "(1 = most relevant; an input the data does not use is shrunk towards 0). It measures the\n"
    "scale of the input's weights, which grows with how nonlinear the target is in it: an\n"
    "input with a purely linear effect needs only small weights and can rank low.\n"
    "\n"
    "A Laplace model's one common scale says nothing per input: its input relevance is the\n"
    "mean square E[w^2] = m^2 + v of the input's first-layer weights over the hidden units,\n"
    "relative to the largest input's (the prior shrinks the weights of an unused input).\n";

std::string text(const pbp_string& s) {
  return std::string(s.data ? s.data : "", s.length);
}

// The model's task (PBP_TASK_*, from its likelihood; pbp_open accepts no other value).
const char* task_name(uint32_t task) {
  switch (task) {
    case PBP_TASK_BINARY:
      return "binary";
    case PBP_TASK_MULTICLASS:
      return "multiclass";
    case PBP_TASK_COUNT_DATA:
      return "count";
    default:
      return "regression";
  }
}

// The activation table's name (pbp/activations.hpp); an output layer's is linear.
const char* activation_name(uint32_t activation) {
  const char* name = hidden_activation_name(activation);
  return name != nullptr ? name : "linear";
}

// The likelihood table's name (pbp/likelihoods.hpp); pbp_open admits no other.
const char* likelihood_text(uint32_t likelihood) {
  const char* name = likelihood_name(likelihood);
  return name != nullptr ? name : "gaussian";
}

std::string float_list(const float* values, size_t count) {
  std::string out = "[";
  for (size_t i = 0; i < count; ++i) out += (i ? ", " : "") + float_text(values[i]);
  return out + "]";
}

std::vector<std::string> feature_names(const pbp::Model& model) {
  std::vector<std::string> names;
  for (uint32_t k = 0; k < model.view().feature_name_count; ++k) {
    pbp_string name{};
    model.feature_name(k, &name);
    names.push_back(text(name));
  }
  return names;
}

const char* section_name(uint32_t type) {
  switch (static_cast<fmt::SectionType>(type)) {
    case fmt::SectionType::model:
      return "model";
    case fmt::SectionType::layers:
      return "layers";
    case fmt::SectionType::standardisation:
      return "standardisation";
    case fmt::SectionType::tensor_data:
      return "tensor_data";
    case fmt::SectionType::metadata:
      return "metadata";
    case fmt::SectionType::learn_check:
      return "learn_check";
    case fmt::SectionType::input_occupancy:
      return "input_occupancy";
    case fmt::SectionType::input_pair_occupancy:
      return "input_pair_occupancy";
    case fmt::SectionType::predictive_tail:
      return "predictive_tail";
  }
  return "unknown";
}

std::string sections_json(const pbp_model& m) {
  std::vector<std::string> items;
  for (uint32_t i = 0; i < model_view::section_count(m); ++i) {
    const model_view::SectionEntry entry = model_view::section_entry(m, i);
    items.push_back(
        JsonObject()
            .add("type", entry.type)
            .add_raw("name", json_string(section_name(entry.type)))
            .add_raw("required", (entry.flags & fmt::kSectionRequired) ? "true" : "false")
            .add("offset", entry.offset)
            .add("length", entry.length)
            .str());
  }
  return json_array(items);
}

std::string inspect_json(const std::string& path, const pbp::Model& model) {
  const pbp_model& m = model.view();
  std::vector<std::string> layers;
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    const size_t weights = size_t{layer.outputs} * (layer.inputs + 1u);
    layers.push_back(JsonObject()
                         .add("inputs", layer.inputs)
                         .add("outputs", layer.outputs)
                         .add_raw("activation", json_string(activation_name(layer.activation)))
                         .add_raw("mean", float_list(layer_values(layer, false).data(), weights))
                         .add_raw("variance", float_list(layer_values(layer, true).data(), weights))
                         .add_raw("storage", json_string(storage_name(layer.storage)))
                         .str());
  }
  std::vector<std::string> names;
  for (const std::string& name : feature_names(model)) names.push_back(json_string(name));
  const std::string metadata = JsonObject()
                                   .add_raw("name", json_string(text(m.name)))
                                   .add_raw("feature_names", json_array(names))
                                   .add_raw("target_name", json_string(text(m.target_name)))
                                   .add_raw("training_rows", std::to_string(m.training_rows))
                                   .add_raw("notes", json_string(text(m.notes)))
                                   .add_raw("writer", json_string(text(m.writer)))
                                   .str();
  auto gamma = [](float a, float b) {
    return JsonObject().add_raw("a", float_text(a)).add_raw("b", float_text(b)).str();
  };
  char crc[16];
  std::snprintf(crc, sizeof crc, "0x%08x", model_view::stored_crc(m));
  JsonObject json;
  json.add_raw("file", json_string(path))
      .add("format_version", fmt::kVersion)
      .add("size", m.blob_size)
      .add_raw("crc32", json_string(crc))
      .add_raw("sections", sections_json(m))
      .add_raw("task", json_string(task_name(m.task)))
      .add_raw("likelihood", json_string(likelihood_text(m.likelihood)))
      .add_raw("epistemic_scale", float_text(m.epistemic_scale))
      .add("input_count", m.input_count)
      .add("output_count", m.output_count)
      .add("weight_count", m.weight_count)
      .add_raw("weight_bytes", std::to_string(weight_bytes(m)))
      .add_raw("quantisation_mean_error_bound", json_number(quantisation_bound(m).mean_absolute))
      .add_raw("quantisation_variance_relative_error_bound",
               json_number(quantisation_bound(m).variance_relative))
      .add("workspace_bytes", m.workspace_bytes)
      .add_raw("layers", json_array(layers))
      .add_raw("noise_gamma", gamma(m.noise_a, m.noise_b))
      .add_raw("prior_gamma", gamma(m.prior_a, m.prior_b))
      .add_raw("input_mean", float_list(m.input_mean, m.input_count))
      .add_raw("input_std", float_list(m.input_std, m.input_count))
      .add_raw("input_min", m.input_min ? float_list(m.input_min, m.input_count) : "null")
      .add_raw("input_max", m.input_max ? float_list(m.input_max, m.input_count) : "null")
      .add_raw("distance_scale",
               m.input_occupancy ? float_text(m.distance_scale) : std::string("null"))
      .add_raw("pair_scale", m.pair_occupancy ? float_text(m.pair_scale) : std::string("null"))
      .add_raw("tail_dof", m.tail_dof != 0u ? std::to_string(m.tail_dof) : std::string("null"))
      .add_raw("target_mean", float_text(m.target_mean))
      .add_raw("target_std", float_text(m.target_std))
      .add_raw("metadata", metadata);
  if (const auto priors = input_priors(path, m)) {
    json.add_raw("input_relevance", relevance_json(*priors, feature_names(model)))
        .add_raw("bias_prior_gamma", gamma_json(priors->back().a, priors->back().b));
  }
  if (const auto scale = laplace_scale(path, m)) {
    json.add_raw("input_relevance", laplace_relevance_json(m, feature_names(model)))
        .add_raw("laplace_scale",
                 JsonObject()
                     .add_raw("phi_mean", float_text(static_cast<float>(scale->mean)))
                     .add_raw("phi_variance", float_text(static_cast<float>(scale->variance)))
                     .str());
  }
  return json.str();
}

// The first kListedInputs of a per-input list, then how many more (and `more`, where the rest
// is): an image model's 784 ranges would bury the rest of the report.
constexpr uint32_t kListedInputs = 16;
std::string listed(const std::vector<std::string>& items, const std::string& more = "") {
  std::string joined;
  const size_t shown = items.size() < kListedInputs ? items.size() : kListedInputs;
  for (size_t k = 0; k < shown; ++k) joined += (k ? ", " : "") + items[k];
  if (shown < items.size()) {
    joined += ", ... and " + std::to_string(items.size() - shown) + " more" + more;
  }
  return joined;
}

// The distance variance: its scale, and how many of each input's bins hold a training value.
void print_distance(const pbp_model& m) {
  if (m.input_occupancy == nullptr) return;
  std::vector<std::string> bins;
  for (uint32_t k = 0; k < m.input_count; ++k) {
    uint32_t occupied = 0;
    for (uint32_t b = 0; b < fmt::input_occupancy_section::kBins; ++b) {
      occupied += pbp::distance::occupied(
          m.input_occupancy + fmt::input_occupancy_section::kWordsPerInput * k, b);
    }
    bins.push_back(std::to_string(occupied));
  }
  std::printf(
      "distance:   + (A target_std d)^2 epistemic variance, A %s; occupied bins of %u: %s\n",
      float_text(m.distance_scale).c_str(), fmt::input_occupancy_section::kBins,
      listed(bins).c_str());
}

// The pair variance: its scale, and how much of the pairs' grids the training rows occupy.
void print_pairs(const pbp_model& m, const std::vector<std::string>& names) {
  namespace layout = fmt::input_pair_occupancy_section;
  if (m.pair_occupancy == nullptr) return;
  const uint32_t pairs = layout::pair_count(m.input_count);
  uint32_t total = 0, fewest = layout::kBins * layout::kBins + 1u, fewest_a = 0, fewest_b = 0;
  const uint32_t* grid = m.pair_occupancy;
  for (uint32_t a = 0; a + 1u < m.input_count; ++a) {
    for (uint32_t b = a + 1u; b < m.input_count; ++b, grid += layout::kWordsPerPair) {
      uint32_t occupied = 0;
      for (uint32_t c = 0; c < layout::kBins * layout::kBins; ++c) {
        occupied += pbp::distance::occupied(grid, c);
      }
      total += occupied;
      if (occupied < fewest) {
        fewest = occupied;
        fewest_a = a;
        fewest_b = b;
      }
    }
  }
  const auto name = [&](uint32_t k) { return k < names.size() ? names[k] : std::to_string(k); };
  std::printf(
      "pairs:      + (A2 target_std f)^2 epistemic variance, A2 %s; occupied cells of %u x %u "
      "per input pair: %.1f on average over %u pair%s, fewest %u (%s, %s)\n",
      float_text(m.pair_scale).c_str(), layout::kBins, layout::kBins,
      static_cast<double>(total) / pairs, pairs, pairs == 1u ? "" : "s", fewest,
      name(fewest_a).c_str(), name(fewest_b).c_str());
}

// Each input's training range, or why there is none (pbp_range_report says unknown then).
void print_ranges(const pbp_model& m, const std::vector<std::string>& names) {
  if (m.input_min == nullptr) {
    std::printf("ranges:     none (a blob written before input ranges were stored)\n");
    return;
  }
  std::vector<std::string> ranges;
  for (uint32_t k = 0; k < m.input_count; ++k) {
    ranges.push_back((k < names.size() ? names[k] : std::to_string(k)) + " [" +
                     float_text(m.input_min[k]) + ", " + float_text(m.input_max[k]) + "]");
  }
  std::printf("ranges:     %s\n", listed(ranges, " (--json lists every one)").c_str());
  print_distance(m);
  print_pairs(m, names);
}

// A Student-t predictive (FORMAT.md, section 9): what its intervals are against a Gaussian's.
void print_tail(const pbp_model& m) {
  if (m.tail_dof == 0u) return;
  std::printf(
      "predictive: Student-t, %u degrees of freedom, the variance of the std; 50 %% interval "
      "+-%.3f std, 95 %% +-%.3f std (Gaussian: 0.674, 1.960)\n",
      m.tail_dof, pbp::outputs::predictive_half_width(0.25, m.tail_dof),
      pbp::outputs::predictive_half_width(0.025, m.tail_dof));
}

// What the network's outputs z ~ N(nu, psi) become for the model's task (runtime/FORMAT.md). Only
// regression uses the noise Gamma and the target's standardisation; the other tasks' blobs
// carry placeholders there, which would mean nothing here.
void print_output(const pbp_model& m) {
  switch (m.task) {
    case PBP_TASK_BINARY:
      std::printf(
          "output:     probit: p(class 1) = Phi(mean / sqrt(1 + variance)) of the network's "
          "output (pbp_predict_classes)\n");
      return;
    case PBP_TASK_MULTICLASS:
      std::printf(
          "output:     softmax over %u classes: the mean-field approximation of its expectation "
          "(pbp_predict_classes)\n",
          m.output_count);
      return;
    case PBP_TASK_COUNT_DATA:
      std::printf(
          "output:     negative-binomial predictive over counts: a Poisson likelihood whose log "
          "rate, the network's output, is Gaussian (pbp_predict_count)\n");
      return;
    default: {
      const float variance = outputs::gamma_variance(m.noise_a, m.noise_b);
      std::printf("output:     %s predictive in target units (pbp_predict)\n",
                  m.tail_dof != 0u ? "Student-t" : "Gaussian");
      if (m.likelihood == PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC) {
        std::printf(
            "noise:      per input: the second output is its log variance (the Gamma is "
            "unused)\n");
      } else {
        std::printf(
            "noise:      Gamma(a=%s, b=%s), variance b/(a-1) = %s (standardised), std %s in "
            "target units\n",
            float_text(m.noise_a).c_str(), float_text(m.noise_b).c_str(),
            float_text(variance).c_str(),
            general(std::sqrt(static_cast<double>(variance)) * m.target_std, 6).c_str());
      }
      std::printf("target:     mean %s, std %s (what the standardised output is scaled back by)\n",
                  float_text(m.target_mean).c_str(), float_text(m.target_std).c_str());
    }
  }
}

void print_summary(const std::string& path, const pbp::Model& model) {
  const pbp_model& m = model.view();
  const std::optional<std::vector<trainer::Gamma>> priors = input_priors(path, m);
  const std::optional<trainer::LaplaceScale> scale = laplace_scale(path, m);
  std::printf("%s: pbp model blob, format v%u, %u bytes, CRC-32 0x%08x (ok)\n", path.c_str(),
              fmt::kVersion, m.blob_size, model_view::stored_crc(m));
  std::printf("task:       %s, %u inputs, %u output%s\n", task_name(m.task), m.input_count,
              m.output_count, m.output_count == 1 ? "" : "s");
  std::printf("likelihood: %s", likelihood_text(m.likelihood));
  if (m.likelihood == PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED) {
    std::printf(", epistemic variance x %s", float_text(m.epistemic_scale).c_str());
  }
  std::printf("\n");
  std::printf("layers:     %u\n", m.layer_count);
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    std::printf("  %u: %u -> %u %s, %s weights\n", l, m.layers[l].inputs, m.layers[l].outputs,
                activation_name(m.layers[l].activation), storage_name(m.layers[l].storage));
  }
  const uint64_t bytes = weight_bytes(m);
  std::printf("weights:    %u (mean + variance: %llu bytes, %s per weight; blob %s per weight)\n",
              m.weight_count, static_cast<unsigned long long>(bytes),
              general(static_cast<double>(bytes) / m.weight_count, 3).c_str(),
              general(static_cast<double>(m.blob_size) / m.weight_count, 4).c_str());
  const QuantisationBound bound = quantisation_bound(m);
  if (bound.mean_absolute > 0.0) {
    std::printf(
        "rounding:   %s weights are within %s of the means and %s (relative) of the\n"
        "            variances they were rounded from (half a quantisation step at each value)\n",
        bound.storage, general(bound.mean_absolute, 3).c_str(),
        general(bound.variance_relative, 3).c_str());
  }
  print_output(m);
  std::printf("prior:      Gamma(a=%s, b=%s)%s\n", float_text(m.prior_a).c_str(),
              float_text(m.prior_b).c_str(),
              priors  ? " beyond layer 0; per input below (ARD)"
              : scale ? " beyond layer 0's input weights; Laplace on those (below)"
                      : "");
  std::printf("workspace:  %u bytes per prediction\n", m.workspace_bytes);
  if (m.name.length) std::printf("name:       %s\n", text(m.name).c_str());
  if (m.target_name.length) std::printf("target name: %s\n", text(m.target_name).c_str());
  if (m.training_rows) {
    std::printf("trained on: %llu rows\n", static_cast<unsigned long long>(m.training_rows));
  }
  const std::vector<std::string> names = feature_names(model);
  if (!names.empty()) {
    std::string joined;
    for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
    std::printf("features:   %s\n", joined.c_str());
  }
  if (m.notes.length) std::printf("notes:      %s\n", text(m.notes).c_str());
  std::printf("written by: %s\n", m.writer.length ? text(m.writer).c_str() : "(not recorded)");
  print_ranges(m, names);
  print_tail(m);
  if (priors) print_relevance(*priors, names);
  if (scale) print_laplace_relevance(m, *scale, names);
}

}  // namespace

int command_inspect(const Arguments& args) {
  const CommandDefinition command{"inspect", kUsage, {{"json", false}, {"target", true}}};
  // The model path is the one positional argument; parse_options sees only the options.
  Arguments flags;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    (args[i].rfind("-", 0) == 0 ? flags : paths).push_back(args[i]);
    if (args[i] == "--target" && i + 1 < args.size()) flags.push_back(args[++i]);
  }
  return run_command(command, flags, [&](const ParsedOptions& options) {
    if (paths.size() != 1) throw UsageError("expected exactly one model file");
    const std::vector<uint8_t> bytes = read_model_file(paths[0]);
    const std::vector<uint32_t> blob = aligned_copy(bytes);
    pbp::Model model;
    open_blob(model, blob.data(), bytes.size(), paths[0]);
    const std::optional<std::string> target = options.text("target");
    const std::vector<std::string> targets = cost_target_names();
    if (target && std::find(targets.begin(), targets.end(), *target) == targets.end()) {
      print_target_report(model.view(), *target);  // throws UsageError naming the known targets
    }
    if (options.has("json")) {
      std::string json = inspect_json(paths[0], model);
      if (target)
        json.insert(json.size() - 1, ", \"target\": " + target_report_json(model.view(), *target));
      std::cout << json << "\n";
    } else {
      print_summary(paths[0], model);
      if (target) print_target_report(model.view(), *target);
    }
    return 0;
  });
}

}  // namespace pbp::cli
