// SPDX-License-Identifier: Apache-2.0
// `pbp inspect`: each task's summary shows what that task's model has.
#include <cmath>
#include <string>

#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

using Inspect = CliTest;

bool has_line_starting(const std::string& text, const std::string& start) {
  return text.rfind(start, 0) == 0 || text.find("\n" + start) != std::string::npos;
}

// Only regression uses the noise Gamma and the target's mean and std; a classifier or count
// model printed them too (Gamma(6, 6), mean 0, std 1: placeholders that meant nothing).
TEST_F(Inspect, EachTaskShowsWhatItHas) {
  const RunResult regression = run_pbp({"inspect", kCorpus + "valid_tiny.pbp"});
  ASSERT_EQ(regression.exit_code, 0) << regression.err;
  EXPECT_TRUE(has_line_starting(regression.out, "output:     Gaussian predictive in target units"))
      << regression.out;
  EXPECT_TRUE(has_line_starting(regression.out, "noise:      Gamma(a=6.5, b=3.25)"))
      << regression.out;
  EXPECT_TRUE(has_line_starting(regression.out, "target:     mean 20.5, std 4")) << regression.out;

  const std::pair<const char*, const char*> others[] = {
      {"valid_binary.pbp", "output:     probit: p(class 1)"},
      {"valid_multiclass.pbp", "output:     softmax over 3 classes"},
      {"valid_count.pbp", "output:     negative-binomial predictive over counts"},
  };
  for (const auto& [blob, output] : others) {
    const RunResult result = run_pbp({"inspect", kCorpus + blob});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(has_line_starting(result.out, output)) << result.out;
    EXPECT_FALSE(has_line_starting(result.out, "noise:")) << result.out;
    EXPECT_FALSE(has_line_starting(result.out, "target:")) << result.out;
    EXPECT_TRUE(has_line_starting(result.out, "prior:      Gamma(")) << result.out;
  }
}

// An image model's 784 ranges buried the report on one line: the first 16 inputs are listed, then
// how many more and where they all are; a model with 16 inputs or fewer lists every one.
TEST_F(Inspect, ListsTheFirstSixteenInputRangesThenCountsTheRest) {
  std::string csv;
  for (int k = 1; k <= 20; ++k) csv += "x" + std::to_string(k) + ",";
  csv += "y\n";
  for (int i = 0; i < 40; ++i) {
    double y = 0.0;
    for (int k = 1; k <= 20; ++k) {
      const double x = std::sin(0.37 * i * k);
      y += x / k;
      csv += std::to_string(x) + ",";
    }
    csv += std::to_string(y) + "\n";
  }
  write_file(path("wide.csv"), csv);
  const RunResult train = run_pbp({"train", "--data", path("wide.csv"), "--out", path("wide.pbp"),
                                   "--recipe", "paper", "--hidden", "4", "--epochs", "2"});
  ASSERT_EQ(train.exit_code, 0) << train.err;
  const RunResult wide = run_pbp({"inspect", path("wide.pbp")});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const size_t at = wide.out.find("\nranges:     x1 [");
  ASSERT_NE(at, std::string::npos) << wide.out;
  const std::string line = wide.out.substr(at + 1, wide.out.find('\n', at + 1) - at - 1);
  EXPECT_NE(line.find(", x16 ["), std::string::npos) << line;
  EXPECT_EQ(line.find("x17"), std::string::npos) << line;
  EXPECT_NE(line.find("], ... and 4 more (--json lists every one)"), std::string::npos) << line;

  const RunResult tiny = run_pbp({"inspect", kCorpus + "valid_tiny.pbp"});
  ASSERT_EQ(tiny.exit_code, 0) << tiny.err;
  EXPECT_NE(tiny.out.find("\nranges:     a [-2, 0.5], bc [-2.5, 1]\n"), std::string::npos)
      << tiny.out;
}

}  // namespace
}  // namespace pbp::cli_test
