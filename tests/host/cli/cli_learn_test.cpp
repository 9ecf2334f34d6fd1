// SPDX-License-Identifier: Apache-2.0
// `pbp learn`: the device's float update from the command line.
#include <string>

#include "cli_helpers.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include "test_paths.hpp"

namespace pbp::cli_test {
namespace {

using Learn = CliTest;

// A regression model trained briefly on 20 rows learns from 80 more: the written blob opens,
// fits those rows better than the start did (the printed RMSE falls), and is the same bytes when
// the same rows are learnt again; a second pass changes it again.
TEST_F(Learn, RegressionLearnsFromNewRows) {
  write_file(path("start.csv"), regression_csv(20));
  write_file(path("new.csv"), regression_csv(100));
  ASSERT_EQ(run_pbp({"train", "--data", path("start.csv"), "--out", path("m.pbp"), "--hidden", "8",
                     "--epochs", "2", "--seed", "3"})
                .exit_code,
            0);
  const RunResult learnt = run_pbp(
      {"learn", "--model", path("m.pbp"), "--data", path("new.csv"), "--out", path("m2.pbp")});
  ASSERT_EQ(learnt.exit_code, 0) << learnt.err;
  EXPECT_NE(learnt.out.find("100 applied"), std::string::npos) << learnt.out;
  EXPECT_NE(learnt.out.find("mean epistemic std"), std::string::npos) << learnt.out;
  // The same layout, and the learner's running check after it (the learn_check section).
  EXPECT_EQ(read_file(path("m2.pbp")).size(),
            PBP_LEARN_WRITTEN_BYTES(read_file(path("m.pbp")).size()));
  // The figures: "rmse   <before>   <after>", the error falls.
  const size_t at = learnt.out.find("\nrmse");
  ASSERT_NE(at, std::string::npos) << learnt.out;
  double before = 0.0, after = 0.0;
  ASSERT_EQ(std::sscanf(learnt.out.c_str() + at, "\nrmse %lf %lf", &before, &after), 2);
  EXPECT_LT(after, before);
  const RunResult eval = run_pbp({"eval", "--model", path("m2.pbp"), "--data", path("new.csv")});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;

  ASSERT_EQ(run_pbp({"learn", "--model", path("m.pbp"), "--data", path("new.csv"), "--out",
                     path("again.pbp")})
                .exit_code,
            0);
  EXPECT_EQ(read_file(path("again.pbp")), read_file(path("m2.pbp")));
  ASSERT_EQ(run_pbp({"learn", "--model", path("m.pbp"), "--data", path("new.csv"), "--out",
                     path("two.pbp"), "--passes", "2"})
                .exit_code,
            0);
  EXPECT_NE(read_file(path("two.pbp")), read_file(path("m2.pbp")));
}

TEST_F(Learn, BinaryModelReportsAccuracy) {
  write_file(path("b.csv"), binary_csv(40));
  ASSERT_EQ(run_pbp({"train", "--data", path("b.csv"), "--out", path("b.pbp"), "--task", "binary",
                     "--hidden", "4", "--epochs", "1"})
                .exit_code,
            0);
  const RunResult learnt = run_pbp(
      {"learn", "--model", path("b.pbp"), "--data", path("b.csv"), "--out", path("b2.pbp")});
  ASSERT_EQ(learnt.exit_code, 0) << learnt.err;
  EXPECT_NE(learnt.out.find("accuracy"), std::string::npos) << learnt.out;
}

TEST_F(Learn, BadArgumentsWriteNothing) {
  write_file(path("new.csv"), regression_csv(10));
  const std::string tiny = pbp::test_paths::source_dir() + "/tests/fuzz/corpus/valid_tiny.pbp";
  const RunResult passes = run_pbp({"learn", "--model", tiny, "--data", path("new.csv"), "--out",
                                    path("x.pbp"), "--passes", "0"});
  EXPECT_EQ(passes.exit_code, 2) << passes.err;
  const RunResult no_out = run_pbp({"learn", "--model", tiny, "--data", path("new.csv")});
  EXPECT_EQ(no_out.exit_code, 2);
  const RunResult blob = run_pbp(
      {"learn", "--model", pbp::test_paths::source_dir() + "/tests/fuzz/corpus/truncated.pbp",
       "--data", path("new.csv"), "--out", path("x.pbp")});
  EXPECT_EQ(blob.exit_code, 1);
  EXPECT_NE(blob.err.find("invalid model blob"), std::string::npos) << blob.err;
  EXPECT_FALSE(std::filesystem::exists(path("x.pbp")));
}

}  // namespace
}  // namespace pbp::cli_test
