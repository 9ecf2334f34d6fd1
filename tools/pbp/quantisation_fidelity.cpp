// SPDX-License-Identifier: Apache-2.0
// The quantised blob against its float32 original (quantisation_fidelity.hpp).
#include "quantisation_fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "evaluation.hpp"
#include "fallback_search.hpp"
#include "interruption.hpp"
#include "output.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/int8_rounding.hpp"

namespace pbp::cli {
namespace {

double gaussian_kl(double mean_p, double var_p, double mean_q, double var_q) {
  const double d = mean_p - mean_q;
  return 0.5 * (std::log(var_q / var_p) + (var_p + d * d) / var_q - 1.0);
}

double classes_kl(const double* p, const double* q, size_t classes) {
  double kl = 0.0;
  for (size_t c = 0; c < classes; ++c) {
    if (p[c] > 0.0) kl += p[c] * std::log(p[c] / std::max(q[c], 1e-300));
  }
  return std::max(kl, 0.0);
}

}  // namespace

QuantisationFidelity quantisation_fidelity(const LoadedModel& original,
                                           const LoadedModel& quantised, const ModelRows& rows) {
  QuantisationFidelity f;
  f.rows = rows.data.rows;
  if (f.rows == 0) return f;
  std::vector<double> kl(f.rows);
  if (original.description().task == trainer::Task::regression) {
    // One runtime pass per row and model gives both the predictive and the epistemic variance.
    std::vector<double> change(f.rows);
    for (size_t r = 0; r < f.rows; ++r) {
      const std::span<const double> x(rows.data.row(r), rows.data.inputs);
      const trainer::Prediction a = original.predict(x);
      const trainer::Prediction b = quantised.predict(x);
      kl[r] = gaussian_kl(a.mean, a.variance(), b.mean, b.variance());
      change[r] = a.epistemic_variance > 0.0
                      ? std::fabs(std::sqrt(b.epistemic_variance / a.epistemic_variance) - 1.0)
                      : (b.epistemic_variance > 0.0 ? 1.0 : 0.0);
    }
    std::nth_element(change.begin(), change.begin() + f.rows / 2, change.end());
    f.epistemic_change = change[f.rows / 2];
  } else {
    const RowPredictions p = predict_rows(original, rows);
    const RowPredictions q = predict_rows(quantised, rows);
    for (size_t r = 0; r < f.rows; ++r) {
      kl[r] = p.classes != 0 ? classes_kl(&p.probabilities[r * p.classes],
                                          &q.probabilities[r * q.classes], p.classes)
                             : gaussian_kl(p.mean[r], p.variance[r], q.mean[r], q.variance[r]);
    }
  }
  double total = 0.0;
  for (const double k : kl) {
    total += k;
    f.largest_kl = std::max(f.largest_kl, k);
  }
  f.mean_kl = total / static_cast<double>(f.rows);
  return f;
}

ModelRows rounding_rows(const ModelRows& rows) {
  // The rounding's rows, inputs only (the rows need no labels).
  trainer::Dataset picked;
  picked.source = rows.data.source;
  picked.inputs = rows.data.inputs;
  for (const size_t r : trainer::int8_rounding_rows(rows.data.rows)) {
    picked.x.insert(picked.x.end(), rows.data.row(r), rows.data.row(r) + rows.data.inputs);
    ++picked.rows;
  }
  picked.y.assign(picked.rows, 0.0);
  return model_rows(std::move(picked));
}

namespace {
// How far beyond the goals a blob is: the larger of its two figures over its goal (<= 1: within).
double beyond_goals(const QuantisationFidelity& f) {
  return std::max(f.mean_kl / kFidelityWarningNats, f.epistemic_change / kFidelityWarningEpistemic);
}
// Up to this many storage assignments (three rungs on four layers) the fallback tries them all.
constexpr size_t kEveryAssignmentUpTo = 81;
}  // namespace

std::vector<LayerFallback> fall_back_within_goals(const LoadedModel& original,
                                                  trainer::Model& rounded,
                                                  const trainer::Model& rescaled,
                                                  const ModelRows& rows, format::Storage storage,
                                                  Int8Fallback fallback) {
  const ModelRows used = rounding_rows(rows);
  const size_t layers = rounded.layers.size();
  std::vector<format::Storage> layer_storage(layers, storage);
  // The steps a layer in storage s may take: up the ladder int8 -> logarithmic variance codes ->
  // float16, one rung or more (a layer the logarithmic codes do not help goes to float16 at once).
  const auto steps_from = [fallback](format::Storage s) {
    std::vector<format::Storage> to;
    if (fallback == Int8Fallback::none || s == format::Storage::float16) return to;
    if (s == format::Storage::int8 && fallback == Int8Fallback::log_variance_then_float16) {
      to.push_back(format::Storage::int8_log_variance);
    }
    to.push_back(format::Storage::float16);
    return to;
  };
  // The model with `steps`: float16 layers take the means before their rounding to the int8 grid.
  const auto model_with = [&](const std::vector<format::Storage>& steps) {
    trainer::Model candidate = rounded;
    candidate.weight_storage = format::Storage::int8;
    candidate.layer_storage = steps;
    for (size_t l = 0; l < layers; ++l) {
      if (steps[l] == format::Storage::float16) candidate.layers[l].mean = rescaled.layers[l].mean;
    }
    return candidate;
  };
  // Each mix measured once: the searches measure the mixes the report then gives figures for.
  std::map<StorageAssignment, QuantisationFidelity> measured_mixes;
  const auto fidelity_with = [&](const std::vector<format::Storage>& steps) {
    const auto known = measured_mixes.find(steps);
    if (known != measured_mixes.end()) return known->second;
    const std::vector<uint8_t> blob = trainer::write_blob(model_with(steps));
    const QuantisationFidelity f =
        quantisation_fidelity(original, LoadedModel::open(blob, "int8 blob"), used);
    measured_mixes.emplace(steps, f);
    return f;
  };
  // Bytes a step adds: float16 two per weight more than int8, the logarithmic codes none.
  const auto added_bytes = [&](size_t l, format::Storage to) {
    return to == format::Storage::float16 ? 2 * rounded.layers[l].mean.size() : size_t{0};
  };
  std::vector<LayerFallback> steps;
  QuantisationFidelity fidelity = fidelity_with(layer_storage);
  if (beyond_goals(fidelity) <= 1.0) return steps;
  // A bar on a terminal: every assignment of a four-layer model is 80 blobs measured.
  ProgressBar progress("int8 fallback", "storage mixes measured");
  uint64_t measured = 0, to_measure = 0;
  const BeyondGoals beyond = [&](const StorageAssignment& trial) {
    throw_if_interrupted();
    progress.update(++measured, to_measure);
    return beyond_goals(fidelity_with(trial));
  };
  // Few layers: every assignment of the ladder's rungs, so that a move that alone misses the goals
  // but takes another within them at no cost is found (power's default recipe: logarithmic codes
  // for the hidden layer and float16 for the 51 output weights, against both in float16).
  std::vector<std::vector<format::Storage>> rungs(layers);
  size_t assignments = 1;
  for (size_t l = 0; l < layers; ++l) {
    rungs[l] = {storage};
    for (const format::Storage to : steps_from(storage)) rungs[l].push_back(to);
    assignments *= rungs[l].size();
  }
  const auto weights_of = [&](size_t l) { return rounded.layers[l].mean.size(); };
  std::vector<FallbackMove> moves;
  if (assignments <= kEveryAssignmentUpTo) {
    to_measure = assignments - 1;
    const StorageAssignment best = smallest_assignment_within_goals(rungs, added_bytes, weights_of,
                                                                    beyond, beyond_goals(fidelity));
    for (size_t l = 0; l < layers; ++l) {
      if (best[l] != layer_storage[l]) moves.push_back({l, best[l]});
    }
  } else {
    moves = greedy_moves_within_goals(layer_storage, steps_from, added_bytes, weights_of, beyond,
                                      beyond_goals(fidelity));
  }
  progress.finish();
  for (const FallbackMove& move : moves) {  // each with the blob's figures before it
    steps.push_back({move.layer, move.to, fidelity});
    layer_storage[move.layer] = move.to;
    fidelity = fidelity_with(layer_storage);
  }
  if (!steps.empty()) rounded = model_with(layer_storage);
  return steps;
}

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

void report_quantisation_fidelity(const LoadedModel& original,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command) {
  const ModelRows used = rounding_rows(rows);
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
