// SPDX-License-Identifier: Apache-2.0
// `train --curve` and `eval --calibration`: valid SVG with the expected content, figures that
// agree with `pbp eval`, and a model that is the same with and without the curve.
#include <cmath>

#include "../svg/xml_check.hpp"
#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

using Plots = CliTest;
using xml_test::Element;

Element parse_svg(const std::string& file) {
  const std::string document = read_file(file);
  xml_test::ParseResult parsed = xml_test::parse_xml(document);
  if (!parsed.root) throw std::runtime_error(file + ": " + parsed.error);
  EXPECT_EQ(parsed.root->name, "svg");
  EXPECT_EQ(parsed.root->attributes.count("viewBox"), 1u);
  return *parsed.root;
}

std::vector<std::string> texts(const Element& root, const std::string& css_class) {
  std::vector<std::string> found;
  for (const Element* text : root.with_class("text", css_class)) found.push_back(text->text);
  return found;
}

// The number after `key` ("key 1.23" or "\"key\": 1.23") in `text`.
double number_after(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) throw std::runtime_error("no " + key + " in: " + text);
  return std::stod(text.substr(at + key.size()));
}

std::vector<std::string> training(const std::string& data, const std::string& out,
                                  std::vector<std::string> extra) {
  std::vector<std::string> arguments{"train",    "--data", data,       "--out", out,
                                     "--hidden", "8",      "--epochs", "6"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  return arguments;
}

TEST_F(Plots, CurveLeavesTheModelUnchangedAndAgreesWithEval) {
  write_file(path("d.csv"), regression_csv(80));
  // The test rows with their columns reordered: matched by name, as `pbp eval` does.
  std::string test = "y,x2,x1\n";
  for (int i = 0; i < 25; ++i) {
    const double x1 = i % 5 - 2.0, x2 = (i * 3 % 7) / 3.0;
    test += std::to_string(2 * x1 - x2 + 0.3) + "," + std::to_string(x2) + "," +
            std::to_string(x1) + "\n";
  }
  write_file(path("t.csv"), test);
  const RunResult plain = run_pbp(training(path("d.csv"), path("plain.pbp"), {}));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const RunResult curved = run_pbp(training(path("d.csv"), path("curved.pbp"),
                                            {"--curve", path("c.svg"), "--test", path("t.csv")}));
  ASSERT_EQ(curved.exit_code, 0) << curved.err;
  EXPECT_EQ(read_file(path("plain.pbp")), read_file(path("curved.pbp")));
  // The plot is as deterministic as the model.
  ASSERT_EQ(run_pbp(training(path("d.csv"), path("again.pbp"),
                             {"--curve", path("again.svg"), "--test", path("t.csv")}))
                .exit_code,
            0);
  EXPECT_EQ(read_file(path("c.svg")), read_file(path("again.svg")));
  EXPECT_NE(curved.out.find("wrote " + path("c.svg") + " (training curves)"), std::string::npos)
      << curved.out;

  const Element svg = parse_svg(path("c.svg"));
  EXPECT_EQ(svg.with_class("g", "panel").size(), 2u);
  EXPECT_EQ(svg.with_class("path", "line").size(), 4u);  // 2 data sets x (RMSE, loglik)
  for (const Element* markers : svg.with_class("g", "markers")) {
    EXPECT_EQ(markers->find_all("circle").size(), 6u);  // one per epoch
  }
  EXPECT_EQ(texts(svg, "legend"), (std::vector<std::string>{"training set", "test set (t.csv)",
                                                            "training set", "test set (t.csv)"}));
  EXPECT_EQ(texts(svg, "panel-title"),
            (std::vector<std::string>{"RMSE (lower is better)",
                                      "mean log-likelihood (higher is better)"}));

  // The last epoch's test figures are what `pbp eval` says of the written model.
  const RunResult eval =
      run_pbp({"eval", "--model", path("curved.pbp"), "--data", path("t.csv"), "--json"});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const std::string test_line = curved.out.substr(curved.out.find("after epoch 6, test set"));
  for (const char* key : {"rmse", "loglik", "coverage95"}) {
    const double printed = number_after(test_line, std::string(key) + " ");
    const double evaluated = number_after(eval.out, "\"" + std::string(key) + "\": ");
    EXPECT_NEAR(printed, evaluated, 1e-5 * std::fabs(evaluated) + 1e-12) << key;
  }
}

// --help says what --curve prints: every epoch's figures (it used to say the last epoch's).
TEST_F(Plots, CurvePrintsEveryEpochAsItsHelpSays) {
  const RunResult help = run_pbp({"train", "--help"});
  EXPECT_NE(help.out.find("prints those figures, one line per epoch and data set"),
            std::string::npos)
      << help.out;
  EXPECT_EQ(help.out.find("last epoch"), std::string::npos) << help.out;
  write_file(path("d.csv"), regression_csv(40));
  const RunResult curved =
      run_pbp(training(path("d.csv"), path("m.pbp"), {"--curve", path("c.svg")}));
  ASSERT_EQ(curved.exit_code, 0) << curved.err;
  for (int epoch = 1; epoch <= 6; ++epoch) {
    EXPECT_NE(curved.out.find("after epoch " + std::to_string(epoch) + ", training set: rmse "),
              std::string::npos)
        << curved.out;
  }
}

TEST_F(Plots, CurveWithoutTestSetAndItsUsageErrors) {
  write_file(path("b.csv"), binary_csv(60));
  const RunResult trained = run_pbp(
      training(path("b.csv"), path("b.pbp"), {"--task", "binary", "--curve", path("b.svg")}));
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_NE(trained.out.find("after epoch 6, training set: accuracy "), std::string::npos)
      << trained.out;
  const Element svg = parse_svg(path("b.svg"));
  EXPECT_EQ(texts(svg, "legend"), (std::vector<std::string>{"training set", "training set"}));
  EXPECT_EQ(texts(svg, "panel-title")[0], "accuracy (higher is better)");

  expect_one_line_error(run_pbp(training(path("b.csv"), path("x.pbp"), {"--test", path("b.csv")})),
                        2, "--test and --test-labels go with --curve");
  expect_one_line_error(run_pbp(training(path("b.csv"), path("x.pbp"),
                                         {"--curve", path("x.svg"), "--test-labels", "l"})),
                        2, "--test-labels goes with --test");
  // A bad destination or test file fails before training: no model is written.
  expect_one_line_error(
      run_pbp(training(path("b.csv"), path("x.pbp"), {"--curve", path("no/such/x.svg")})), 1,
      path("no/such/x.svg"));
  write_file(path("wide.csv"), "a,b,c,label\n1,2,3,0\n");
  expect_one_line_error(
      run_pbp(training(path("b.csv"), path("x.pbp"),
                       {"--task", "binary", "--curve", path("x.svg"), "--test", path("wide.csv")})),
      1,
      "the header does not name the model's inputs: missing 'x1', 'x2'; unexpected 'a', 'b', 'c'");
  EXPECT_FALSE(std::filesystem::exists(path("x.pbp")));
  EXPECT_FALSE(std::filesystem::exists(path("x.svg")));
}

TEST_F(Plots, CountCurveShowsMad) {
  std::string counts = "a,b,n\n";
  for (int i = 0; i < 45; ++i) {
    counts += std::to_string(i % 5) + "," + std::to_string(i % 7) + "," +
              std::to_string(i % 5 + i % 2) + "\n";
  }
  write_file(path("n.csv"), counts);
  const RunResult trained = run_pbp(
      training(path("n.csv"), path("n.pbp"), {"--task", "count", "--curve", path("n.svg")}));
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_EQ(texts(parse_svg(path("n.svg")), "panel-title")[0], "MAD of the mode (lower is better)");
  expect_one_line_error(run_pbp({"eval", "--model", path("n.pbp"), "--data", path("n.csv"),
                                 "--calibration", path("n_cal.svg")}),
                        2, "--calibration is not supported for count models");
  EXPECT_FALSE(std::filesystem::exists(path("n_cal.svg")));
}

TEST_F(Plots, RegressionCalibrationPlot) {
  write_file(path("d.csv"), regression_csv(80));
  ASSERT_EQ(run_pbp(training(path("d.csv"), path("m.pbp"), {})).exit_code, 0);
  const RunResult text = run_pbp(
      {"eval", "--model", path("m.pbp"), "--data", path("d.csv"), "--calibration", path("c.svg")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("wrote " + path("c.svg") + " (calibration plot)"), std::string::npos);
  const Element svg = parse_svg(path("c.svg"));
  ASSERT_EQ(svg.with_class("g", "markers").size(), 1u);
  EXPECT_EQ(svg.with_class("g", "markers")[0]->find_all("circle").size(), 20u);  // the levels
  EXPECT_EQ(svg.with_class("path", "band").size(), 1u);
  EXPECT_NE(texts(svg, "legend")[2].find("80 rows"), std::string::npos);
  EXPECT_EQ(texts(svg, "title")[0], "Calibration of m.pbp on d.csv");

  // With --json stdout holds the JSON object alone, and the plot is still written.
  std::filesystem::remove(path("c.svg"));
  const RunResult json = run_pbp({"eval", "--model", path("m.pbp"), "--data", path("d.csv"),
                                  "--json", "--calibration", path("c.svg")});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(count_lines(json.out), 1u) << json.out;
  EXPECT_EQ(json.out.front(), '{');
  EXPECT_TRUE(std::filesystem::exists(path("c.svg")));
  expect_one_line_error(run_pbp({"eval", "--model", path("m.pbp"), "--data", path("d.csv"),
                                 "--calibration", path("no/c.svg")}),
                        1, path("no/c.svg"));
}

TEST_F(Plots, ReliabilityDiagramCountsEveryRow) {
  write_file(path("b.csv"), binary_csv(60));
  ASSERT_EQ(run_pbp(training(path("b.csv"), path("b.pbp"), {"--task", "binary"})).exit_code, 0);
  const RunResult eval = run_pbp(
      {"eval", "--model", path("b.pbp"), "--data", path("b.csv"), "--calibration", path("r.svg")});
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  const Element svg = parse_svg(path("r.svg"));
  size_t rows = 0;
  for (const std::string& count : texts(svg, "annotation")) rows += std::stoul(count);
  EXPECT_EQ(rows, 60u);
  const std::string title = texts(svg, "panel-title")[0];
  const double ece = number_after(title, "ECE ");
  EXPECT_NEAR(ece, number_after(eval.out, "ece"), 1e-4) << title;
  EXPECT_EQ(svg.with_class("g", "bars").size(), 2u);  // accuracy and rows per bin
}

}  // namespace
}  // namespace pbp::cli_test
