// SPDX-License-Identifier: Apache-2.0
// The candidate int8 variance encodings of storage type 3, measured (runtime/FORMAT.md, "Storage
// type 3"): reads a float32 blob and writes float32 blobs of its weights as each candidate would
// decode them, so `pbp eval` and `pbp predict` score exactly what quantisation changes.
//   int8_variance_encodings IN.pbp OUT_PREFIX
// writes OUT_PREFIX-<name>.pbp for: means (int8 means, exact variances), sqrt (uint8 std with a
// per-row scale: v = (t u)^2), log16 and log32 (uint8 log2 code with a per-row offset: v = t
// 2^(u/16) or t 2^(u/32)); each candidate quantises the means to int8 with a per-row scale too, and
// only-<name> is the variance encoding alone (exact means); layer-<name> uses one variance scale or
// offset per tensor instead of per row (layer-sqrt is storage type 3 as chosen).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pbp/trainer/blob.hpp"

namespace {

using Row = std::vector<double>;

// int8 with a per-row scale s = max |m| / 127 (float32), m' = s q.
void quantise_means(Row& row) {
  double largest = 0.0;
  for (double m : row)
    largest = std::max(largest, std::fabs(static_cast<double>(static_cast<float>(m))));
  const double s = largest == 0.0 ? 1.0 : static_cast<double>(static_cast<float>(largest / 127.0));
  for (double& m : row)
    m = s * std::clamp(std::nearbyint(static_cast<float>(m) / s), -127.0, 127.0);
}

void quantise_sqrt(Row& row) {
  double largest = 0.0;
  for (double v : row)
    largest = std::max(largest, std::sqrt(static_cast<double>(static_cast<float>(v))));
  const double t = static_cast<double>(static_cast<float>(largest / 255.0));
  for (double& v : row) {
    const double u = std::clamp(
        std::nearbyint(std::sqrt(static_cast<double>(static_cast<float>(v))) / t), 1.0, 255.0);
    v = (t * u) * (t * u);
  }
}

void quantise_log(Row& row, double steps_per_octave) {
  double largest = 0.0;
  for (double v : row) largest = std::max(largest, static_cast<double>(static_cast<float>(v)));
  const double t =
      static_cast<double>(static_cast<float>(largest / std::exp2(255.0 / steps_per_octave)));
  for (double& v : row) {
    const double u =
        std::clamp(std::nearbyint(steps_per_octave *
                                  std::log2(static_cast<double>(static_cast<float>(v)) / t)),
                   0.0, 255.0);
    v = t * std::exp2(u / steps_per_octave);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: int8_variance_encodings IN.pbp OUT_PREFIX\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  const pbp::trainer::Model original = pbp::trainer::read_blob(bytes);
  for (const char* name :
       {"means", "sqrt", "log16", "log32", "only-sqrt", "only-log16", "only-log32", "layer-sqrt",
        "layer-log16", "only-layer-sqrt", "only-layer-log16"}) {
    pbp::trainer::Model model = original;
    // only-*: the variance encoding alone, on exact means.
    const bool only_variances = std::string(name).rfind("only-", 0) == 0;
    const std::string encoding = only_variances ? std::string(name).substr(5) : std::string(name);
    for (pbp::trainer::Layer& layer : model.layers) {
      const size_t n = layer.row_length();
      for (uint32_t j = 0; j < layer.outputs; ++j) {
        Row mean(layer.mean.begin() + j * n, layer.mean.begin() + (j + 1) * n);
        Row variance(layer.variance.begin() + j * n, layer.variance.begin() + (j + 1) * n);
        if (!only_variances) quantise_means(mean);
        if (encoding == "sqrt") quantise_sqrt(variance);
        if (encoding == "log16") quantise_log(variance, 16.0);
        if (encoding == "log32") quantise_log(variance, 32.0);
        std::copy(mean.begin(), mean.end(), layer.mean.begin() + j * n);
        std::copy(variance.begin(), variance.end(), layer.variance.begin() + j * n);
      }
    }
    for (pbp::trainer::Layer& layer : model.layers) {  // layer-*: one offset per tensor
      if (encoding == "layer-sqrt") quantise_sqrt(layer.variance);
      if (encoding == "layer-log16") quantise_log(layer.variance, 16.0);
    }
    pbp::trainer::write_blob_file(model, std::string(argv[2]) + "-" + name + ".pbp");
  }
  return 0;
}
