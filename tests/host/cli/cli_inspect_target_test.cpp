// SPDX-License-Identifier: Apache-2.0
// `pbp inspect --target`: every CI target is in the cost table, a model too big for a board says
// so with the numbers, and --json carries the same. (The estimates themselves are checked against
// QEMU's counts by tools/bench/target_cost.py check, the CTest target_cost_estimate.)
#include <fstream>
#include <string>

#include "cli_helpers.hpp"
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

TEST_F(InspectTarget, UnknownTargetIsAUsageError) {
  const RunResult result = run_pbp({"inspect", kTiny, "--target", "cortex-m99"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown target 'cortex-m99' (known: cortex-m0,"), std::string::npos)
      << result.err;
  EXPECT_EQ(result.out, "");
}

}  // namespace
}  // namespace pbp::cli_test
