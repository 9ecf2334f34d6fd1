// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/verification.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "pbp/outputs.hpp"
#include "pbp/predictive_tail.hpp"
#include "pbp/trainer/metrics.hpp"

namespace pbp::host {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Enough pmf terms for any interval the runtime computes (PBP_COUNT_MAX_STEPS), perturbed.
constexpr uint32_t kReferenceCountTerms = 1u << 20;

// The closed interval of whole numbers a discrete output may take.
struct Range {
  double low = kInfinity;
  double high = -kInfinity;
  void include(double value) {
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool contains(double value) const { return value >= low && value <= high; }
};

double interval_bound(const outputs::CountInterval<double>& interval, double bound) {
  return interval.complete ? bound : kInfinity;
}

// The interval probability slack of a count bound k: the tolerance, or the accuracy the runtime
// documents for its float CDF (outputs.hpp: a few (k + |log pmf(0)|) ulp; 4 covers the 2.5 seen
// over 20 000 random means up to 13 000), whichever is larger.
double cdf_slack(double bound, double mean, double psi, double tolerance) {
  constexpr double kFloatUlp = 0x1.0p-24;
  const double log_pmf0 = mean * outputs::detail::log1p_over_x(psi * mean);
  return std::max(tolerance, 4.0 * (bound + log_pmf0) * kFloatUlp);
}

enum class WholeNumber { mode, lower, upper };

// What the trainer gives for a count's mode or interval bound at every corner of the box:
// nu + log(1 +- tolerance) (the mean scaled by 1 +- tolerance), psi (1 +- tolerance), and for a
// bound the probability +- `slack`. Over a box this small each output moves one way with each
// coordinate (up with the mean and the probability, the mode down and the interval wider with
// psi), so the corners bound it.
Range accepted_range(WholeNumber output, double nu, double psi, double tolerance, double slack) {
  const double p = kVerifiedIntervalProbability;
  const double probabilities[2] = {std::max(p - slack, 0.5 * p),
                                   std::min(p + slack, 0.5 * (1.0 + p))};
  Range range;
  for (const double mean_sign : {-1.0, 1.0}) {
    for (const double psi_sign : {-1.0, 1.0}) {
      const double corner_nu = nu + std::log1p(mean_sign * std::min(tolerance, 0.5));
      const double corner_psi = psi * (1.0 + psi_sign * std::min(tolerance, 1.0));
      const auto moments = outputs::count_moments(corner_nu, corner_psi);
      if (output == WholeNumber::mode) {
        range.include(moments.mode);
        continue;
      }
      for (const double probability : probabilities) {
        const auto interval =
            outputs::count_interval(moments.mean, corner_psi, probability, kReferenceCountTerms);
        range.include(interval_bound(
            interval, output == WholeNumber::lower ? interval.lower : interval.upper));
      }
    }
  }
  return range;
}

OutputComparison continuous(std::string name, double runtime, double trainer, double floor) {
  return {std::move(name), runtime, trainer, output_difference(runtime, trainer, floor)};
}

OutputComparison whole_number(std::string name, double runtime, double trainer,
                              const Range& accepted) {
  const double difference =
      accepted.contains(runtime) ? 0.0 : output_difference(runtime, trainer, 1.0);
  return {std::move(name), runtime, trainer, difference};
}

std::vector<OutputComparison> regression(const LoadedModel& runtime,
                                         const trainer::Model& reference,
                                         std::span<const double> x) {
  const double p = kVerifiedIntervalProbability;
  const RegressionPrediction r = runtime.predict_interval(x, p);
  const trainer::Prediction t = trainer::predict(reference, x);
  const double t_std = std::sqrt(t.variance());
  // The interval of the reference's predictive shape: a Gaussian's, or its Student-t's.
  const double z = reference.tail_dof == 0
                       ? trainer::standard_normal_quantile(0.5 * (1.0 + p))
                       : outputs::predictive_half_width(0.5 * (1.0 - p), reference.tail_dof);
  return {continuous("mean", r.moments.mean, t.mean, t_std),
          continuous("std", r.std, t_std, t_std),
          continuous("epistemic_std", std::sqrt(r.moments.epistemic_variance),
                     std::sqrt(t.epistemic_variance), t_std),
          continuous("aleatoric_std", std::sqrt(r.moments.aleatoric_variance),
                     std::sqrt(t.aleatoric_variance), t_std),
          continuous("lower", r.lower, t.mean - z * t_std, t_std),
          continuous("upper", r.upper, t.mean + z * t_std, t_std)};
}

std::vector<OutputComparison> classes(const LoadedModel& runtime, const trainer::Model& reference,
                                      std::span<const double> x) {
  const ClassPrediction r = runtime.predict_classes(x);
  const std::vector<double> t = trainer::predict_class_probabilities(reference, x);
  if (r.probabilities.size() != t.size()) {
    throw std::runtime_error("the runtime gives " + std::to_string(r.probabilities.size()) +
                             " class probabilities, the trainer " + std::to_string(t.size()));
  }
  std::vector<OutputComparison> comparisons;
  for (size_t c = 0; c < t.size(); ++c) {
    std::string name(1, 'p');  // appended: "p" + text trips GCC 12's false -Wrestrict
    name += std::to_string(c);
    comparisons.push_back(continuous(std::move(name), r.probabilities[c], t[c], 1.0));
  }
  const double entropy = outputs::entropy(t.data(), static_cast<uint32_t>(t.size()));
  comparisons.push_back(continuous("entropy", r.entropy, entropy, 1.0));
  return comparisons;
}

std::vector<OutputComparison> count(const LoadedModel& runtime, const trainer::Model& reference,
                                    std::span<const double> x, double tolerance) {
  const CountPrediction r = runtime.predict_count(x);
  const trainer::OutputLayerMoments moments = trainer::output_layer_moments(reference, x);
  const double nu = moments.mean[0], psi = moments.variance[0];
  const auto t = outputs::count_moments(nu, psi);
  const auto interval =
      outputs::count_interval(t.mean, psi, kVerifiedIntervalProbability, kReferenceCountTerms);
  const double lower_slack = cdf_slack(r.lower, t.mean, psi, tolerance);
  const double upper_slack = cdf_slack(r.upper, t.mean, psi, tolerance);
  return {continuous("mean", r.mean, t.mean, 1.0),
          continuous("variance", r.variance, t.variance, 1.0),
          whole_number("mode", r.mode, t.mode,
                       accepted_range(WholeNumber::mode, nu, psi, tolerance, 0.0)),
          whole_number("lower", r.lower, interval_bound(interval, interval.lower),
                       accepted_range(WholeNumber::lower, nu, psi, tolerance, lower_slack)),
          whole_number("upper", r.upper, interval_bound(interval, interval.upper),
                       accepted_range(WholeNumber::upper, nu, psi, tolerance, upper_slack))};
}

}  // namespace

double output_difference(double runtime, double trainer, double floor) {
  if (!std::isfinite(runtime) || !std::isfinite(trainer)) {
    return runtime == trainer ? 0.0 : kInfinity;
  }
  return std::fabs(runtime - trainer) / std::max(std::fabs(trainer), floor);
}

std::vector<OutputComparison> compare_row(const LoadedModel& runtime,
                                          const trainer::Model& reference,
                                          std::span<const double> x, double tolerance) {
  std::vector<double> rounded(x.size());
  for (size_t k = 0; k < x.size(); ++k) rounded[k] = static_cast<float>(x[k]);
  switch (runtime.description().task) {
    case trainer::Task::regression:
      return regression(runtime, reference, rounded);
    case trainer::Task::binary:
    case trainer::Task::multiclass:
      return classes(runtime, reference, rounded);
    case trainer::Task::count:
      return count(runtime, reference, rounded, tolerance);
  }
  throw std::runtime_error("unknown task");
}

const WorstOutput& VerifyReport::worst() const {
  const WorstOutput* worst = &outputs.at(0);
  for (const WorstOutput& output : outputs) {
    if (output.comparison.difference > worst->comparison.difference) worst = &output;
  }
  return *worst;
}

VerifyReport verify_rows(const LoadedModel& runtime, const trainer::Model& reference,
                         const ModelRows& rows, double tolerance) {
  if (reference.task != runtime.description().task ||
      reference.input_count() != runtime.description().inputs ||
      reference.output_count() != runtime.description().outputs) {
    throw std::runtime_error(
        "the trainer's model and the runtime's do not have the same task "
        "and shape");
  }
  VerifyReport report;
  report.rows = rows.data.rows;
  for (size_t row = 0; row < rows.data.rows; ++row) {
    std::vector<OutputComparison> comparisons;
    try {
      comparisons =
          compare_row(runtime, reference,
                      std::span<const double>(rows.data.row(row), rows.data.inputs), tolerance);
    } catch (const std::runtime_error& error) {
      throw rows.error_at(row, error.what());
    }
    if (report.outputs.empty()) {
      for (const OutputComparison& comparison : comparisons) {
        report.outputs.push_back({comparison, row});
      }
    }
    for (size_t i = 0; i < comparisons.size(); ++i) {
      if (comparisons[i].difference > report.outputs[i].comparison.difference) {
        report.outputs[i] = {comparisons[i], row};
      }
    }
  }
  return report;
}

}  // namespace pbp::host
