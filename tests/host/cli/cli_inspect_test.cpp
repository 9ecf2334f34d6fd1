// SPDX-License-Identifier: Apache-2.0
// `pbp inspect`: each task's summary shows what that task's model has.
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

}  // namespace
}  // namespace pbp::cli_test
