// SPDX-License-Identifier: Apache-2.0
// Golden vectors: the HOST float runtime's predictions, recorded as exact bit patterns in
// tests/runtime/golden/golden_vectors.h, which the portable test tests/runtime/golden checks on
// every target (the runtime's contract: bit-identical outputs everywhere).
//
// This test rebuilds the whole header from scratch and compares it with the committed file:
//   1. trains a few networks (3-8-1, 5-64-1, 4-16-16-1, 2-32-32-32-1 ReLU; 3-8-1 erf,
//      4-16-16-1 sign) with the PBP trainer on
//      small synthetic data generated here from fixed seeds (pbp::trainer::Random, own math),
//   2. writes their blobs (no metadata, to keep the header small for the micro:bit),
//   3. picks inputs per model: typical rows, the zero vector, large |x|, and inputs chosen so
//      that hidden units sit deep in the alpha < -30 (asymptotic series) region,
//   4. runs pbp_open + pbp_predict of the host runtime (float) on each and records the status
//      and the bits of mean, epistemic_variance, aleatoric_variance, std, lower, upper.
//
// REGENERATE (after a deliberate change of the runtime's float math, of the shared moment code,
// or of the trainer), from a configured host build:
//
//   PBP_REGENERATE_FIXTURES=1 ctest --test-dir build/host -R GoldenVectors
//
// then rebuild and run the targets (cmake --workflow --preset cortex-m0 ... or
// targets/tools/test-all-targets.sh): tests/runtime/golden must pass on every one of them; a target
// that disagrees has found a portability bug in the runtime, not a stale header.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/distance_variance.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"
#include "test_paths.hpp"

namespace pbp::trainer {
namespace {

constexpr uint32_t kMaxInputs = 5;  // widest input of the golden models (PBP_GOLDEN_MAX_INPUTS)
constexpr const char* kHeaderPath = "tests/runtime/golden/golden_vectors.h";

struct Spec {
  const char* shape;
  uint32_t inputs;
  std::vector<uint32_t> hidden;
  uint32_t rows;
  uint32_t epochs;
  uint64_t seed;
  double epistemic_scale = 1.0;              // not 1: the blob has the epistemic-scaled likelihood
  Activation activation = Activation::relu;  // of the hidden layers
  format::Storage storage = format::Storage::float32;     // of the layers' weights
  LikelihoodKind likelihood = LikelihoodKind::automatic;  // heteroscedastic: 2 outputs
  // not 0: the blob has the input occupancy (section 7) of the rows outside input 0's middle
  // third, with this distance scale
  double distance_scale = 0.0;
  // not 0: the blob has the input pair occupancy (section 8) of the rows outside the corner where
  // inputs 0 and 1 are both in their upper halves (and the input occupancy of the same rows), with
  // this pair scale
  double pair_scale = 0.0;
  // not 0: the blob has a Student-t predictive (section 9) with these degrees of freedom
  uint32_t tail_dof = 0;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> list = {
      {"3-8-1", 3, {8}, 400, 40, 11},
      {"5-64-1", 5, {64}, 400, 40, 12},
      {"4-16-16-1", 4, {16, 16}, 400, 40, 13},
      {"2-32-32-32-1", 2, {32, 32, 32}, 400, 40, 14},
      {"4-16-16-1, epistemic x 4.6875", 4, {16, 16}, 400, 40, 13, 4.6875},
      {"3-8-1 erf", 3, {8}, 400, 40, 15, 1.0, Activation::erf},
      {"4-16-16-1 sign", 4, {16, 16}, 400, 40, 16, 1.0, Activation::sign},
      // The float16 kernel (storage type 2) on the same trained networks.
      {"3-8-1 float16", 3, {8}, 400, 40, 11, 1.0, Activation::relu, format::Storage::float16},
      {"4-16-16-1 float16",
       4,
       {16, 16},
       400,
       40,
       13,
       1.0,
       Activation::relu,
       format::Storage::float16},
      // The int8 kernel (storage type 3) on the same trained networks.
      {"3-8-1 int8", 3, {8}, 400, 40, 11, 1.0, Activation::relu, format::Storage::int8},
      {"4-16-16-1 int8", 4, {16, 16}, 400, 40, 13, 1.0, Activation::relu, format::Storage::int8},
      // Storage type 4: the int8 kernel's sums over logarithmic variance codes.
      {"3-8-1 int8 log variance",
       3,
       {8},
       400,
       40,
       11,
       1.0,
       Activation::relu,
       format::Storage::int8_log_variance},
      {"4-16-16-1 int8 log variance",
       4,
       {16, 16},
       400,
       40,
       13,
       1.0,
       Activation::relu,
       format::Storage::int8_log_variance},
      // Likelihood 5: input-dependent noise, the aleatoric variance exp(nu_g + psi_g / 2).
      {"3-8-2 heteroscedastic",
       3,
       {8},
       400,
       40,
       17,
       1.0,
       Activation::relu,
       format::Storage::float32,
       LikelihoodKind::heteroscedastic},
      // Section 7: the distance variance (A target_std d)^2, d from the occupancy's gap and the
      // ranges (data_distance.hpp).
      {"3-8-1 distance variance",
       3,
       {8},
       400,
       40,
       11,
       4.6875,
       Activation::relu,
       format::Storage::float32,
       LikelihoodKind::automatic,
       1.5},
      // Section 8 beside section 7: the pair variance (A2 target_std f)^2, f the fraction of input
      // pairs on an unoccupied cell (data_distance.hpp).
      {"3-8-1 pair variance",
       3,
       {8},
       400,
       40,
       11,
       4.6875,
       Activation::relu,
       format::Storage::float32,
       LikelihoodKind::automatic,
       1.5,
       2.5},
      // Section 9: the interval of a Student-t of the same variance (predictive_tail.hpp), its
      // quantile in float on every target; 4 degrees of freedom (even: the algebraic CDF).
      {"3-8-1 Student-t",
       3,
       {8},
       400,
       40,
       11,
       4.6875,
       Activation::relu,
       format::Storage::float32,
       LikelihoodKind::automatic,
       0.0,
       0.0,
       4},
      // 3 degrees of freedom, the heaviest tails (odd: the CDF's arctangent form).
      {"3-8-1 Student-t 3 dof",
       3,
       {8},
       400,
       40,
       11,
       4.6875,
       Activation::relu,
       format::Storage::float32,
       LikelihoodKind::automatic,
       0.0,
       0.0,
       3},
  };
  return list;
}

// A smooth nonlinear target with Gaussian noise; inputs on [-3, 3] with different offsets and
// scales per column so that the standardisation matters.
Dataset synthetic_data(const Spec& spec) {
  Random random(spec.seed);
  Dataset data;
  data.rows = spec.rows;
  data.inputs = spec.inputs;
  for (uint32_t i = 0; i < spec.rows; ++i) {
    double y = 0.0;
    for (uint32_t k = 0; k < spec.inputs; ++k) {
      const double u = -3.0 + 6.0 * random.uniform();
      const double x = 2.0 * k + (1.0 + 0.5 * k) * u;
      data.x.push_back(x);
      y += (k % 2 == 0 ? 1.0 : -0.5) * u * u + 0.8 * u * (k + 1.0);
    }
    data.y.push_back(10.0 + y + 0.5 * random.normal());
  }
  for (uint32_t k = 0; k < spec.inputs; ++k) data.feature_names.push_back("x");
  data.target_name = "y";
  return data;
}

// The synthetic rows with input 0 outside its middle third (by value): the occupancy a gap leaves.
Dataset rows_around_a_gap(const Spec& spec) {
  const Dataset data = synthetic_data(spec);
  double low = data.row(0)[0], high = low;
  for (size_t i = 0; i < data.rows; ++i) {
    low = std::min(low, data.row(i)[0]);
    high = std::max(high, data.row(i)[0]);
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < data.rows; ++i) {
    const double t = (data.row(i)[0] - low) / (high - low);
    if (t < 1.0 / 3.0 || t > 2.0 / 3.0) kept.push_back(i);
  }
  return data.subset(kept);
}

// The synthetic rows outside the corner where inputs 0 and 1 both lie in the upper half of their
// range: every value of each input occurs, one combination does not.
Dataset rows_without_a_corner(const Spec& spec) {
  const Dataset data = synthetic_data(spec);
  std::vector<double> middle(2);
  for (size_t k = 0; k < 2; ++k) {
    double low = data.row(0)[k], high = low;
    for (size_t i = 0; i < data.rows; ++i) {
      low = std::min(low, data.row(i)[k]);
      high = std::max(high, data.row(i)[k]);
    }
    middle[k] = 0.5 * (low + high);
  }
  std::vector<size_t> kept;
  for (size_t i = 0; i < data.rows; ++i) {
    if (data.row(i)[0] <= middle[0] || data.row(i)[1] <= middle[1]) kept.push_back(i);
  }
  return data.subset(kept);
}

// Models of the other tasks, for pbp_predict_classes and pbp_predict_count.
struct TaskSpec {
  const char* shape;
  Task task;
  uint32_t classes;
  uint64_t seed;
};

const std::vector<TaskSpec>& task_specs() {
  static const std::vector<TaskSpec> list = {
      {"binary 3-8-1", Task::binary, 0, 21},
      {"multiclass 3-10-4", Task::multiclass, 4, 22},
      {"count 3-8-1", Task::count, 0, 23},
  };
  return list;
}

// The regression data's inputs with labels of the task: the sign of the (noisy) target for
// binary, its quartile band for multiclass, a small count growing with it for counts.
Dataset task_data(const TaskSpec& spec) {
  Dataset data = synthetic_data({spec.shape, 3, {8}, 300, 20, spec.seed});
  for (double& y : data.y) {
    const double centred = y - 10.0;
    if (spec.task == Task::binary) y = centred > 0.0 ? 1.0 : 0.0;
    if (spec.task == Task::multiclass)
      y = centred < -3.0 ? 0 : centred < 0.0 ? 1 : centred < 3.0 ? 2 : 3;
    if (spec.task == Task::count)
      y = std::floor(std::exp(0.15 * (centred > 12.0 ? 12.0 : centred)));
  }
  return data;
}

// The smallest standardised mean alpha of any hidden unit for raw input x (the trainer's
// double-precision forward pass; only used to choose and describe inputs).
struct AlphaSummary {
  double min_alpha = 0.0;
  uint32_t below_30 = 0;  // hidden units with alpha < -30
};

AlphaSummary alpha_summary(const Model& model, const std::vector<double>& raw) {
  std::vector<double> x(raw.size());
  for (size_t k = 0; k < raw.size(); ++k) {
    x[k] = (raw[k] - model.standardisation.input_mean[k]) / model.standardisation.input_std[k];
  }
  AdfWorkspace ws(model.layers);
  forward_with_cache(model.layers, x.data(), ws);
  AlphaSummary s;
  s.min_alpha = 1e300;
  for (size_t l = 0; l + 1 < model.layers.size(); ++l) {
    for (uint32_t j = 0; j < model.layers[l].outputs; ++j) {
      // ReLU layers keep alpha; for erf and sign it is m / sqrt(v) of the pre-activation too.
      const double a = model.layers[l].activation == Activation::relu
                           ? ws.relu_alpha[l][j]
                           : ws.a_mean[l][j] / std::sqrt(ws.a_var[l][j]);
      s.min_alpha = a < s.min_alpha ? a : s.min_alpha;
      s.below_30 += a < -30.0;
    }
  }
  return s;
}

// The raw input in direction x_k = -m_k / v_k (m, v: mean and variance of unit j's first-layer
// weights), at standardised length `scale`. For large |x| the unit's alpha tends to
// sum(m x) / sqrt(sum(v x^2)), which this direction minimises: -sqrt(sum(m_k^2 / v_k)).
std::vector<double> against_unit(const Model& model, uint32_t unit, double scale) {
  const Layer& first = model.layers[0];
  const double* m = &first.mean[unit * first.row_length()];
  const double* v = &first.variance[unit * first.row_length()];
  std::vector<double> direction(first.inputs);
  double norm = 0.0;
  for (uint32_t k = 0; k < first.inputs; ++k) {
    direction[k] = -m[k] / v[k];
    norm += direction[k] * direction[k];
  }
  norm = std::sqrt(norm);
  std::vector<double> raw(first.inputs);
  for (uint32_t k = 0; k < first.inputs; ++k) {
    raw[k] = model.standardisation.input_mean[k] +
             model.standardisation.input_std[k] * scale * direction[k] / norm;
  }
  return raw;
}

struct Case {
  uint32_t model;
  std::string what;
  std::vector<float> input;
  float probability;
  pbp_status status;
  pbp_prediction prediction;
};

uint32_t bits(float value) {
  uint32_t b;
  std::memcpy(&b, &value, sizeof b);
  return b;
}

// Rounds to float and keeps the input finite and representable.
std::vector<float> to_float(const std::vector<double>& raw) {
  return std::vector<float>(raw.begin(), raw.end());
}

std::string generate_header() {
  std::string text;
  char line[512];
  text +=
      "/* SPDX-License-Identifier: Apache-2.0 */\n"
      "/* Golden vectors: the host float runtime's predictions, bit for bit. Generated by\n"
      " * tests/host/golden/golden_test.cpp; do not edit. Regenerate (after a deliberate change "
      "of\n"
      " * the runtime's float math, the shared moment code or the trainer) with\n"
      " *   PBP_REGENERATE_FIXTURES=1 ctest --test-dir build/host -R GoldenVectors\n"
      " * and check every target reproduces them (tests/runtime/golden). Everything is const, so "
      "it\n"
      " * stays in flash on the targets. */\n"
      "#ifndef PBP_TEST_GOLDEN_VECTORS_H\n#define PBP_TEST_GOLDEN_VECTORS_H\n#include "
      "<stdint.h>\n\n";
  std::snprintf(line, sizeof line, "#define PBP_GOLDEN_MAX_INPUTS %uu\n", kMaxInputs);
  text += line;

  std::vector<Case> cases;
  std::vector<std::vector<uint8_t>> blobs;
  uint32_t max_width = 0;
  const float probabilities[] = {0.95f, 0.5f, 0.9f, 0.99f};
  for (uint32_t m = 0; m < specs().size(); ++m) {
    const Spec& spec = specs()[m];
    TrainOptions options;
    options.hidden = spec.hidden;
    options.epochs = spec.epochs;
    options.seed = spec.seed;
    options.activation = spec.activation;
    options.likelihood = spec.likelihood;
    Model model = train(synthetic_data(spec), options);
    model.metadata = Metadata{};
    model.epistemic_scale = spec.epistemic_scale;
    model.weight_storage = spec.storage;
    model.tail_dof = spec.tail_dof;
    if (spec.distance_scale != 0.0 || spec.pair_scale != 0.0) {
      const Dataset occupying =
          spec.pair_scale != 0.0 ? rows_without_a_corner(spec) : rows_around_a_gap(spec);
      if (spec.distance_scale != 0.0) {
        model.distance_scale = spec.distance_scale;
        model.input_occupancy = input_occupancy(occupying, model.standardisation);
      }
      if (spec.pair_scale != 0.0) {
        model.pair_scale = spec.pair_scale;
        model.pair_occupancy = input_pair_occupancy(occupying, model.standardisation);
      }
    }
    if (std::getenv("GOLDEN_DEBUG"))
      std::fprintf(stderr, "%s noise %g %g prior %g %g\n", spec.shape, model.noise.a, model.noise.b,
                   model.prior.a, model.prior.b);
    blobs.push_back(write_blob(model));
    for (uint32_t h : spec.hidden) max_width = h > max_width ? h : max_width;

    // Inputs: two typical rows, zero, large |x| (+-1e3 raw), and the input along minus the
    // most decisive first-layer unit at standardised length 100 (deep in alpha < -30).
    std::vector<std::pair<std::string, std::vector<double>>> inputs;
    const Dataset data = synthetic_data(spec);
    inputs.push_back(
        {"training row 0", std::vector<double>(data.row(0), data.row(0) + spec.inputs)});
    inputs.push_back(
        {"training row 7", std::vector<double>(data.row(7), data.row(7) + spec.inputs)});
    inputs.push_back({"zero", std::vector<double>(spec.inputs, 0.0)});
    std::vector<double> large(spec.inputs);
    for (uint32_t k = 0; k < spec.inputs; ++k) large[k] = (k % 2 == 0 ? 1e3 : -1e3) * (1.0 + k);
    inputs.push_back({"large |x| (1e3)", large});
    std::vector<double> larger(spec.inputs);
    for (uint32_t k = 0; k < spec.inputs; ++k) larger[k] = (k % 2 == 0 ? -3e5 : 2e5);
    inputs.push_back({"large |x| (3e5)", larger});
    // The unit and scale that push the most hidden units below alpha = -30.
    std::vector<double> deepest;
    AlphaSummary best;
    for (uint32_t j = 0; j < model.layers[0].outputs; ++j) {
      for (double scale : {0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 1000.0}) {
        const std::vector<double> raw = against_unit(model, j, scale);
        const AlphaSummary s = alpha_summary(model, raw);
        if (deepest.empty() || s.below_30 > best.below_30 ||
            (s.below_30 == best.below_30 && s.min_alpha < best.min_alpha)) {
          best = s;
          deepest = raw;
        }
      }
    }
    inputs.push_back({"against a first-layer unit", deepest});
    if (spec.pair_scale != 0.0) {  // each value near training values, the pair (0, 1) unseen
      std::vector<double> in_corner(data.row(0), data.row(0) + spec.inputs);
      for (size_t k = 0; k < 2; ++k) {
        const double low = model.standardisation.input_min[k];
        in_corner[k] = low + 0.8 * (model.standardisation.input_max[k] - low);
      }
      inputs.push_back({"inputs 0 and 1 in the unseen corner", in_corner});
    } else if (spec.distance_scale != 0.0) {  // inside the occupancy's gap, and beyond the range
      std::vector<double> in_gap(data.row(0), data.row(0) + spec.inputs);
      in_gap[0] = 0.5 * (model.standardisation.input_min[0] + model.standardisation.input_max[0]);
      inputs.push_back({"input 0 in the gap", in_gap});
      std::vector<double> beyond(data.row(7), data.row(7) + spec.inputs);
      beyond[1] = model.standardisation.input_max[1] + 0.75;
      inputs.push_back({"input 1 beyond its range", beyond});
    }

    std::vector<uint32_t> aligned((blobs.back().size() + 3) / 4);
    std::memcpy(aligned.data(), blobs.back().data(), blobs.back().size());
    pbp_model opened;
    EXPECT_EQ(pbp_open(&opened, aligned.data(), blobs.back().size()), PBP_OK);
    std::vector<float> workspace(opened.workspace_bytes / sizeof(float));
    for (size_t i = 0; i < inputs.size(); ++i) {
      Case c;
      c.model = m;
      c.input = to_float(inputs[i].second);
      std::vector<double> as_float(c.input.begin(), c.input.end());
      const AlphaSummary s = alpha_summary(model, as_float);
      std::snprintf(line, sizeof line, "%s: %u hidden units below alpha -30, min alpha %.4g",
                    inputs[i].first.c_str(), s.below_30, s.min_alpha);
      c.what = line;
      c.probability = probabilities[i % 4];
      c.prediction = pbp_prediction{};
      c.status = pbp_predict(&opened, c.input.data(), spec.inputs, c.probability, workspace.data(),
                             opened.workspace_bytes, &c.prediction);
      cases.push_back(c);
    }
    EXPECT_GT(best.below_30, 0u) << spec.shape
                                 << ": no input found with a unit below alpha -30 (min "
                                 << best.min_alpha << ")";
  }
  // Other tasks: the same kinds of inputs through pbp_predict_classes / pbp_predict_count.
  struct TaskCase {
    uint32_t model;
    std::string what;
    std::vector<float> input;
    uint32_t status;
    uint32_t output[8];  // classes: count, predicted, confidence, entropy, p0..p3; counts: 5 values
  };
  std::vector<TaskCase> task_cases;
  std::vector<std::vector<uint8_t>> task_blobs;
  for (uint32_t m = 0; m < task_specs().size(); ++m) {
    const TaskSpec& spec = task_specs()[m];
    TrainOptions options;
    options.hidden = {spec.task == Task::multiclass ? 10u : 8u};
    options.epochs = 20;
    options.seed = spec.seed;
    options.task = spec.task;
    options.classes = spec.classes;
    const Dataset data = task_data(spec);
    Model model = train(data, options);
    model.metadata = Metadata{};
    task_blobs.push_back(write_blob(model));
    max_width = 10 > max_width ? 10 : max_width;
    std::vector<uint32_t> aligned((task_blobs.back().size() + 3) / 4);
    std::memcpy(aligned.data(), task_blobs.back().data(), task_blobs.back().size());
    pbp_model opened;
    EXPECT_EQ(pbp_open(&opened, aligned.data(), task_blobs.back().size()), PBP_OK);
    std::vector<float> workspace(opened.workspace_bytes / sizeof(float));
    const std::vector<std::pair<std::string, std::vector<double>>> inputs = {
        {"training row 0", std::vector<double>(data.row(0), data.row(0) + 3)},
        {"training row 7", std::vector<double>(data.row(7), data.row(7) + 3)},
        {"zero", std::vector<double>(3, 0.0)},
        {"large |x| (1e3)", {1e3, -2e3, 3e3}}};
    for (const auto& [what, raw] : inputs) {
      TaskCase c{m, what, to_float(raw), 0, {}};
      if (spec.task == Task::count) {
        pbp_count_result r{};
        c.status = pbp_predict_count(&opened, c.input.data(), 3, 0.9f, workspace.data(),
                                     opened.workspace_bytes, &r);
        const float values[5] = {r.mean, r.variance, r.mode, r.lower, r.upper};
        for (int f = 0; f < 5; ++f) c.output[f] = bits(values[f]);
      } else {
        float p[4] = {0, 0, 0, 0};
        pbp_class_result r{};
        c.status = pbp_predict_classes(&opened, c.input.data(), 3, workspace.data(),
                                       opened.workspace_bytes, p, 4, &r);
        c.output[0] = r.class_count;
        c.output[1] = r.predicted_class;
        c.output[2] = bits(r.confidence);
        c.output[3] = bits(r.entropy);
        for (int k = 0; k < 4; ++k) c.output[4 + k] = bits(p[k]);
      }
      task_cases.push_back(c);
    }
  }

  std::snprintf(line, sizeof line, "#define PBP_GOLDEN_MAX_WIDTH %uu\n", max_width);
  text += line;
  std::snprintf(line, sizeof line, "#define PBP_GOLDEN_MODEL_COUNT %zuu\n", blobs.size());
  text += line;
  std::snprintf(line, sizeof line, "#define PBP_GOLDEN_CASE_COUNT %zuu\n\n", cases.size());
  text += line;

  for (size_t m = 0; m < blobs.size(); ++m) {
    std::snprintf(line, sizeof line,
                  "/* %s, trained %u epochs on %u synthetic rows (seed %llu). */\n"
                  "static const uint8_t pbp_golden_blob_%zu[%zuu] __attribute__((aligned(8))) = {",
                  specs()[m].shape, specs()[m].epochs, specs()[m].rows,
                  static_cast<unsigned long long>(specs()[m].seed), m, blobs[m].size());
    text += line;
    for (size_t i = 0; i < blobs[m].size(); ++i) {
      std::snprintf(line, sizeof line, "%s0x%02x,", i % 12 == 0 ? "\n    " : " ", blobs[m][i]);
      text += line;
    }
    text += "\n};\n\n";
  }

  text +=
      "typedef struct pbp_golden_model {\n  const uint8_t* blob;\n  uint32_t size;\n"
      "  uint32_t input_count;\n  const char* shape;\n} pbp_golden_model;\n\n"
      "static const pbp_golden_model pbp_golden_models[PBP_GOLDEN_MODEL_COUNT] = {\n";
  for (size_t m = 0; m < blobs.size(); ++m) {
    std::snprintf(line, sizeof line, "    {pbp_golden_blob_%zu, %zuu, %uu, \"%s\"},\n", m,
                  blobs[m].size(), specs()[m].inputs, specs()[m].shape);
    text += line;
  }
  text +=
      "};\n\n"
      "/* One prediction: the input and probability as float bits (unused inputs 0), the status\n"
      " * pbp_predict returns, and on PBP_OK the bits of mean, epistemic_variance,\n"
      " * aleatoric_variance, std, lower, upper. */\n"
      "typedef struct pbp_golden_case {\n  uint32_t model;\n  uint32_t "
      "input[PBP_GOLDEN_MAX_INPUTS];\n"
      "  uint32_t probability;\n  uint32_t status;\n  uint32_t output[6];\n} pbp_golden_case;\n\n"
      "static const pbp_golden_case pbp_golden_cases[PBP_GOLDEN_CASE_COUNT] = {\n";
  for (const Case& c : cases) {
    std::snprintf(line, sizeof line, "    /* %s %s */\n    {%u, {", specs()[c.model].shape,
                  c.what.c_str(), c.model);
    text += line;
    for (uint32_t k = 0; k < kMaxInputs; ++k) {
      std::snprintf(line, sizeof line, "%s0x%08xu", k ? ", " : "",
                    k < c.input.size() ? bits(c.input[k]) : 0u);
      text += line;
    }
    const pbp_prediction& p = c.prediction;
    std::snprintf(line, sizeof line,
                  "},\n     0x%08xu, %u,\n     {0x%08xu, 0x%08xu, 0x%08xu, 0x%08xu, 0x%08xu, "
                  "0x%08xu}},\n",
                  bits(c.probability), static_cast<unsigned>(c.status), bits(p.mean),
                  bits(p.epistemic_variance), bits(p.aleatoric_variance), bits(p.std),
                  bits(p.lower), bits(p.upper));
    text += line;
  }
  text += "};\n\n";

  // Other tasks.
  for (size_t m = 0; m < task_blobs.size(); ++m) {
    std::snprintf(
        line, sizeof line,
        "/* %s, trained 20 epochs on 300 synthetic rows (seed %llu). */\n"
        "static const uint8_t pbp_golden_task_blob_%zu[%zuu] __attribute__((aligned(8))) = {",
        task_specs()[m].shape, static_cast<unsigned long long>(task_specs()[m].seed), m,
        task_blobs[m].size());
    text += line;
    for (size_t i = 0; i < task_blobs[m].size(); ++i) {
      std::snprintf(line, sizeof line, "%s0x%02x,", i % 12 == 0 ? "\n    " : " ", task_blobs[m][i]);
      text += line;
    }
    text += "\n};\n\n";
  }
  std::snprintf(line, sizeof line, "#define PBP_GOLDEN_TASK_MODEL_COUNT %zuu\n", task_blobs.size());
  text += line;
  std::snprintf(line, sizeof line, "#define PBP_GOLDEN_TASK_CASE_COUNT %zuu\n\n",
                task_cases.size());
  text += line;
  text += "static const pbp_golden_model pbp_golden_task_models[PBP_GOLDEN_TASK_MODEL_COUNT] = {\n";
  for (size_t m = 0; m < task_blobs.size(); ++m) {
    std::snprintf(line, sizeof line, "    {pbp_golden_task_blob_%zu, %zuu, 3u, \"%s\"},\n", m,
                  task_blobs[m].size(), task_specs()[m].shape);
    text += line;
  }
  text +=
      "};\n\n"
      "/* One prediction of a binary, multiclass or count model (the model's task says which "
      "call):\n"
      " * the input bits, the status, and on PBP_OK for classes: class_count, predicted_class,\n"
      " * confidence and entropy bits, p0..p3 bits (capacity 4); for counts: the bits of mean,\n"
      " * variance, mode, lower, upper (probability 0.9). */\n"
      "typedef struct pbp_golden_task_case {\n  uint32_t model;\n  uint32_t input[3];\n"
      "  uint32_t status;\n  uint32_t output[8];\n} pbp_golden_task_case;\n\n"
      "static const pbp_golden_task_case pbp_golden_task_cases[PBP_GOLDEN_TASK_CASE_COUNT] = {\n";
  for (const TaskCase& c : task_cases) {
    std::snprintf(line, sizeof line,
                  "    /* %s %s */\n    {%u, {0x%08xu, 0x%08xu, 0x%08xu}, %u,\n     {",
                  task_specs()[c.model].shape, c.what.c_str(), c.model, bits(c.input[0]),
                  bits(c.input[1]), bits(c.input[2]), c.status);
    text += line;
    for (int f = 0; f < 8; ++f) {
      std::snprintf(line, sizeof line, "%s0x%08xu", f ? ", " : "", c.output[f]);
      text += line;
    }
    text += "}},\n";
  }
  text += "};\n\n#endif /* PBP_TEST_GOLDEN_VECTORS_H */\n";
  return text;
}

bool regenerating() {
  const char* flag = std::getenv("PBP_REGENERATE_FIXTURES");
  return flag != nullptr && std::string(flag) == "1";
}

TEST(GoldenVectors, HeaderMatchesHostRuntime) {
#if !defined(PBP_TRAINER_X86_64_V3) || defined(__SANITIZE_ADDRESS__)
  // The header's models were trained by the AVX2-tuned, uninstrumented trainer; its vectorised
  // (reassociated) sums round differently in a generic or sanitizer build, so retrained models
  // differ in the last bits. The runtime's bits are still checked there, by runtime_golden.
  if (!regenerating()) GTEST_SKIP() << "trainer built differently from the header's: models differ";
#endif
  const std::string expected = generate_header();
  const std::string path = pbp::test_paths::source_dir() + "/" + kHeaderPath;
  if (regenerating()) {
    std::ofstream(path, std::ios::binary) << expected;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string actual((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t line = 1, i = 0;
  while (i < actual.size() && i < expected.size() && actual[i] == expected[i])
    line += actual[i++] == '\n';
  EXPECT_TRUE(actual == expected)
      << kHeaderPath << " differs from what the trainer and the host runtime give now, first at "
      << "line " << line << ". If the change is deliberate, regenerate it:\n"
      << "  PBP_REGENERATE_FIXTURES=1 ctest --test-dir build/host -R GoldenVectors";
}

}  // namespace
}  // namespace pbp::trainer
