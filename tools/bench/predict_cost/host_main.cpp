// SPDX-License-Identifier: Apache-2.0
// predict_cost: the host half of tools/bench/predict_cost.sh (issue 3).
//
//   predict_cost random-blob --out F [--seed N]       deterministic random 13-50-1 model blob
//   predict_cost run --model F [--data CSV] --mode M --iterations N
//       M = pbp | mlp | sample | first | relu | second; calls bench_<M> (noinline), which runs N
//       predictions cycling over the inputs: what callgrind --toggle-collect counts
//   predict_cost accuracy --model F [--data CSV] [--rows 200] [--mc 100000] [--runs 10]
//       epistemic std of pbp_predict and of 30-sample runs against a Monte Carlo reference
//   predict_cost header --model F [--data CSV] --out H  the blob and 8 inputs as a C header for
//       the target build (predict_cost_targets.sh)
//
// Inputs: the CSV's rows (the first input_count columns), else 200 draws around the model's
// input standardisation.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "pbp/format.hpp"
#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"

namespace {

namespace fmt = pbp::format;

constexpr uint32_t kSamples = 30;

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "predict_cost: %s\n", message.c_str());
  std::exit(1);
}

// xoshiro256** and Marsaglia's polar method: the reference sampler (double, exact Gaussian).
struct Xoshiro {
  uint64_t s[4];
  explicit Xoshiro(uint64_t seed) {
    for (auto& word : s) {  // splitmix64
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      word = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  bool has_spare = false;
  double spare = 0.0;
  double normal() {
    if (has_spare) {
      has_spare = false;
      return spare;
    }
    double u, v, r;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      r = u * u + v * v;
    } while (r >= 1.0 || r == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r) / r);
    spare = v * f;
    has_spare = true;
    return u * f;
  }
};

// A 13-50-1 blob with plausible trained-model statistics: means ~ N(0, 1), variances log-uniform
// in [1e-3, 0.3], noise Gamma(6, 1) (aleatoric sd ~ 0.45 target sd). Written by the project's
// writer (trainer/src/blob_writer.cpp), float32 weights.
std::vector<uint8_t> random_blob(uint64_t seed) {
  const uint32_t inputs = 13, hidden = 50;
  const uint32_t shapes[2][2] = {{inputs, hidden}, {hidden, 1}};
  Xoshiro rng(seed);
  pbp::trainer::Model model;
  for (const auto& shape : shapes) {
    pbp::trainer::Layer layer;
    layer.inputs = shape[0];
    layer.outputs = shape[1];
    layer.activation = model.layers.empty() ? fmt::Activation::relu : fmt::Activation::linear;
    const uint32_t n = shape[1] * (shape[0] + 1);
    // Each value rounded to float32 as it is drawn, as the blob holds it.
    for (uint32_t i = 0; i < n; ++i) layer.mean.push_back(static_cast<float>(rng.normal()));
    for (uint32_t i = 0; i < n; ++i) {
      layer.variance.push_back(
          static_cast<float>(std::exp(std::log(1e-3) + rng.uniform() * std::log(300.0))));
    }
    model.layers.push_back(std::move(layer));
  }
  pbp::trainer::Standardisation& s = model.standardisation;
  for (uint32_t i = 0; i < inputs; ++i) {
    s.input_mean.push_back(static_cast<float>(10.0 * rng.normal()));
  }
  for (uint32_t i = 0; i < inputs; ++i) {
    s.input_std.push_back(static_cast<float>(1.0 + 5.0 * rng.uniform()));
  }
  s.target_mean = 22.5f;
  s.target_std = 9.2f;
  model.noise = {6.0, 1.0};
  model.prior = {6.0, 6.0};
  return pbp::trainer::write_blob(model);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// The model, kept 8-byte aligned.
struct Model {
  std::vector<uint64_t> storage;
  pbp_model model{};
};

void open_model(const std::string& path, Model& m) {
  const std::vector<uint8_t> bytes = read_file(path);
  m.storage.assign((bytes.size() + 7) / 8, 0);
  std::memcpy(m.storage.data(), bytes.data(), bytes.size());
  const pbp_status s = pbp_open(&m.model, m.storage.data(), bytes.size());
  if (s != PBP_OK) fail(path + ": " + pbp_status_name(s));
}

std::vector<std::vector<float>> load_inputs(const std::string& csv, const pbp_model& model,
                                            size_t max_rows) {
  std::vector<std::vector<float>> rows;
  if (csv.empty()) {
    Xoshiro rng(12345);
    for (size_t r = 0; r < max_rows; ++r) {
      std::vector<float> row(model.input_count);
      for (uint32_t i = 0; i < model.input_count; ++i) {
        row[i] = static_cast<float>(model.input_mean[i] + model.input_std[i] * rng.normal());
      }
      rows.push_back(row);
    }
    return rows;
  }
  std::ifstream in(csv);
  if (!in) fail("cannot read " + csv);
  std::string line;
  std::getline(in, line);  // header
  while (rows.size() < max_rows && std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<float> row;
    std::stringstream cells(line);
    std::string cell;
    while (row.size() < model.input_count && std::getline(cells, cell, ',')) {
      row.push_back(std::strtof(cell.c_str(), nullptr));
    }
    if (row.size() != model.input_count) fail(csv + ": too few columns");
    rows.push_back(row);
  }
  if (rows.empty()) fail(csv + ": no rows");
  return rows;
}

struct Bench {
  const pbp_model* model;
  const std::vector<std::vector<float>>* inputs;
  std::vector<float> workspace;
  std::vector<std::vector<float>> sd;
  std::vector<const float*> sd_ptrs;
  pbp_bench::Rng rng{0x9e3779b9u};
};

volatile float g_sink;

#define PBP_BENCH_LOOP(...)                   \
  const size_t rows = b.inputs->size();       \
  size_t row = 0;                             \
  float acc = 0.0f;                           \
  for (long i = 0; i < iterations; ++i) {     \
    const float* x = (*b.inputs)[row].data(); \
    __VA_ARGS__;                              \
    row = row + 1 == rows ? 0 : row + 1;      \
  }                                           \
  g_sink = acc;

__attribute__((noinline)) void bench_pbp(Bench& b, long iterations) {
  PBP_BENCH_LOOP({
    pbp_prediction p;
    pbp_predict(b.model, x, b.model->input_count, 0.95f, b.workspace.data(),
                b.workspace.size() * sizeof(float), &p);
    acc += p.std;
  })
}

__attribute__((noinline)) void bench_mlp(Bench& b, long iterations) {
  PBP_BENCH_LOOP({ acc += pbp_bench::mlp_forward(*b.model, x, b.workspace.data()); })
}

__attribute__((noinline)) void bench_sample(Bench& b, long iterations) {
  PBP_BENCH_LOOP({
    float mean, std;
    pbp_bench::sampled_prediction(*b.model, b.sd_ptrs.data(), x, kSamples, b.rng,
                                  b.workspace.data(), &mean, &std);
    acc += std;
  })
}

// The pieces of pbp_predict's network pass, for the breakdown. Inputs are already standardised
// by the caller (outside the counted function).
__attribute__((noinline)) void bench_first(Bench& b, long iterations) {
  float* mean = b.workspace.data();
  float* var = mean + b.model->max_width;
  PBP_BENCH_LOOP({
    pbp_bench::first_linear(*b.model, x, mean, var);
    acc += var[0];
  })
}

__attribute__((noinline)) void bench_relu(Bench& b, long iterations, const float* means,
                                          const float* vars, size_t stride) {
  float* mean = b.workspace.data();
  float* var = mean + b.model->max_width;
  const uint32_t width = b.model->layers[0].outputs;
  PBP_BENCH_LOOP({
    (void)x;
    std::memcpy(mean, means + row * stride, width * sizeof(float));
    std::memcpy(var, vars + row * stride, width * sizeof(float));
    pbp_bench::relu_layer(width, mean, var);
    acc += var[0];
  })
}

__attribute__((noinline)) void bench_second(Bench& b, long iterations, const float* means,
                                            const float* vars, size_t stride) {
  float* mean = b.workspace.data();
  float* var = mean + b.model->max_width;
  PBP_BENCH_LOOP({
    (void)x;
    pbp_bench::second_linear(*b.model, means + row * stride, vars + row * stride, mean, var);
    acc += var[0];
  })
}

std::string option(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  if (fallback == nullptr) fail(std::string("missing ") + name);
  return fallback;
}

void prepare(Bench& b, const pbp_model& model, const std::vector<std::vector<float>>& inputs) {
  b.model = &model;
  b.inputs = &inputs;
  b.workspace.assign(model.workspace_bytes / sizeof(float) + 4 * model.max_width +
                         pbp_bench::baseline_workspace_floats(model),
                     0.0f);
  b.sd.resize(model.layer_count);
  b.sd_ptrs.resize(model.layer_count);
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    b.sd[l].resize(model.layers[l].outputs * (model.layers[l].inputs + 1));
    pbp_bench::prepare_sd(model.layers[l], b.sd[l].data());
    b.sd_ptrs[l] = b.sd[l].data();
  }
}

int run(int argc, char** argv) {
  Model m;
  open_model(option(argc, argv, "--model", nullptr), m);
  const auto inputs = load_inputs(option(argc, argv, "--data", ""), m.model, 200);
  const std::string mode = option(argc, argv, "--mode", nullptr);
  const long iterations = std::atol(option(argc, argv, "--iterations", nullptr).c_str());
  Bench b;
  prepare(b, m.model, inputs);
  if (mode == "pbp") {
    bench_pbp(b, iterations);
  } else if (mode == "mlp") {
    bench_mlp(b, iterations);
  } else if (mode == "sample") {
    bench_sample(b, iterations);
  } else if (mode == "first" || mode == "relu" || mode == "second") {
    if (m.model.layer_count != 2) fail("the breakdown needs one hidden layer");
    // Standardised inputs and each input's hidden moments, computed outside the counted part.
    const uint32_t width = m.model.max_width;
    std::vector<std::vector<float>> standardised = inputs;
    std::vector<float> pre_mean(inputs.size() * width), pre_var(inputs.size() * width);
    std::vector<float> post_mean(pre_mean.size()), post_var(pre_var.size());
    for (size_t r = 0; r < inputs.size(); ++r) {
      for (uint32_t i = 0; i < m.model.input_count; ++i) {
        standardised[r][i] = (inputs[r][i] - m.model.input_mean[i]) / m.model.input_std[i];
      }
      float* pm = &pre_mean[r * width];
      float* pv = &pre_var[r * width];
      pbp_bench::first_linear(m.model, standardised[r].data(), pm, pv);
      std::memcpy(&post_mean[r * width], pm, width * sizeof(float));
      std::memcpy(&post_var[r * width], pv, width * sizeof(float));
      pbp_bench::relu_layer(m.model.layers[0].outputs, &post_mean[r * width], &post_var[r * width]);
    }
    b.inputs = &standardised;
    if (mode == "first") bench_first(b, iterations);
    if (mode == "relu") bench_relu(b, iterations, pre_mean.data(), pre_var.data(), width);
    if (mode == "second") bench_second(b, iterations, post_mean.data(), post_var.data(), width);
  } else {
    fail("unknown mode " + mode);
  }
  return 0;
}

// Monte Carlo reference of the epistemic std (target units) for one input, `samples` draws.
// Exact sampling of the weights' distribution by local reparameterisation: given the previous
// layer's (sampled) activations z, the pre-activations of a layer are independent Gaussians
// N(sum m_w z, sum v_w z^2) (bias: z = 1) times the layer scale, because distinct units have
// distinct, independent weights. Double precision throughout.
double reference_std(const pbp_model& model, const std::vector<float>& input, long samples,
                     Xoshiro& rng) {
  std::vector<double> x(model.input_count);
  for (uint32_t i = 0; i < model.input_count; ++i) {
    x[i] = (static_cast<double>(input[i]) - model.input_mean[i]) / model.input_std[i];
  }
  auto moments = [&](const pbp_layer& layer, const std::vector<double>& z, std::vector<double>& m,
                     std::vector<double>& sd) {
    const double n = layer.inputs + 1.0;
    m.assign(layer.outputs, 0.0);
    sd.assign(layer.outputs, 0.0);
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const float* wm = layer.mean + j * (layer.inputs + 1);
      const float* wv = layer.variance + j * (layer.inputs + 1);
      double sm = wm[layer.inputs], sv = wv[layer.inputs];
      for (uint32_t k = 0; k < layer.inputs; ++k) {
        sm += wm[k] * z[k];
        sv += wv[k] * z[k] * z[k];
      }
      m[j] = sm / std::sqrt(n);
      sd[j] = std::sqrt(sv / n);
    }
  };
  std::vector<double> m0, sd0, m, sd, z;
  moments(model.layers[0], x, m0, sd0);
  double sum = 0.0, sum_sq = 0.0;
  double first = 0.0;  // sums of y - first: well conditioned
  std::vector<double> a;
  for (long s = 0; s < samples; ++s) {
    a.resize(m0.size());
    for (size_t j = 0; j < a.size(); ++j) a[j] = m0[j] + sd0[j] * rng.normal();
    for (uint32_t l = 1; l < model.layer_count; ++l) {
      z.resize(a.size());
      for (size_t j = 0; j < a.size(); ++j) z[j] = a[j] > 0.0 ? a[j] : 0.0;
      moments(model.layers[l], z, m, sd);
      a.resize(m.size());
      for (size_t j = 0; j < a.size(); ++j) a[j] = m[j] + sd[j] * rng.normal();
    }
    if (s == 0) first = a[0];
    const double y = a[0] - first;
    sum += y;
    sum_sq += y * y;
  }
  const double mean = sum / static_cast<double>(samples);
  const double var = (sum_sq - mean * sum) / static_cast<double>(samples - 1);
  return std::sqrt(var) * model.target_std;
}

int accuracy(int argc, char** argv) {
  Model m;
  open_model(option(argc, argv, "--model", nullptr), m);
  const size_t max_rows = std::strtoul(option(argc, argv, "--rows", "200").c_str(), nullptr, 10);
  const auto inputs = load_inputs(option(argc, argv, "--data", ""), m.model, max_rows);
  const long mc = std::atol(option(argc, argv, "--mc", "100000").c_str());
  const int runs = std::atoi(option(argc, argv, "--runs", "10").c_str());
  Bench b;
  prepare(b, m.model, inputs);
  Xoshiro rng(2024);
  double err_pbp = 0.0, err_sample = 0.0, max_pbp = 0.0, mean_ref = 0.0;
  for (const auto& x : inputs) {
    const double ref = reference_std(m.model, x, mc, rng);
    pbp_prediction p;
    if (pbp_predict(&m.model, x.data(), m.model.input_count, 0.95f, b.workspace.data(),
                    b.workspace.size() * sizeof(float), &p) != PBP_OK) {
      fail("pbp_predict failed");
    }
    const double e = std::fabs(std::sqrt(static_cast<double>(p.epistemic_variance)) - ref) / ref;
    err_pbp += e;
    max_pbp = e > max_pbp ? e : max_pbp;
    mean_ref += ref;
    for (int r = 0; r < runs; ++r) {
      float mean, std;
      pbp_bench::sampled_prediction(m.model, b.sd_ptrs.data(), x.data(), kSamples, b.rng,
                                    b.workspace.data(), &mean, &std);
      err_sample += std::fabs(static_cast<double>(std) - ref) / ref;
    }
  }
  const double n = static_cast<double>(inputs.size());
  std::printf("accuracy_inputs %zu\nmc_samples %ld\nsample_runs %d\n", inputs.size(), mc, runs);
  std::printf("mean_reference_std %.6g\n", mean_ref / n);
  std::printf("pbp_mean_rel_error %.6g\npbp_max_rel_error %.6g\n", err_pbp / n, max_pbp);
  std::printf("sample30_mean_rel_error %.6g\n", err_sample / (n * runs));
  std::printf("mc_noise_rel %.6g\n", 1.0 / std::sqrt(2.0 * static_cast<double>(mc)));
  return 0;
}

int header(int argc, char** argv) {
  const std::string path = option(argc, argv, "--model", nullptr);
  Model m;
  open_model(path, m);
  const std::vector<uint8_t> bytes = read_file(path);
  const auto inputs = load_inputs(option(argc, argv, "--data", ""), m.model, 8);
  std::ofstream out(option(argc, argv, "--out", nullptr));
  out << "/* Generated by tools/bench/predict_cost (predict_cost header) from " << path
      << ". */\n#include <stdint.h>\n#define PREDICT_COST_BLOB_SIZE " << bytes.size()
      << "u\nstatic const uint8_t predict_cost_blob[PREDICT_COST_BLOB_SIZE] "
         "__attribute__((aligned(8))) = {";
  for (size_t i = 0; i < bytes.size(); ++i) {
    out << (i % 16 == 0 ? "\n  " : " ") << static_cast<unsigned>(bytes[i]) << ",";
  }
  out << "\n};\n#define PREDICT_COST_INPUT_COUNT " << m.model.input_count
      << "u\n#define PREDICT_COST_ROWS " << inputs.size()
      << "u\nstatic const float predict_cost_inputs[PREDICT_COST_ROWS][PREDICT_COST_INPUT_COUNT] = "
         "{\n";
  char buf[32];
  for (const auto& row : inputs) {
    out << "  {";
    for (float v : row) {
      std::snprintf(buf, sizeof buf, "%a", static_cast<double>(v));
      out << buf << "f,";
    }
    out << "},\n";
  }
  out << "};\n";
  return out ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "random-blob") {
    const auto blob =
        random_blob(std::strtoull(option(argc, argv, "--seed", "1").c_str(), nullptr, 10));
    std::ofstream out(option(argc, argv, "--out", nullptr), std::ios::binary);
    out.write(reinterpret_cast<const char*>(blob.data()),
              static_cast<std::streamsize>(blob.size()));
    return out ? 0 : 1;
  }
  if (command == "run") return run(argc, argv);
  if (command == "accuracy") return accuracy(argc, argv);
  if (command == "header") return header(argc, argv);
  std::fprintf(stderr,
               "usage: predict_cost random-blob|run|accuracy|header ... (see host_main.cpp)\n");
  return 2;
}
