// SPDX-License-Identifier: Apache-2.0
// The cost formula of target_cost.hpp. Instructions per prediction =
//   sum over terms t of coefficient[target][storage][t] * term t of the model,
// the terms (cost_terms below): the task's fixed cost (the output step, one per task, plus per
// class and per pair of classes for multiclass: the softmax's mean-field approximation is
// pairwise), per input (standardisation, checks), the first layer's weights m*n and
// rows m, every later layer's weights, inputs (n, after its input's activation: relu, erf or
// sign) and one per layer. (A later layer's rows are its successor's inputs, or the outputs: no
// term of their own, which would make the terms linearly dependent.) A layer's terms take the
// coefficients of its own storage type, the task and input terms those of the first layer's.
// float16 layers add their subnormal weights and the decoding loop's passes over them. A
// regression model's optional predictive terms (FORMAT.md sections 7 to 9) add, per prediction,
// the distance variance's inputs, the pair variance's inputs (one bin each) and pairs (one cell
// each), and the Student-t's quantile, one term per parity (odd dofs add the arctangent series).
#include "target_cost.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "options.hpp"
#include "output.hpp"

namespace pbp::cli {
namespace {

enum Term : unsigned {
  kRegression,
  kBinary,
  kMulticlass,
  kClasses,
  kClassPairs,
  kCount,
  kInputs,
  kFirstWeights,
  kFirstRows,
  kWeights,
  kReluInputs,
  kErfInputs,
  kSignInputs,
  kLayers,
  kHalfSubnormals,
  kHalfSubnormalShifts,
  kDistanceInputs,
  kPairInputs,
  kPairs,
  kStudentTEven,
  kStudentTOdd,
  kTermCount
};
const char* const kTermNames[kTermCount] = {
    "regression",      "binary",      "multiclass",      "classes",
    "class_pairs",     "count",       "inputs",          "first_weights",
    "first_rows",      "weights",     "relu_inputs",     "erf_inputs",
    "sign_inputs",     "layers",      "half_subnormals", "half_subnormal_shifts",
    "distance_inputs", "pair_inputs", "pairs",           "student_t_even",
    "student_t_odd"};

constexpr unsigned kStorageCount = 4;  // float32, float16, int8, int8-logvar (PBP_STORAGE_* - 1)
const char* const kStorageNames[kStorageCount] = {"float32", "float16", "int8", "int8-logvar"};
constexpr double kNotFitted = std::numeric_limits<double>::quiet_NaN();

struct TargetCost {
  const char* name;
  const char* board;       // targets/boards folder; "" on Linux (no fixed memory)
  uint64_t flash_bytes;    // the board's flash (memory.ld), 0 on Linux
  uint64_t ram_bytes;      // the board's RAM
  uint32_t runtime_bytes;  // text + rodata + data of libpbp_runtime.a linked by targets/cost
  uint32_t stack_bytes[kStorageCount];  // predict's measured stack high-water mark, 0: none
  // The same of the blobs with a Student-t predictive (its quantile runs deeper on some cores)
  uint32_t tail_stack_bytes[kStorageCount];
  double coefficient[kStorageCount][kTermCount];
};

const TargetCost kTargets[] = {
#include "target_cost_table.inc"
};

const TargetCost& find_target(const std::string& name) {
  for (const TargetCost& t : kTargets) {
    if (name == t.name) return t;
  }
  std::string known;
  for (const TargetCost& t : kTargets) known += std::string(known.empty() ? "" : ", ") + t.name;
  throw UsageError("--target: unknown target '" + name + "' (known: " + known + ")");
}

unsigned storage_index(uint32_t storage) {
  return storage >= 1 && storage <= kStorageCount ? storage - 1 : kStorageCount;
}

// The model's terms per storage type (homogeneous models have one row).
struct Terms {
  double value[kStorageCount][kTermCount] = {};
  bool uses[kStorageCount] = {};
  bool student_t = false;  // section 9: the stack of the blobs with a t
};

// float16 weights are decoded at every prediction: where the core has no half conversion, a
// subnormal half (a small variance: common in wide layers) takes a loop, one pass per leading
// zero of its mantissa.
void add_half_subnormals(const pbp_layer& layer, Terms& terms) {
  if (layer.storage != PBP_STORAGE_FLOAT16) return;
  const unsigned s = storage_index(layer.storage);
  const size_t count = size_t{layer.outputs} * (layer.inputs + 1u);
  for (const void* tensor : {layer.stored_mean, layer.stored_variance}) {
    const uint8_t* bytes = static_cast<const uint8_t*>(tensor);
    for (size_t i = 0; i < count; ++i) {
      const uint32_t magnitude = (bytes[2 * i] | uint32_t{bytes[2 * i + 1]} << 8) & 0x7FFFu;
      if (magnitude == 0 || magnitude >= 0x0400u) continue;
      uint32_t passes = 0;
      for (uint32_t mantissa = magnitude; (mantissa & 0x400u) == 0u; mantissa <<= 1) ++passes;
      terms.value[s][kHalfSubnormals] += 1;
      terms.value[s][kHalfSubnormalShifts] += passes;
    }
  }
}

Terms cost_terms(const pbp_model& m) {
  Terms terms;
  const unsigned first = storage_index(m.layers[0].storage);
  auto add = [&terms](unsigned storage, Term term, double value) {
    if (storage >= kStorageCount) return;
    terms.value[storage][term] += value;
    terms.uses[storage] = true;
  };
  switch (m.task) {
    case PBP_TASK_BINARY:
      add(first, kBinary, 1);
      break;
    case PBP_TASK_MULTICLASS:
      add(first, kMulticlass, 1);
      add(first, kClasses, m.output_count);
      add(first, kClassPairs, 0.5 * m.output_count * (m.output_count - 1.0));
      break;
    case PBP_TASK_COUNT_DATA:
      add(first, kCount, 1);
      break;
    default:
      add(first, kRegression, 1);
  }
  add(first, kInputs, m.input_count);
  if (m.task == PBP_TASK_REGRESSION) {  // the other tasks ignore sections 7 to 9
    if (m.input_occupancy != nullptr) add(first, kDistanceInputs, m.input_count);
    if (m.pair_occupancy != nullptr) {
      add(first, kPairInputs, m.input_count);
      add(first, kPairs, 0.5 * m.input_count * (m.input_count - 1.0));
    }
    if (m.tail_dof != 0) {
      add(first, m.tail_dof % 2 == 0 ? kStudentTEven : kStudentTOdd, 1);
      terms.student_t = true;
    }
  }
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const pbp_layer& layer = m.layers[l];
    const unsigned s = storage_index(layer.storage);
    const double n = layer.inputs, rows = layer.outputs;
    if (l == 0) {
      add(s, kFirstWeights, n * rows);
      add(s, kFirstRows, rows);
      continue;
    }
    add(s, kWeights, n * rows);
    const uint32_t activation = m.layers[l - 1].activation;
    add(s,
        activation == PBP_ACTIVATION_ERF    ? kErfInputs
        : activation == PBP_ACTIVATION_SIGN ? kSignInputs
                                            : kReluInputs,
        n);
    add(s, kLayers, 1);
  }
  for (uint32_t l = 0; l < m.layer_count; ++l) add_half_subnormals(m.layers[l], terms);
  return terms;
}

// The estimate, or NaN when a term the model has was never fitted for this target.
double estimate(const TargetCost& t, const Terms& terms) {
  double sum = 0.0;
  for (unsigned s = 0; s < kStorageCount; ++s) {
    for (unsigned k = 0; k < kTermCount; ++k) {
      if (terms.value[s][k] != 0.0) sum += t.coefficient[s][k] * terms.value[s][k];
    }
  }
  return sum;
}

uint32_t stack_bytes(const TargetCost& t, const Terms& terms) {
  uint32_t most = 0;
  for (unsigned s = 0; s < kStorageCount; ++s) {
    if (!terms.uses[s]) continue;
    if (t.stack_bytes[s] > most) most = t.stack_bytes[s];
    if (terms.student_t && t.tail_stack_bytes[s] > most) most = t.tail_stack_bytes[s];
  }
  return most;
}

struct Fit {
  uint64_t flash, ram;
  bool flash_fits, ram_fits;
};

Fit fit_of(const TargetCost& t, const pbp_model& m, uint32_t stack) {
  Fit f;
  f.flash = uint64_t{m.blob_size} + t.runtime_bytes;
  f.ram = uint64_t{m.workspace_bytes} + stack;
  f.flash_fits = t.flash_bytes == 0 || f.flash <= t.flash_bytes;
  f.ram_fits = t.ram_bytes == 0 || f.ram <= t.ram_bytes;
  return f;
}

std::string bytes_text(uint64_t bytes) {
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::vector<std::string> cost_target_names() {
  std::vector<std::string> names;
  for (const TargetCost& t : kTargets) names.push_back(t.name);
  return names;
}

void print_target_report(const pbp_model& m, const std::string& target) {
  const TargetCost& t = find_target(target);
  const Terms terms = cost_terms(m);
  const uint32_t stack = stack_bytes(t, terms);
  const Fit fit = fit_of(t, m, stack);
  if (t.flash_bytes == 0) {
    std::printf("device:     %s (Linux: no fixed flash or RAM)\n", t.name);
  } else {
    std::printf("device:     %s (board %s: %s of flash, %s of RAM)\n", t.name, t.board,
                bytes_text(t.flash_bytes).c_str(), bytes_text(t.ram_bytes).c_str());
  }
  std::printf("  flash:    %s = blob %s + runtime %s (every kernel, the preset's build)%s\n",
              bytes_text(fit.flash).c_str(), bytes_text(m.blob_size).c_str(),
              bytes_text(t.runtime_bytes).c_str(),
              fit.flash_fits ? "" : (": does not fit the " + bytes_text(t.flash_bytes)).c_str());
  std::printf("  RAM:      %s = workspace %s + predict stack %s (measured)%s\n",
              bytes_text(fit.ram).c_str(), bytes_text(m.workspace_bytes).c_str(),
              bytes_text(stack).c_str(),
              fit.ram_fits ? "" : (": does not fit the " + bytes_text(t.ram_bytes)).c_str());
  const double instructions = estimate(t, terms);
  if (std::isnan(instructions)) {
    std::printf("  speed:    no estimate (this storage or task was not fitted for %s)\n", t.name);
  } else {
    std::printf(
        "  speed:    ~%s instructions per prediction (cost formula fitted to QEMU counts)\n",
        general(std::round(instructions), 12).c_str());
  }
  std::printf("  verdict:  %s\n", fit.flash_fits && fit.ram_fits ? "fits" : "does not fit");
}

std::string target_report_json(const pbp_model& m, const std::string& target) {
  const TargetCost& t = find_target(target);
  const Terms terms = cost_terms(m);
  const uint32_t stack = stack_bytes(t, terms);
  const Fit fit = fit_of(t, m, stack);
  JsonObject by_storage;
  for (unsigned s = 0; s < kStorageCount; ++s) {
    if (!terms.uses[s]) continue;
    JsonObject values;
    for (unsigned k = 0; k < kTermCount; ++k) {
      values.add_raw(kTermNames[k], json_number(terms.value[s][k]));
    }
    by_storage.add_raw(kStorageNames[s], values.str());
  }
  const double instructions = estimate(t, terms);
  return JsonObject()
      .add_raw("name", json_string(t.name))
      .add_raw("board", t.flash_bytes ? json_string(t.board) : "null")
      .add_raw("flash_bytes", t.flash_bytes ? std::to_string(t.flash_bytes) : "null")
      .add_raw("ram_bytes", t.ram_bytes ? std::to_string(t.ram_bytes) : "null")
      .add_raw("runtime_bytes", std::to_string(t.runtime_bytes))
      .add_raw("model_flash_bytes", std::to_string(fit.flash))
      .add_raw("model_ram_bytes", std::to_string(fit.ram))
      .add_raw("predict_stack_bytes", std::to_string(stack))
      .add_raw("fits", fit.flash_fits && fit.ram_fits ? "true" : "false")
      .add_raw("instructions",
               std::isnan(instructions) ? "null" : json_number(std::round(instructions)))
      .add_raw("cost_terms", by_storage.str())
      .str();
}

}  // namespace pbp::cli
