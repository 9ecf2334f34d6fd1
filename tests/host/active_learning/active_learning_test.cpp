// SPDX-License-Identifier: Apache-2.0
// `pbp active` on generated 1-D data: 195 inputs dense in [-1, 1] and 5 far outside (rows
// 195..199), where a model trained on the dense part is least sure, so the variance strategy
// must pick them first; the random strategy need not.
#include <cstdlib>

#include "active_learning_fixture.hpp"

namespace pbp::cli_test {
namespace {

TEST_F(ActiveLearning, JsonShapeAndWhatEachStrategyPicks) {
  write_file(path("d.csv"), far_points_csv());
  const RunResult both = active(path("d.csv"), {"--strategy", "both", "--json"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(both.out.find("null"), std::string::npos) << both.out;
  const std::string variance = json_value(both.out, "variance");
  const std::string random = json_value(both.out, "random");
  for (const std::string* strategy : {&variance, &random}) {
    for (const char* list : {"rmse_mean", "rmse_se", "loglik_mean", "loglik_se"}) {
      EXPECT_EQ(json_items(json_value(*strategy, list)).size(), 4u) << list << *strategy;
    }
    EXPECT_EQ(json_value(*strategy, "training_rows"), "[10, 11, 12, 13]");
    EXPECT_EQ(json_value(*strategy, "pool"), "140");
    const std::vector<std::string> picks = json_items(json_value(*strategy, "picks"));
    ASSERT_EQ(picks.size(), 4u) << *strategy;
    for (const std::string& repeat : picks) EXPECT_EQ(json_items(repeat).size(), 3u) << repeat;
  }
  EXPECT_EQ(json_value(variance, "strategy"), "\"variance\"");
  EXPECT_EQ(json_value(random, "strategy"), "\"random\"");
  EXPECT_EQ(json_items(json_value(variance, "random_minus_rmse_mean")).size(), 4u);
  EXPECT_EQ(random.find("random_minus_rmse"), std::string::npos) << random;

  // Round 0 comes before any pick: the same split and training seed give the same models.
  const auto round0 = [](const std::string& strategy) {
    std::vector<std::string> first;
    for (const std::string& repeat : json_items(json_value(strategy, "rmse_per_repeat"))) {
      first.push_back(json_items(repeat).at(0));
    }
    return first;
  };
  EXPECT_EQ(round0(variance), round0(random));
  EXPECT_EQ(json_items(json_value(variance, "random_minus_rmse_mean")).at(0), "0");

  // The variance strategy's first pick is always one of the far points; the random one's not.
  size_t random_far = 0;
  for (const std::string& repeat : json_items(json_value(variance, "picks"))) {
    EXPECT_GE(std::stoul(json_items(repeat).at(0)), kDenseRows) << repeat;
  }
  for (const std::string& repeat : json_items(json_value(random, "picks"))) {
    random_far += std::stoul(json_items(repeat).at(0)) >= kDenseRows;
  }
  EXPECT_LT(random_far, 4u);
  EXPECT_NE(json_value(variance, "picks"), json_value(random, "picks"));
}

TEST_F(ActiveLearning, DeterministicAndIndependentOfThreadsAndStrategyMix) {
  write_file(path("d.csv"), far_points_csv());
  const RunResult first = active(path("d.csv"), {"--strategy", "both", "--json", "--jobs", "2"});
  const RunResult again = active(path("d.csv"), {"--strategy", "both", "--json", "--jobs", "1"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, again.out);
  const RunResult alone = active(path("d.csv"), {"--strategy", "random", "--json"});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(json_value(first.out, "random") + "\n", alone.out);
  const RunResult other_seed =
      active(path("d.csv"), {"--strategy", "random", "--json", "--seed", "2"});
  EXPECT_NE(json_value(other_seed.out, "picks"), json_value(alone.out, "picks"));
}

TEST_F(ActiveLearning, AllStrategiesOnTheSameSplits) {
  write_file(path("d.csv"), far_points_csv());
  const RunResult all = active(path("d.csv"), {"--strategy", "all", "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const RunResult listed = active(
      path("d.csv"), {"--strategy", "variance,variance-reduction,random", "--json", "--jobs", "1"});
  EXPECT_EQ(all.out, listed.out);
  const std::string reduction = json_value(all.out, "variance-reduction");
  EXPECT_EQ(json_value(reduction, "strategy"), "\"variance-reduction\"");
  EXPECT_EQ(json_items(json_value(reduction, "random_minus_rmse_mean")).size(), 4u);
  EXPECT_EQ(json_value(all.out, "variance"),
            json_value(active(path("d.csv"), {"--strategy", "both", "--json"}).out, "variance"));
  // Each repeat's three picks are distinct pool rows.
  for (const std::string& repeat : json_items(json_value(reduction, "picks"))) {
    const std::vector<std::string> picks = json_items(repeat);
    ASSERT_EQ(picks.size(), 3u);
    EXPECT_TRUE(picks[0] != picks[1] && picks[1] != picks[2] && picks[0] != picks[2]) << repeat;
  }
  // Alone, it needs no random run and gives the same picks.
  const RunResult alone = active(path("d.csv"), {"--strategy", "variance-reduction", "--json"});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(json_value(alone.out, "picks"), json_value(reduction, "picks"));
}

TEST_F(ActiveLearning, ScoringOnThePoolLeavesTheTestRowsOut) {
  write_file(path("d.csv"), far_points_csv());
  const RunResult test = active(path("d.csv"), {"--strategy", "random", "--json"});
  const RunResult pool =
      active(path("d.csv"), {"--strategy", "random", "--json", "--score-on", "pool"});
  ASSERT_EQ(pool.exit_code, 0) << pool.err;
  EXPECT_EQ(json_value(test.out, "scored_on"), "\"test\"");
  EXPECT_EQ(json_value(pool.out, "scored_on"), "\"pool\"");
  EXPECT_EQ(json_value(pool.out, "pool"), "90");  // 200 - 10 training - 50 left out - 50 scored
  // The same training rows and seeds, other rows scored: round 0's models are the same, their
  // scores are not.
  EXPECT_NE(json_value(test.out, "rmse_per_repeat"), json_value(pool.out, "rmse_per_repeat"));
  const RunResult table = active(path("d.csv"), {"--strategy", "random", "--score-on", "pool"});
  EXPECT_NE(table.out.find("10 training / 50 scored (from the pool; test rows left out) / 90 pool"),
            std::string::npos)
      << table.out;
}

TEST_F(ActiveLearning, DensityWidthChangesOnlyTheDensityStrategies) {
  write_file(path("d.csv"), far_points_csv());
  const auto picks = [&](const std::string& strategy, const std::string& width) {
    const RunResult run =
        active(path("d.csv"), {"--strategy", strategy, "--json", "--density-width", width});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return json_value(run.out, "picks");
  };
  EXPECT_EQ(picks("density-variance", "3"),
            json_value(active(path("d.csv"), {"--strategy", "density-variance", "--json"}).out,
                       "picks"));  // 3 is the default
  // A narrow kernel gives each row a density of its own, a wide one smooths over the dense part:
  // the picks differ. The variance rule has no kernel.
  EXPECT_NE(picks("density-variance", "0.05"), picks("density-variance", "3"));
  EXPECT_EQ(picks("variance", "0.05"), picks("variance", "3"));
}

TEST_F(ActiveLearning, TablePerRound) {
  write_file(path("d.csv"), far_points_csv());
  const RunResult table = active(path("d.csv"), {"--strategy", "both"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("4 repeats, 10 training / 50 test / 140 pool rows, 3 additions"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("round  train  variance rmse"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\n    3     13  "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("final test RMSE (4 repeats): variance "), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("random - variance, paired by repeat: "), std::string::npos)
      << table.out;
}

TEST_F(ActiveLearning, OptionErrors) {
  write_file(path("d.csv"), far_points_csv());
  const auto expect_error = [](const RunResult& result, int code, const std::string& fragment) {
    EXPECT_EQ(result.exit_code, code) << result.err;
    EXPECT_EQ(count_lines(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
  };
  const std::string d = path("d.csv");
  expect_error(run_pbp({"active"}), 2, "pbp active: missing required option --pool");
  for (const char* bad : {"greedy", "variance,greedy", "random,random", "variance,", ""}) {
    expect_error(active(d, {"--strategy", bad}), 2,
                 "--strategy expects variance, variance-reduction, random, both, all or a "
                 "comma-separated list of distinct names, got '" +
                     std::string(bad) + "'");
  }
  expect_error(active(d, {"--task", "binary"}), 2, "it needs --task regression");
  expect_error(active(d, {"--method", "hmc"}), 2, "--method expects pbp, ep or both, got 'hmc'");
  expect_error(active(d, {"--method", "ep", "--strategy", "all"}), 2,
               "--strategy variance-reduction goes with --method pbp");
  expect_error(active(d, {"--method", "ep", "--ep-prior", "laplace"}), 2,
               "--ep-prior expects ard, common or fixed, got 'laplace'");
  expect_error(run_pbp({"active", "--pool", d, "--method", "ep", "--hidden", "10,10"}), 2,
               "--method ep is a one-hidden-layer network");
  expect_error(run_pbp({"active", "--pool", d, "--initial", "1"}), 2,
               "--initial must be between 2 and 100000");
  expect_error(run_pbp({"active", "--pool", d, "--test", "0"}), 2,
               "--test must be between 1 and 100000");
  expect_error(run_pbp({"active", "--pool", d, "--repeats", "0"}), 2,
               "--repeats must be between 1 and 100000");
  expect_error(
      run_pbp({"active", "--pool", d, "--initial", "150", "--test", "50", "--rounds", "1"}), 1,
      d + ": --initial 150 + --test 50 + --rounds 1 need 201 rows, the file has 200");
  expect_error(run_pbp({"active", "--pool", path("missing.csv")}), 1, "missing.csv");
  expect_error(active(d, {"--score-on", "train"}), 2,
               "--score-on expects test or pool, got 'train'");
  expect_error(active(d, {"--density-width", "nan"}), 2, "--density-width expects a number");
  for (const char* bad : {"0", "-1", "1e9"}) {
    expect_error(
        active(d, {"--density-width", bad}), 2,
        "--density-width must be a positive number below 1e6, got '" + std::string(bad) + "'");
  }
  expect_error(run_pbp({"active", "--pool", d, "--initial", "50", "--test", "70", "--rounds", "11",
                        "--score-on", "pool"}),
               1,
               d + ": --initial 50 + --test 70 (twice, with --score-on pool) + --rounds 11 need "
                   "201 rows, the file has 200");
}

}  // namespace
}  // namespace pbp::cli_test
