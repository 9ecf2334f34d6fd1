// The quantised blob against its float32 original (quantisation_fidelity.hpp).
#include "quantisation_fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <span>
#include <utility>
#include <vector>

#include "evaluation.hpp"
#include "output.hpp"
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

void report_quantisation_fidelity(const std::vector<uint8_t>& original_blob,
                                  const std::vector<uint8_t>& quantised_blob, const ModelRows& rows,
                                  const std::string& storage, const std::string& command) {
  // The rounding's rows, inputs only (the rows need no labels).
  trainer::Dataset picked;
  picked.source = rows.data.source;
  picked.inputs = rows.data.inputs;
  for (const size_t r : trainer::int8_rounding_rows(rows.data.rows)) {
    picked.x.insert(picked.x.end(), rows.data.row(r), rows.data.row(r) + rows.data.inputs);
    ++picked.rows;
  }
  picked.y.assign(picked.rows, 0.0);
  const ModelRows used = model_rows(std::move(picked));
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
