// SPDX-License-Identifier: Apache-2.0
// `--prior ard` on the command line, and the input relevance `pbp inspect` prints by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ard_model.hpp"
#include "cli_helpers.hpp"
#include "pbp/trainer/blob.hpp"

namespace pbp::cli_test {
namespace {

using ArdCli = CliTest;

const std::vector<std::string> kQuick{"--hidden", "8", "--epochs", "5", "--seed", "3"};

RunResult train(const std::string& data, const std::string& out, std::vector<std::string> extra) {
  std::vector<std::string> arguments{"train", "--data", data, "--out", out};
  arguments.insert(arguments.end(), kQuick.begin(), kQuick.end());
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  return run_pbp(arguments);
}

TEST_F(ArdCli, InspectPrintsTheRelevanceOfEveryInputByName) {
  write_file(path("d.csv"), regression_csv(60, "size,rooms,price"));
  const RunResult trained = train(path("d.csv"), path("ard.pbp"), {"--prior", "ard"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const RunResult text = run_pbp({"inspect", path("ard.pbp")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("per input below (ARD)"), std::string::npos) << text.out;
  const size_t table = text.out.find("input relevance (ARD)");
  ASSERT_NE(table, std::string::npos) << text.out;
  for (const std::string row : {"\n  size ", "\n  rooms ", "\n  (bias) "}) {
    EXPECT_NE(text.out.find(row, table), std::string::npos) << row << " missing:\n" << text.out;
  }
  EXPECT_NE(text.out.find(" 1 ", table), std::string::npos) << text.out;  // the most relevant

  const RunResult json = run_pbp({"inspect", path("ard.pbp"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const std::string key :
       {"\"input_relevance\": [{\"feature\": ", "\"bias_prior_gamma\": {", "\"feature\": \"size\"",
        "\"feature\": \"rooms\"", "\"relevance\": 1}", "\"precision_mean\": "}) {
    EXPECT_NE(json.out.find(key), std::string::npos) << key << " missing: " << json.out;
  }
  // No number printed as null; the optional variances' scales say null when a blob has none.
  std::string numbers = json.out;
  for (const std::string absent :
       {"\"distance_scale\": null", "\"pair_scale\": null", "\"tail_dof\": null"}) {
    if (const size_t at = numbers.find(absent); at != std::string::npos)
      numbers.erase(at, absent.size());
  }
  EXPECT_EQ(numbers.find("null"), std::string::npos) << json.out;

  ASSERT_EQ(train(path("d.csv"), path("shared.pbp"), {}).exit_code, 0);
  const RunResult shared = run_pbp({"inspect", path("shared.pbp")});
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_EQ(shared.out.find("relevance"), std::string::npos) << shared.out;
  EXPECT_EQ(run_pbp({"inspect", path("shared.pbp"), "--json"}).out.find("input_relevance"),
            std::string::npos);
}

TEST_F(ArdCli, PriorOptionIsCheckedAndCrossvalTakesIt) {
  write_file(path("d.csv"), regression_csv(40));
  const RunResult unknown = train(path("d.csv"), path("m.pbp"), {"--prior", "sparse"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--prior expects auto, learned, fixed, ard or laplace, got 'sparse'"),
            std::string::npos)
      << unknown.err;
  const RunResult ebp =
      train(path("d.csv"), path("m.pbp"), {"--prior", "ard", "--algorithm", "ebp"});
  EXPECT_EQ(ebp.exit_code, 2);
  EXPECT_NE(ebp.err.find("--prior ard goes with --algorithm pbp"), std::string::npos) << ebp.err;
  const RunResult crossval = run_pbp({"crossval", "--data", path("d.csv"), "--splits", "2",
                                      "--hidden", "4", "--epochs", "2", "--prior", "ard"});
  EXPECT_EQ(crossval.exit_code, 0) << crossval.err;
}

TEST_F(ArdCli, InspectRefusesAMalformedEntryThatPredictionIgnores) {
  std::vector<uint8_t> blob = trainer::write_blob(ard_test::small_ard_model());
  pbp_model opened;
  ASSERT_EQ(pbp_open(&opened, blob.data(), blob.size()), PBP_OK);
  // The entry is the metadata's last (the writer's order): 4 records of 8 bytes.
  const size_t at = static_cast<size_t>(opened.metadata - blob.data()) + opened.metadata_size - 32;
  format::store_f32(&blob[at + format::input_prior_record::kA], -1.0f);
  ard_test::reseal(blob);
  ASSERT_EQ(pbp_open(&opened, blob.data(), blob.size()), PBP_OK);
  write_file(path("bad.pbp"), std::string(blob.begin(), blob.end()));
  const RunResult inspected = run_pbp({"inspect", path("bad.pbp")});
  EXPECT_EQ(inspected.exit_code, 1);
  EXPECT_EQ(inspected.out, "");  // refused before anything is printed
  EXPECT_NE(inspected.err.find("bad.pbp: invalid metadata: input_prior_precision record 0"),
            std::string::npos)
      << inspected.err;
  write_file(path("x.csv"), "a,b,c\n0.5,-1,2\n0,0,0\n");
  const RunResult predicted =
      run_pbp({"predict", "--model", path("bad.pbp"), "--data", path("x.csv")});
  EXPECT_EQ(predicted.exit_code, 0) << predicted.err;
  EXPECT_EQ(count_lines(predicted.out), 3u) << predicted.out;
}

}  // namespace
}  // namespace pbp::cli_test
