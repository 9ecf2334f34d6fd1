// SPDX-License-Identifier: Apache-2.0
// --recipe: the automatic regression recipe through the command line, and PBP as published.
#include <gtest/gtest.h>

#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

class Recipe : public CliTest {};

TEST_F(Recipe, TrainSaysWhatTheAutomaticRecipeChose) {
  write_file(path("r.csv"), regression_csv(60));
  const RunResult result = run_pbp(
      {"train", "--data", path("r.csv"), "--out", path("r.pbp"), "--hidden", "8", "--epochs", "5"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("recipe auto chose --hidden 8, 5 epochs, noise std "),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find(" and epistemic variance x "), std::string::npos) << result.out;
  const RunResult inspect = run_pbp({"inspect", path("r.pbp")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("likelihood: gaussian"), std::string::npos) << inspect.out;
  EXPECT_NE(result.out.find("from 60 held-out rows (3 folds)"), std::string::npos) << result.out;
  const RunResult paper = run_pbp({"train", "--data", path("r.csv"), "--out", path("p.pbp"),
                                   "--hidden", "8", "--epochs", "5", "--recipe", "paper"});
  ASSERT_EQ(paper.exit_code, 0) << paper.err;
  EXPECT_EQ(paper.out.find("recipe auto"), std::string::npos) << paper.out;
  const RunResult paper_inspect = run_pbp({"inspect", path("p.pbp")});
  EXPECT_NE(paper_inspect.out.find("likelihood: gaussian\n"), std::string::npos)
      << paper_inspect.out;
}

TEST_F(Recipe, CrossvalReportsEachSplitsChoice) {
  write_file(path("r.csv"), regression_csv(80));
  const RunResult result = run_pbp({"crossval", "--data", path("r.csv"), "--splits", "2",
                                    "--hidden", "6", "--epochs", "3", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"hidden\": \"6\""), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\"epochs\": 3"), std::string::npos) << result.out;
}

TEST_F(Recipe, BadValuesAndTasksAreRefused) {
  write_file(path("r.csv"), regression_csv(30));
  const RunResult unknown =
      run_pbp({"train", "--data", path("r.csv"), "--out", path("r.pbp"), "--recipe", "best"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--recipe expects auto or paper, got 'best'"), std::string::npos)
      << unknown.err;
  write_file(path("b.csv"), binary_csv(30));
  const RunResult binary = run_pbp({"train", "--data", path("b.csv"), "--out", path("b.pbp"),
                                    "--task", "binary", "--recipe", "auto"});
  EXPECT_EQ(binary.exit_code, 2);
  EXPECT_NE(binary.err.find("--recipe auto goes with --task regression"), std::string::npos)
      << binary.err;
  write_file(path("tiny.csv"), regression_csv(8));
  const RunResult tiny = run_pbp({"train", "--data", path("tiny.csv"), "--out", path("t.pbp")});
  EXPECT_NE(tiny.exit_code, 0);
  EXPECT_NE(tiny.err.find("--recipe paper trains on fewer"), std::string::npos) << tiny.err;
}

}  // namespace
}  // namespace pbp::cli_test
