// SPDX-License-Identifier: Apache-2.0
// target_cost_blob: a deterministic random model blob of any shape, for the per-target cost fit
// and its check (tools/bench/target_cost.py, targets/cost/).
//
//   target_cost_blob --shape 13-50-1 [--storage float32|float16|int8|int8-logvar] [--task
//   regression|binary|
//                    multiclass|count] [--activation relu|erf|sign] [--seed N] --out F
//
// Weights as a trained model's look (means ~ N(0, 1/fan-in), variances log-uniform), written by
// the project's writer (trainer/src/blob_writer.cpp) in the storage asked for.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/trainer/blob.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  const std::vector<uint32_t> widths = parse_shape(option(argc, argv, "--shape", nullptr));
  const fmt::Task task = parse_task(option(argc, argv, "--task", "regression"));
  const fmt::Activation hidden = parse_activation(option(argc, argv, "--activation", "relu"));
  const std::string out = option(argc, argv, "--out", nullptr);
  std::mt19937_64 rng(std::strtoull(option(argc, argv, "--seed", "1").c_str(), nullptr, 10));
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
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  std::ofstream file(out, std::ios::binary);
  file.write(reinterpret_cast<const char*>(blob.data()), static_cast<std::streamsize>(blob.size()));
  if (!file.flush()) fail("cannot write " + out);
  return 0;
}
