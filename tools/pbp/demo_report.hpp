// SPDX-License-Identifier: Apache-2.0
// `pbp demo`'s pieces: the host-vs-device comparison and the table it prints.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "device_runner.hpp"
#include "host_names.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/pbp.h"

namespace pbp::cli {

// Whether the device printed exactly the bits of every field of `host`.
// (The runtime's floats travel in doubles, which hold them exactly.)
bool same_bits(const RegressionPrediction& host, const OutputBits& device);

struct DemoInput {
  std::string label;
  std::vector<float> x;
  double truth = 0.0;  // NaN when unknown
};

// The input row against the blob's training ranges (pbp_check_input_range), as printed.
struct DemoRange {
  pbp_range_report report{};
  std::string farthest_name;  // the farthest input's name when outside
};

struct DemoRow {
  DemoInput input;
  RegressionPrediction host;         // the runtime on this machine, 95 % interval
  std::optional<bool> device_equal;  // empty when no device ran
  DemoRange range;
};

// "inside", "OUTSIDE: RM 4.59 sd" (the farthest input and its distance beyond its range in
// training stds; "+N more" when others are outside too) or "unknown" (a blob without ranges).
std::string range_text(const DemoRange& range);

struct DemoSection {
  std::string title;
  std::string summary;
  std::string truth_label;
  std::string blob_path;
  size_t blob_bytes = 0;
  double device_seconds = 0.0;
  std::string device_board;  // as the device named itself, if it did
  std::vector<DemoRow> rows;
  std::vector<std::string> notes;  // printed after the table
  std::vector<std::string> plots;  // files written
};

// One grid input's predictive (the runtime's mean, std and 95 % interval) beside the true function.
struct GridPoint {
  double truth = 0.0;
  double mean = 0.0, std = 0.0;
  double lower = 0.0, upper = 0.0;
};

// How honest a predictive is on grid points whose observations are y = truth +
// N(0, noise_variance): the share of points whose interval holds the truth, and the mean over
// the points of the expected log density of y, the test LL of infinitely many observations there.
// The predictive is a Gaussian (tail_dof 0: -log(2 pi s^2) / 2 - ((truth - mean)^2 +
// noise_variance) / (2 s^2), exact) or a Student-t of that variance (predictive_tail.hpp), its
// log density integrated over the noise by the trapezoid rule (about 1e-11 relative error).
struct GridHonesty {
  size_t points = 0;
  double coverage = 0.0;
  double loglik = 0.0;
};
GridHonesty grid_honesty(const std::vector<GridPoint>& points, double noise_variance,
                         uint32_t tail_dof = 0);
// "  4 < |x| <= 6 (beyond)          80 points,  15 %, LL -13.65": the figures under `label`.
std::string grid_honesty_line(const std::string& label, const GridHonesty& honesty);

void print_section(std::ostream& out, const DemoSection& section, bool device_ran);
// "device: ... N of N outputs bit-identical", or how to run the device part.
void print_device_summary(std::ostream& out, const std::vector<DemoSection>& sections,
                          const std::optional<std::string>& device);

}  // namespace pbp::cli
