// SPDX-License-Identifier: Apache-2.0
#include "quantisation_report.hpp"

#include <cstdio>
#include <iostream>

#include "output.hpp"

namespace pbp::cli {

void report_fallback_layers(const std::vector<LayerFallback>& steps, const trainer::Model& model) {
  const bool regression = model.task == trainer::Task::regression;
  for (const LayerFallback& k : steps) {
    const trainer::Layer& layer = model.layers[k.layer];
    const bool to_float16 = k.storage == format::Storage::float16;
    std::printf("layer %zu (%u x %u) %s: before, the predictive KL mean was %s nats", k.layer + 1,
                layer.outputs, layer.row_length(),
                to_float16 ? "kept in float16" : "takes logarithmic variance codes",
                general(k.before.mean_kl, 3).c_str());
    if (regression) {
      std::printf(", the epistemic std's median change %s %%",
                  general(100.0 * k.before.epistemic_change, 3).c_str());
    }
    std::printf(" (goals %s nats, %s %%)\n", general(kFidelityWarningNats, 3).c_str(),
                general(100.0 * kFidelityWarningEpistemic, 3).c_str());
  }
  std::fflush(stdout);
}

void report_quantisation_fidelity(const std::vector<uint8_t>& original_blob,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command) {
  const ModelRows used = rounding_rows(rows);
  const LoadedModel original = LoadedModel::open(original_blob, "float32 original");
  const LoadedModel quantised = LoadedModel::open(quantised_blob, storage + " blob");
  const QuantisationFidelity f = quantisation_fidelity(original, quantised, used);
  const bool regression = original.description().task == trainer::Task::regression;
  std::printf("%s against float32 on %zu training rows: predictive KL mean %s, largest %s nats",
              storage.c_str(), f.rows, general(f.mean_kl, 3).c_str(),
              general(f.largest_kl, 3).c_str());
  if (regression)
    std::printf("; epistemic std %s %% (median change)",
                general(100.0 * f.epistemic_change, 3).c_str());
  std::printf("\n");
  std::fflush(stdout);
  if (!(f.mean_kl <= kFidelityWarningNats)) {
    std::cerr << "pbp " << command << ": warning: " << storage
              << " weights change this model's predictions by " << general(f.mean_kl, 3)
              << " nats per training row on average (more than " << kFidelityWarningNats
              << "); float16 (--storage float16) would keep its weights\n";
  } else if (regression && !(f.epistemic_change <= kFidelityWarningEpistemic)) {
    std::cerr << "pbp " << command << ": warning: " << storage
              << " weights change this model's epistemic std by "
              << general(100.0 * f.epistemic_change, 3) << " % (median over the training rows, "
              << "more than " << 100.0 * kFidelityWarningEpistemic
              << " %): its weight variances span more than one " << storage
              << " scale per layer keeps; float16 (--storage float16) would keep them\n";
  }
}

}  // namespace pbp::cli
