// SPDX-License-Identifier: Apache-2.0
#include "demo_report.hpp"

#include <cmath>

#include "output.hpp"

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

void print_section(std::ostream& out, const DemoSection& section, bool device_ran) {
  out << "\n== " << section.title << " ==\n"
      << section.summary << "\nblob " << section.blob_path << " (" << section.blob_bytes
      << " bytes)\n\n";
  out << padded("input", 30, false) << padded(section.truth_label, 8) << padded("prediction", 12)
      << padded("95 % interval", 22) << padded("epistemic std", 15) << padded("aleatoric std", 15)
      << "  host = device\n";
  for (const DemoRow& row : section.rows) {
    const RegressionPrediction& p = row.host;
    const std::string truth = std::isnan(row.input.truth) ? "-" : fixed(row.input.truth, 1);
    const std::string interval =
        "[" + padded(fixed(p.lower, 1), 7) + ", " + padded(fixed(p.upper, 1), 7) + "]";
    const std::string equal =
        !device_ran ? "not run" : (row.device_equal.value_or(false) ? "yes" : "NO");
    out << padded(row.input.label, 30, false) << padded(truth, 8)
        << padded(fixed(p.moments.mean, 1), 12) << padded(interval, 22)
        << padded(fixed(std::sqrt(p.moments.epistemic_variance), 2), 15)
        << padded(fixed(std::sqrt(p.moments.aleatoric_variance), 2), 15) << "  " << equal << "\n";
  }
  for (const std::string& plot : section.plots) out << "plot: " << plot << "\n";
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
