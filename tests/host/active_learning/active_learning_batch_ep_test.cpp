// SPDX-License-Identifier: Apache-2.0
// The batch EP comparator (`pbp active --method ep|both`): label `sweep`, as batch EP takes
// minutes under qemu.
#include "active_learning_fixture.hpp"

namespace pbp::cli_test {
namespace {

// The batch EP comparator runs the same protocol on the same splits: round 0 agrees between its
// strategies, its variance strategy also picks the far points first, and with --method both
// each method's figures are those it gives alone.
TEST_F(ActiveLearning, BatchEpMethod) {
  write_file(path("d.csv"), far_points_csv());
  const RunResult both =
      active(path("d.csv"), {"--strategy", "both", "--method", "both", "--json", "--jobs", "2"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const std::string ep = json_value(both.out, "ep");
  const std::string pbp = json_value(both.out, "pbp");
  EXPECT_EQ(json_value(ep, "method"), "\"ep\"");
  EXPECT_EQ(json_value(pbp, "method"), "\"pbp\"");
  const std::string variance = json_value(ep, "variance");
  for (const std::string& repeat : json_items(json_value(variance, "picks"))) {
    EXPECT_GE(std::stoul(json_items(repeat).at(0)), kDenseRows) << repeat;
  }
  EXPECT_EQ(json_items(json_value(variance, "random_minus_rmse_mean")).at(0), "0");
  for (const std::string& rmse : json_items(json_value(variance, "rmse_mean"))) {
    EXPECT_LT(std::stod(rmse), 1.0) << variance;  // targets: sin 2x, range [-1, 1]
  }
  const RunResult alone =
      active(path("d.csv"), {"--strategy", "both", "--method", "ep", "--json", "--jobs", "1"});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(ep + "\n", alone.out);
  const RunResult table = active(path("d.csv"), {"--method", "both", "--strategy", "random"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("method pbp, "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("method ep, "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(" s per repeat"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace pbp::cli_test
