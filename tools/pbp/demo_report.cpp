// SPDX-License-Identifier: Apache-2.0
#include "demo_report.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "output.hpp"
#include "pbp/predictive_tail.hpp"

namespace pbp::cli {

bool same_bits(const RegressionPrediction& host, const OutputBits& device) {
  const std::pair<const char*, double> fields[] = {
      {"mean", host.moments.mean},
      {"std", host.std},
      {"epistemic_variance", host.moments.epistemic_variance},
      {"aleatoric_variance", host.moments.aleatoric_variance},
      {"lower95", host.lower},
      {"upper95", host.upper}};
  for (const auto& [name, value] : fields) {
    const auto found = device.find(name);
    if (found == device.end() || found->second != float_bits(static_cast<float>(value))) {
      return false;
    }
  }
  return true;
}

namespace {

std::string padded(const std::string& text, size_t width, bool right = true) {
  if (text.size() >= width) return text;
  const std::string pad(width - text.size(), ' ');
  return right ? pad + text : text + pad;
}

}  // namespace

std::string range_text(const DemoRange& range) {
  const pbp_range_report& report = range.report;
  if (report.status == PBP_RANGE_UNKNOWN) return "unknown";
  if (report.status == PBP_RANGE_INSIDE) return "inside";
  std::string text = "OUTSIDE: " + range.farthest_name + " " + fixed(report.distance, 2) + " sd";
  if (report.outside_count > 1) text += " +" + std::to_string(report.outside_count - 1) + " more";
  return text;
}

void print_section(std::ostream& out, const DemoSection& section, bool device_ran) {
  out << "\n== " << section.title << " ==\n"
      << section.summary << "\nblob " << section.blob_path << " (" << section.blob_bytes
      << " bytes)\n\n";
  out << padded("input", 28, false) << padded(section.truth_label, 8) << "  "
      << padded("training range", 22, false) << padded("prediction", 10)
      << padded("95 % interval", 22) << padded("epistemic std", 15) << padded("aleatoric std", 15)
      << "  host = device\n";
  bool any_outside = false;
  for (const DemoRow& row : section.rows) {
    const RegressionPrediction& p = row.host;
    const std::string truth = std::isnan(row.input.truth) ? "-" : fixed(row.input.truth, 1);
    const std::string interval =
        "[" + padded(fixed(p.lower, 1), 7) + ", " + padded(fixed(p.upper, 1), 7) + "]";
    const std::string equal =
        !device_ran ? "not run" : (row.device_equal.value_or(false) ? "yes" : "NO");
    any_outside |= row.range.report.status == PBP_RANGE_OUTSIDE;
    out << padded(row.input.label, 28, false) << padded(truth, 8) << "  "
        << padded(range_text(row.range), 22, false) << padded(fixed(p.moments.mean, 1), 10)
        << padded(interval, 22) << padded(fixed(std::sqrt(p.moments.epistemic_variance), 2), 15)
        << padded(fixed(std::sqrt(p.moments.aleatoric_variance), 2), 15) << "  " << equal << "\n";
  }
  if (any_outside) {
    out << "OUTSIDE: an input beyond its training range (the farthest, in training stds). There\n"
           "         the model extrapolates: its interval may miss the truth, the more the "
           "farther.\n";
  }
  for (const std::string& note : section.notes) out << note << "\n";
  for (const std::string& plot : section.plots) out << "plot: " << plot << "\n";
}

GridHonesty grid_honesty(const std::vector<GridPoint>& points, double noise_variance,
                         uint32_t tail_dof) {
  constexpr double kNoiseStds = 8.0;  // the normal's weight beyond: 1e-15
  const double noise_std = std::sqrt(noise_variance);
  GridHonesty h;
  for (const GridPoint& p : points) {
    const double variance = p.std * p.std;
    const double error = p.truth - p.mean;
    h.coverage += p.lower <= p.truth && p.truth <= p.upper;
    h.loglik -= 0.5 * std::log(variance);
    if (tail_dof == 0) {  // linear in z^2: the density at its expectation over the noise
      h.loglik += outputs::predictive_log_density((error * error + noise_variance) / variance, 0u);
      continue;
    }
    // The trapezoid rule over the noise in its stds, e: the t's log density is analytic within
    // d = std sqrt(dof) / noise_std of the real line, so a step of d / 4 (at most 1/16) errs by
    // about e^(-8 pi) = 1e-11 of it.
    const double reach = p.std * std::sqrt(static_cast<double>(tail_dof)) / noise_std;
    const auto steps = static_cast<int>(std::ceil(kNoiseStds / std::min(1.0 / 16.0, reach / 4.0)));
    const double step = kNoiseStds / steps;
    double sum = 0.0;
    for (int k = -steps; k <= steps; ++k) {
      const double e = k * step;
      const double y_error = error + noise_std * e;
      sum += (std::abs(k) == steps ? 0.5 : 1.0) * std::exp(-0.5 * e * e) *
             outputs::predictive_log_density(y_error * y_error / variance, tail_dof);
    }
    h.loglik += sum * step / std::sqrt(2.0 * std::numbers::pi);
  }
  h.points = points.size();
  if (h.points > 0) {
    h.coverage /= static_cast<double>(h.points);
    h.loglik /= static_cast<double>(h.points);
  }
  return h;
}

std::string grid_honesty_line(const std::string& label, const GridHonesty& honesty) {
  return "  " + padded(label, 30, false) + padded(std::to_string(honesty.points), 4) + " points, " +
         padded(fixed(100.0 * honesty.coverage, 0), 3) + " %, LL " + fixed(honesty.loglik, 2);
}

void print_device_summary(std::ostream& out, const std::vector<DemoSection>& sections,
                          const std::optional<std::string>& device) {
  out << "\n";
  if (!device) {
    out << "device: not run (give --device, e.g. 'bash targets/tools/run-on-device.sh', which\n"
           "        needs QEMU and the Cortex-M toolchain: bash targets/setup.sh)\n";
    return;
  }
  size_t rows = 0, equal = 0;
  double seconds = 0.0;
  std::string board;
  for (const DemoSection& section : sections) {
    seconds += section.device_seconds;
    board = section.device_board;
    for (const DemoRow& row : section.rows) {
      ++rows;
      equal += row.device_equal.value_or(false);
    }
  }
  out << "device: " << (board.empty() ? "" : "board " + board + ", ") << "run by '" << *device
      << "'\n        " << equal << " of " << rows
      << " predictions bit-identical to the host runtime's (6 floats each), " << fixed(seconds, 1)
      << " s\n";
}

}  // namespace pbp::cli
