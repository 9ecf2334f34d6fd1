// SPDX-License-Identifier: Apache-2.0
// `pbp inspect --target`: every CI target is in the cost table, a model too big for a board says
// so with the numbers, and --json carries the same; a regression model's distance and pair
// variance and Student-t predictive are counted. (The estimates themselves are checked against
// QEMU's counts by tools/bench/target_cost.py check, the CTest target_cost_estimate.)
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_helpers.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/distance_variance.hpp"
#include "test_paths.hpp"

namespace pbp::cli_test {
namespace {

using InspectTarget = CliTest;

const std::string kTiny = pbp::test_paths::source_dir() + "/tests/fuzz/corpus/valid_tiny.pbp";
const std::string kFashion =
    pbp::test_paths::source_dir() + "/targets/examples/fashion_on_device/fashion_int8.pbp";

TEST_F(InspectTarget, KnowsEveryPresetOfCi) {
  std::ifstream presets(pbp::test_paths::source_dir() + "/targets/presets.txt");
  std::string preset;
  int count = 0;
  while (std::getline(presets, preset)) {
    if (preset.empty() || preset[0] == '#') continue;
    ++count;
    const RunResult result = run_pbp({"inspect", kTiny, "--target", preset});
    ASSERT_EQ(result.exit_code, 0) << preset << ": " << result.err;
    EXPECT_NE(result.out.find("device:     " + preset + " ("), std::string::npos) << result.out;
    EXPECT_NE(result.out.find(" instructions per prediction"), std::string::npos)
        << preset << ": no estimate\n"
        << result.out;
    EXPECT_NE(result.out.find("verdict:  fits"), std::string::npos) << result.out;
  }
  EXPECT_GE(count, 10);
}

// 973 016 bytes of int8 Fashion-MNIST model against the micro:bit's 256 KiB of flash.
TEST_F(InspectTarget, TooBigForTheBoardSaysDoesNotFit) {
  const RunResult microbit = run_pbp({"inspect", kFashion, "--target", "cortex-m0"});
  ASSERT_EQ(microbit.exit_code, 0) << microbit.err;
  EXPECT_NE(microbit.out.find("blob 973016 bytes"), std::string::npos) << microbit.out;
  EXPECT_NE(microbit.out.find("does not fit the 262144 bytes"), std::string::npos) << microbit.out;
  EXPECT_NE(microbit.out.find("verdict:  does not fit"), std::string::npos) << microbit.out;

  const RunResult m4f = run_pbp({"inspect", kFashion, "--target", "cortex-m4f", "--json"});
  ASSERT_EQ(m4f.exit_code, 0) << m4f.err;
  EXPECT_NE(m4f.out.find("\"target\": {\"name\": \"cortex-m4f\""), std::string::npos) << m4f.out;
  EXPECT_NE(m4f.out.find("\"fits\": true"), std::string::npos) << m4f.out;
  EXPECT_NE(m4f.out.find("\"cost_terms\": {\"int8\": {"), std::string::npos) << m4f.out;
}

// A 13-50-50-1 float32 regression model (Boston's shape) with deterministic weights and ranges,
// and with `sections`: the distance and pair variance over 150 rows spread over the ranges, and
// a Student-t of 3 dof, as the trainer's default recipe writes them.
pbp::trainer::Model boston_shaped(bool sections) {
  pbp::trainer::Model model;
  const uint32_t widths[] = {13, 50, 50, 1};
  for (size_t l = 0; l + 1 < std::size(widths); ++l) {
    pbp::trainer::Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l + 2 < std::size(widths) ? pbp::trainer::Activation::relu
                                                 : pbp::trainer::Activation::linear;
    for (uint32_t i = 0; i < layer.outputs * layer.row_length(); ++i) {
      layer.mean.push_back(0.3 * std::sin(0.7 * i + l));
      layer.variance.push_back(0.01 + 0.005 * std::cos(1.3 * i));
    }
    model.layers.push_back(layer);
  }
  pbp::trainer::Standardisation& s = model.standardisation;
  for (uint32_t j = 0; j < widths[0]; ++j) {
    s.input_mean.push_back(j);
    s.input_std.push_back(1.0 + 0.1 * j);
    s.input_min.push_back(j - 3.0 * s.input_std.back());
    s.input_max.push_back(j + 3.0 * s.input_std.back());
  }
  s.target_mean = 22.5;
  s.target_std = 9.2;
  if (sections) {
    pbp::trainer::Dataset rows;
    rows.inputs = widths[0];
    for (rows.rows = 0; rows.rows < 150; ++rows.rows) {
      for (uint32_t j = 0; j < widths[0]; ++j) {
        const double u = 0.5 + 0.5 * std::sin(12.9898 * rows.rows + 78.233 * j);
        rows.x.push_back(s.input_min[j] + (s.input_max[j] - s.input_min[j]) * u);
      }
      rows.y.push_back(s.target_mean);
    }
    pbp::trainer::DistanceScaleFit scales;
    scales.scale = 0.125;
    scales.pair_scale = 1.0;
    pbp::trainer::set_distance_variance(model, rows, scales);
    model.tail_dof = 3;
  }
  return model;
}

// The number after `"key": ` in `json` (-1 if absent).
double json_number_of(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\": ");
  return at == std::string::npos ? -1.0 : std::strtod(json.c_str() + at + key.size() + 4, nullptr);
}

// What sections 7 to 9 add to a prediction and its stack on two cores, measured on Boston's
// 13-50-50-1 (tools/bench/RESULTS.md, QEMU): Cortex-M4F 54 218 instructions without the
// variance terms, 56 663 with both, and the t's 148 more; Cortex-M0 2 786 032, 2 816 550 and
// 3 142 more; the Cortex-M0 stack 408 bytes with a t. Without the terms the estimate ignored them.
TEST_F(InspectTarget, CountsTheDistanceAndPairVarianceAndTheStudentT) {
  for (const bool sections : {false, true}) {
    const std::vector<uint8_t> blob = pbp::trainer::write_blob(boston_shaped(sections));
    write_file(path(sections ? "with.pbp" : "without.pbp"), std::string(blob.begin(), blob.end()));
  }
  struct Measured {
    const char* target;
    double added;  // instructions sections 7 to 9 add
    double stack;  // predict stack with a t, bytes
  };
  for (const Measured& m : {Measured{"cortex-m4f", 56663 - 54218 + 148, 256},
                            Measured{"cortex-m0", 2816550 - 2786032 + 3142, 408}}) {
    const RunResult without =
        run_pbp({"inspect", path("without.pbp"), "--target", m.target, "--json"});
    const RunResult with = run_pbp({"inspect", path("with.pbp"), "--target", m.target, "--json"});
    ASSERT_EQ(without.exit_code, 0) << without.err;
    ASSERT_EQ(with.exit_code, 0) << with.err;
    const double added =
        json_number_of(with.out, "instructions") - json_number_of(without.out, "instructions");
    EXPECT_GT(added, 0.75 * m.added) << m.target << "\n" << without.out << "\n" << with.out;
    EXPECT_LT(added, 1.25 * m.added) << m.target << "\n" << without.out << "\n" << with.out;
    EXPECT_GE(json_number_of(with.out, "predict_stack_bytes"), m.stack) << with.out;
    EXPECT_GE(json_number_of(with.out, "predict_stack_bytes"),
              json_number_of(without.out, "predict_stack_bytes"))
        << with.out;
    for (const char* term : {"distance_inputs", "pair_inputs"}) {
      EXPECT_EQ(json_number_of(with.out, term), 13) << term << ": " << with.out;
      EXPECT_EQ(json_number_of(without.out, term), 0) << term << ": " << without.out;
    }
    EXPECT_EQ(json_number_of(with.out, "pairs"), 78) << with.out;
    EXPECT_EQ(json_number_of(with.out, "student_t_odd"), 1) << with.out;
    EXPECT_EQ(json_number_of(with.out, "student_t_even"), 0) << with.out;
  }
  // Every target: more instructions, and not less stack.
  std::ifstream presets(pbp::test_paths::source_dir() + "/targets/presets.txt");
  std::string preset;
  while (std::getline(presets, preset)) {
    if (preset.empty() || preset[0] == '#') continue;
    const RunResult without =
        run_pbp({"inspect", path("without.pbp"), "--target", preset, "--json"});
    const RunResult with = run_pbp({"inspect", path("with.pbp"), "--target", preset, "--json"});
    EXPECT_GT(json_number_of(with.out, "instructions"), json_number_of(without.out, "instructions"))
        << preset << "\n"
        << without.out << "\n"
        << with.out;
    EXPECT_GE(json_number_of(with.out, "predict_stack_bytes"),
              json_number_of(without.out, "predict_stack_bytes"))
        << preset << "\n"
        << with.out;
  }
}

TEST_F(InspectTarget, UnknownTargetIsAUsageError) {
  const RunResult result = run_pbp({"inspect", kTiny, "--target", "cortex-m99"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown target 'cortex-m99' (known: cortex-m0,"), std::string::npos)
      << result.err;
  EXPECT_EQ(result.out, "");
}

}  // namespace
}  // namespace pbp::cli_test
