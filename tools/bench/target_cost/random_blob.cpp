// SPDX-License-Identifier: Apache-2.0
// target_cost_blob: a deterministic random model blob of any shape, for the per-target cost fit
// and its check (tools/bench/target_cost.py, targets/cost/).
//
//   target_cost_blob --shape 13-50-1 [--storage float32|float16|int8|int8-logvar]
//                    [--task regression|binary|multiclass|count] [--activation relu|erf|sign]
//                    [--distance-scale A] [--pair-scale A2] [--tail-dof N] [--seed N] --out F
//
// Weights as a trained model's look (means ~ N(0, 1/fan-in), variances log-uniform), written by
// the project's writer (trainer/src/blob_writer.cpp) in the storage asked for. Regression only:
// --distance-scale and --pair-scale (> 0) add the distance and pair variance's sections (FORMAT.md
// sections 7 and 8; pairs for 2 to 32 inputs), their occupancy that of kTrainingRows random rows
// (the trainer's own set_distance_variance), --tail-dof a Student-t predictive (section 9, 3..32).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/distance_variance.hpp"

namespace {

namespace fmt = pbp::format;

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "target_cost_blob: %s\n", message.c_str());
  std::exit(2);
}

std::string option(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  if (fallback == nullptr) fail(std::string("missing ") + name);
  return fallback;
}

std::vector<uint32_t> parse_shape(const std::string& text) {
  std::vector<uint32_t> widths;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, '-')) {
    const unsigned long width = std::strtoul(part.c_str(), nullptr, 10);
    if (width == 0 || width > 100000) fail("bad shape " + text);
    widths.push_back(static_cast<uint32_t>(width));
  }
  if (widths.size() < 2) fail("a shape needs inputs and outputs: " + text);
  return widths;
}

fmt::Storage parse_storage(const std::string& s) {
  if (s == "float32") return fmt::Storage::float32;
  if (s == "float16") return fmt::Storage::float16;
  if (s == "int8") return fmt::Storage::int8;
  if (s == "int8-logvar") return fmt::Storage::int8_log_variance;
  fail("unknown storage " + s);
}

fmt::Task parse_task(const std::string& s) {
  if (s == "regression") return fmt::Task::regression;
  if (s == "binary") return fmt::Task::binary;
  if (s == "multiclass") return fmt::Task::multiclass;
  if (s == "count") return fmt::Task::count;
  fail("unknown task " + s);
}

fmt::Activation parse_activation(const std::string& s) {
  if (s == "relu") return fmt::Activation::relu;
  if (s == "erf") return fmt::Activation::erf;
  if (s == "sign") return fmt::Activation::sign;
  fail("unknown activation " + s);
}

// Rows uniform over the input ranges: 1 - e^(-150/256) = 44 % of a pair's 16 x 16 cells occupied,
// 1 - e^(-150/64) = 90 % of an input's 64 bins (the firmware's rows, mean +- 2 std, fall on both).
constexpr size_t kTrainingRows = 150;

// The training rows the occupancy is taken from, from their own stream: a blob without the
// sections is the same, byte for byte, as before they existed.
pbp::trainer::Dataset training_rows(const pbp::trainer::Standardisation& s, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x6f63637570616e63u);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  pbp::trainer::Dataset data;
  data.rows = kTrainingRows;
  data.inputs = s.input_mean.size();
  for (size_t i = 0; i < data.rows; ++i) {
    for (size_t j = 0; j < data.inputs; ++j) {
      data.x.push_back(s.input_min[j] + (s.input_max[j] - s.input_min[j]) * uniform(rng));
    }
    data.y.push_back(s.target_mean);
  }
  return data;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<uint32_t> widths = parse_shape(option(argc, argv, "--shape", nullptr));
  const fmt::Task task = parse_task(option(argc, argv, "--task", "regression"));
  const fmt::Activation hidden = parse_activation(option(argc, argv, "--activation", "relu"));
  const std::string out = option(argc, argv, "--out", nullptr);
  const uint64_t seed = std::strtoull(option(argc, argv, "--seed", "1").c_str(), nullptr, 10);
  const double distance_scale =
      std::strtod(option(argc, argv, "--distance-scale", "0").c_str(), nullptr);
  const double pair_scale = std::strtod(option(argc, argv, "--pair-scale", "0").c_str(), nullptr);
  const unsigned long tail_dof =
      std::strtoul(option(argc, argv, "--tail-dof", "0").c_str(), nullptr, 10);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  if (task == fmt::Task::multiclass ? widths.back() < 2 : widths.back() != 1) {
    fail("regression, binary and count have one output; multiclass two or more");
  }

  pbp::trainer::Model model;
  model.task = task;
  model.weight_storage = parse_storage(option(argc, argv, "--storage", "float32"));
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    pbp::trainer::Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l + 2 < widths.size() ? hidden : fmt::Activation::linear;
    const size_t n = size_t{layer.outputs} * (layer.inputs + 1);
    const double scale = 1.0 / std::sqrt(static_cast<double>(layer.inputs + 1));
    for (size_t i = 0; i < n; ++i) layer.mean.push_back(scale * normal(rng));
    for (size_t i = 0; i < n; ++i) {
      layer.variance.push_back(scale * scale * std::exp(std::log(1e-3) * uniform(rng)));
    }
    model.layers.push_back(std::move(layer));
  }
  pbp::trainer::Standardisation& s = model.standardisation;
  for (uint32_t i = 0; i < widths.front(); ++i) {
    s.input_mean.push_back(10.0 * normal(rng));
    s.input_std.push_back(1.0 + 5.0 * uniform(rng));
    s.input_min.push_back(s.input_mean.back() - 3.0 * s.input_std.back());
    s.input_max.push_back(s.input_mean.back() + 3.0 * s.input_std.back());
  }
  s.target_mean = 22.5;
  s.target_std = 9.2;
  model.noise = {6.0, 1.0};
  model.prior = {6.0, 6.0};
  if ((distance_scale != 0.0 || pair_scale != 0.0 || tail_dof != 0) &&
      task != fmt::Task::regression) {
    fail("--distance-scale, --pair-scale and --tail-dof are regression's");
  }
  if (pair_scale != 0.0 && !pbp::trainer::pair_variance_fits(widths.front())) {
    fail("--pair-scale needs 2 to 32 inputs");
  }
  pbp::trainer::DistanceScaleFit scales;
  scales.scale = distance_scale;
  scales.pair_scale = pair_scale;
  pbp::trainer::set_distance_variance(model, training_rows(s, seed), scales);
  model.tail_dof = static_cast<uint32_t>(tail_dof);  // write_blob refuses one out of 3..32
  std::vector<uint8_t> blob;
  try {
    blob = pbp::trainer::write_blob(model);
  } catch (const std::exception& e) {
    fail(e.what());
  }
  std::ofstream file(out, std::ios::binary);
  file.write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()));
  if (!file.flush()) fail("cannot write " + out);
  return 0;
}
