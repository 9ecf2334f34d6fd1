// SPDX-License-Identifier: Apache-2.0
// `pbp demo`: the device runner's output parsing, the bit comparison, and the command end to end
// with the host build of the model_runner firmware as its "device" (the same program QEMU runs).
#include <cmath>

#include "cli_helpers.hpp"
#include "demo_report.hpp"
#include "device_runner.hpp"
#include "pbp/predictive_tail.hpp"
#include "test_paths.hpp"

namespace pbp::cli_test {
namespace {

TEST(DeviceRunner, ParsesRowsAndBoard) {
  const cli::RunnerOutput output = cli::parse_runner_output(
      "model 724 bytes, task 0, 1 inputs\n"
      "row 0 mean=3f800000 std=40000000\n"
      "row 1 mean=bf800000 std=00000001\n"
      "2 rows\n"
      "[board mps2-an386] stack 612 of 32512 bytes\n");
  ASSERT_EQ(output.rows.size(), 2u);
  EXPECT_EQ(output.rows[0].at("mean"), 0x3f800000u);
  EXPECT_EQ(output.rows[1].at("std"), 1u);
  EXPECT_EQ(output.board, "mps2-an386");
}

TEST(DeviceRunner, RejectsMalformedRows) {
  EXPECT_THROW(cli::parse_runner_output("row 0 mean=3f80000\n"), std::runtime_error);
  EXPECT_THROW(cli::parse_runner_output("row 0 mean=3f80000g\n"), std::runtime_error);
  EXPECT_THROW(cli::parse_runner_output("row 1 mean=3f800000\n"), std::runtime_error);
  EXPECT_THROW(cli::parse_runner_output("row 0 mean\n"), std::runtime_error);
}

TEST(DemoReport, RangeTextNamesTheFarthestInput) {
  cli::DemoRange range;
  range.report.status = PBP_RANGE_INSIDE;
  EXPECT_EQ(cli::range_text(range), "inside");
  range.report = {PBP_RANGE_OUTSIDE, 1, 5, 4.5f};
  range.farthest_name = "RM";
  EXPECT_EQ(cli::range_text(range), "OUTSIDE: RM 4.50 sd");
  range.report.outside_count = 3;
  EXPECT_EQ(cli::range_text(range), "OUTSIDE: RM 4.50 sd +2 more");
  range.report = {PBP_RANGE_UNKNOWN, 0, 0, 0.0f};
  EXPECT_EQ(cli::range_text(range), "unknown");
}

TEST(DeviceRunner, SameBitsNeedsEveryFieldExactly) {
  cli::RegressionPrediction host;
  host.moments = {1.0, 0.25, 4.0};
  host.std = 2.0615528f;
  host.lower = -3.0;
  host.upper = 5.0;
  cli::OutputBits device{{"mean", cli::float_bits(1.0f)},
                         {"epistemic_variance", cli::float_bits(0.25f)},
                         {"aleatoric_variance", cli::float_bits(4.0f)},
                         {"std", cli::float_bits(2.0615528f)},
                         {"lower95", cli::float_bits(-3.0f)},
                         {"upper95", cli::float_bits(5.0f)}};
  EXPECT_TRUE(cli::same_bits(host, device));
  device["upper95"] += 1;  // one ulp
  EXPECT_FALSE(cli::same_bits(host, device));
  device.erase("upper95");
  EXPECT_FALSE(cli::same_bits(host, device));
}

// Coverage and expected LL computed by hand: N(0, 1) predictives with 95 % intervals, noise
// variance 1; the truth 0 is held (LL -log(2 pi)/2 - 1/2), the truth 3 is not (-log(2 pi)/2 - 5).
TEST(DemoReport, GridHonestyCountsCoverageAndTheExpectedLogLikelihood) {
  const double half_log_two_pi = 0.5 * std::log(2.0 * std::acos(-1.0));
  const std::vector<cli::GridPoint> points{{0.0, 0.0, 1.0, -1.96, 1.96},
                                           {3.0, 0.0, 1.0, -1.96, 1.96}};
  const cli::GridHonesty h = cli::grid_honesty(points, 1.0);
  EXPECT_EQ(h.points, 2u);
  EXPECT_EQ(h.coverage, 0.5);
  // A few roundings of numbers below 10: well inside 1e-12.
  EXPECT_NEAR(h.loglik, -half_log_two_pi - 0.5 * (0.5 + 5.0), 1e-12);
  // A wider predictive costs log(s) and gains the error over s^2: s = 2 on the missed point.
  const cli::GridHonesty wide = cli::grid_honesty({{3.0, 0.0, 2.0, -3.92, 3.92}}, 1.0);
  EXPECT_EQ(wide.coverage, 1.0);
  EXPECT_NEAR(wide.loglik, -half_log_two_pi - std::log(2.0) - 10.0 / 8.0, 1e-12);
  EXPECT_EQ(cli::grid_honesty({}, 1.0).points, 0u);
  EXPECT_EQ(cli::grid_honesty_line("4 < |x| <= 6 (beyond)", wide),
            "  4 < |x| <= 6 (beyond)            1 points, 100 %, LL -2.86");
}

// A Student-t predictive's expected LL against the integral by a much finer trapezoid rule (every
// 0.001 noise std over 12): both are within 1e-10 of it (analytic integrand), and the sums of a
// few thousand terms below 10 round within 1e-12.
TEST(DemoReport, GridHonestyAveragesAStudentTOverTheNoise) {
  for (const uint32_t dof : {3u, 5u, 12u}) {
    for (const double truth : {0.0, 3.0, -7.5}) {
      const double mean = 0.5, std = 1.5, noise_std = 2.0;
      double reference = 0.0;
      const double step = 0.001;
      for (double e = -12.0; e <= 12.0 + step / 2; e += step) {
        const double y = truth + noise_std * e;
        const double z = (y - mean) / std;
        const double weight = (std::abs(e) > 12.0 - step / 2 ? 0.5 : 1.0) * step *
                              std::exp(-0.5 * e * e) / std::sqrt(2.0 * std::acos(-1.0));
        reference += weight * (outputs::predictive_log_density(z * z, dof) - std::log(std));
      }
      const cli::GridHonesty h = cli::grid_honesty(
          {{truth, mean, std, mean - 3 * std, mean + 3 * std}}, noise_std * noise_std, dof);
      EXPECT_NEAR(h.loglik, reference, 1e-9) << "dof " << dof << " truth " << truth;
    }
  }
}

using Demo = CliTest;

TEST_F(Demo, ToyProblemWithoutDevice) {
  const RunResult result = run_pbp({"demo", "--out-dir", path("out")});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("Toy problem"), std::string::npos) << result.out;
  // Each row says where its input lies against the blob's training range: x = 0 inside, x = 6
  // beyond the 20 points drawn from [-4, 4], and the table says what that means.
  EXPECT_NE(result.out.find("x = 0.0                          0.0  inside "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("x = 6.0                        216.0  OUTSIDE: x "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("the model extrapolates"), std::string::npos) << result.out;
  // The grid's figures where x was drawn (241 points every 0.05 on [-6, 6]: 161 and 80).
  EXPECT_NE(result.out.find("  |x| <= 4 (where x was drawn)   161 points, "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("  4 < |x| <= 6 (beyond)           80 points, "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("device: not run"), std::string::npos) << result.out;
  EXPECT_TRUE(std::filesystem::exists(path("out/toy.pbp")));
  EXPECT_NE(read_file(path("out/toy_predictive.svg")).find("</svg>"), std::string::npos);
  // The same seed gives the same blob.
  ASSERT_EQ(run_pbp({"demo", "--out-dir", path("again")}).exit_code, 0);
  EXPECT_EQ(read_file(path("out/toy.pbp")), read_file(path("again/toy.pbp")));
}

TEST_F(Demo, RegressionDataSetGivesMetricsAndPlots) {
  write_file(path("houses.csv"), regression_csv(80));
  const RunResult result =
      run_pbp({"demo", "--out-dir", path("out"), "--boston", path("houses.csv")});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("72 training / 8 test houses"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("test RMSE"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  training range  "), std::string::npos) << result.out;
  for (const char* file : {"boston.pbp", "boston_calibration.svg", "boston_training_curve.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(path(std::string("out/") + file))) << file;
  }
}

// --recipe auto trains both models with pbp train's defaults and says what they chose; the toy's
// model then has a Student-t predictive (its blob's section 9), which the grid's LL follows.
TEST_F(Demo, TheDefaultRecipeTrainsBothModels) {
  write_file(path("houses.csv"), regression_csv(80));
  const RunResult result = run_pbp(
      {"demo", "--out-dir", path("out"), "--boston", path("houses.csv"), "--recipe", "auto"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  const size_t toy = result.out.find("\nauto: ");
  ASSERT_NE(toy, std::string::npos) << result.out;
  EXPECT_NE(result.out.find("\nauto: ", toy + 1), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  4 < |x| <= 6 (beyond)           80 points, "), std::string::npos)
      << result.out;
  const RunResult inspect = run_pbp({"inspect", path("out/toy.pbp")});
  EXPECT_NE(inspect.out.find("predictive: Student-t"), std::string::npos) << inspect.out;
  const RunResult wrong = run_pbp({"demo", "--out-dir", path("out"), "--recipe", "fast"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("--recipe expects"), std::string::npos) << wrong.err;
}

TEST_F(Demo, HostBuildOfTheFirmwareAgreesBitForBit) {
  const std::string runner = pbp::test_paths::binary_dir() + "/run-model-runner.sh";
  if (!std::filesystem::exists(runner)) GTEST_SKIP() << "no model_runner in this build";
  const RunResult result =
      run_pbp({"demo", "--out-dir", path("out"), "--device", "sh '" + runner + "'"});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  EXPECT_NE(result.out.find("7 of 7 predictions bit-identical"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find(" NO\n"), std::string::npos) << result.out;
}

TEST_F(Demo, ADeviceThatDisagreesFailsTheDemo) {
  // A "device" that prints one wrong bit pattern for every output of 7 rows.
  std::string rows;
  for (int i = 0; i < 7; ++i) {
    rows += "row " + std::to_string(i) +
            " mean=00000000 std=00000000 epistemic_variance=00000000 "
            "aleatoric_variance=00000000 lower95=00000000 upper95=00000000\n";
  }
  write_file(path("device.txt"), rows);
  const RunResult result = run_pbp(
      {"demo", "--out-dir", path("out"), "--device", "cat '" + path("device.txt") + "'; :"});
  EXPECT_EQ(result.exit_code, 1) << result.err << result.out;
  EXPECT_NE(result.out.find("0 of 7 predictions bit-identical"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find(" NO\n"), std::string::npos) << result.out;
}

TEST_F(Demo, AFailingDeviceIsAnError) {
  const RunResult result = run_pbp({"demo", "--out-dir", path("out"), "--device", "false"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("'false' failed"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace pbp::cli_test
