// SPDX-License-Identifier: Apache-2.0
// Classification and count options, target checks and IDX input, through the built binary.
#include "cli_helpers.hpp"

namespace pbp::cli_test {
namespace {

using TaskErrors = CliTest;
using TaskEndToEnd = CliTest;

RunResult train_with(const std::string& data, const std::string& out,
                     const std::vector<std::string>& extra) {
  std::vector<std::string> arguments{"train", "--data", data, "--out", out};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  return run_pbp(arguments);
}

TEST_F(TaskErrors, OptionsMustFitTheTask) {
  const std::string d = path("d.csv"), m = path("m.pbp");
  const auto usage = [&](const std::vector<std::string>& extra, const std::string& message) {
    expect_one_line_error(train_with(d, m, extra), 2, "pbp train: " + message);
  };
  usage({"--task", "classify"}, "--task expects regression, binary, multiclass or count");
  usage({"--classes", "3"}, "--classes goes with --task multiclass");
  usage({"--task", "multiclass", "--classes", "1"}, "--classes must be between 2 and 64");
  usage({"--task", "binary", "--samples", "5"},
        "--softmax and --samples go with --task multiclass");
  usage({"--task", "multiclass", "--softmax", "exact"},
        "--softmax expects mean-field, bound or sampled");
  usage({"--task", "multiclass", "--softmax", "bound", "--samples", "5"},
        "--samples goes with --softmax sampled");
  usage({"--task", "multiclass", "--softmax", "mean-field", "--samples", "5"},
        "--samples goes with --softmax sampled");
  usage({"--task", "multiclass", "--samples", "0"}, "--samples must be between 1 and 100000");
  usage({"--algorithm", "sgd"}, "--algorithm expects pbp or ebp");
  usage({"--inference", "ep"}, "--inference expects adf or sep, got 'ep'");
  usage({"--algorithm", "ebp", "--inference", "sep"},
        "--inference sep goes with --algorithm pbp (EBP keeps variances fixed)");
  usage({"--averaging", "yes"}, "--averaging expects auto, on or off, got 'yes'");
  usage({"--distance-variance", "no"}, "--distance-variance expects on or off, got 'no'");
  usage({"--recipe", "paper", "--distance-variance", "off"},
        "--distance-variance goes with --recipe auto (regression)");
  usage({"--task", "binary", "--distance-variance", "on"},
        "--distance-variance goes with --recipe auto (regression)");
  expect_one_line_error(run_pbp({"crossval", "--data", d, "--splits", "2", "--task", "poisson"}), 2,
                        "pbp crossval: --task expects");
}

// Trains with `extra` on `csv` and expects the one-line error "file:location: message".
void expect_bad_targets(const std::string& file, const std::string& csv,
                        const std::vector<std::string>& extra, const std::string& location,
                        const std::string& message) {
  write_file(file, csv);
  expect_one_line_error(train_with(file, file + ".pbp", extra), 1,
                        "pbp train: error: " + file + ":" + location + ": " + message);
  EXPECT_FALSE(std::filesystem::exists(file + ".pbp"));
}

TEST_F(TaskErrors, TargetsNameFileLineAndColumn) {
  expect_bad_targets(path("b.csv"), "a,y\n1,0\n2,1\n3,2\n", {"--task", "binary"}, "4:2",
                     "expected a binary label 0 or 1, found 2 (column 'y')");
  expect_bad_targets(path("m.csv"), "y,a\n0,1\n1.5,2\n", {"--task", "multiclass", "--target", "y"},
                     "3:1", "expected a class index 0..63, found 1.5 (column 'y')");
  expect_bad_targets(path("c.csv"), "a,y\n1,0\n2,3\n3,1\n",
                     {"--task", "multiclass", "--classes", "3"}, "3:2",
                     "expected a class index 0..2, found 3 (column 'y')");
  expect_bad_targets(path("n.csv"), "a,y\n1,4\n2,-1\n", {"--task", "count"}, "3:2",
                     "expected a count (a non-negative integer), found -1 (column 'y')");
  write_file(path("zeros.csv"), "a,y\n1,0\n2,0\n");
  expect_one_line_error(
      train_with(path("zeros.csv"), path("z.pbp"), {"--task", "multiclass"}), 1,
      path("zeros.csv") + ": multiclass needs at least 2 classes but every label is 0");
}

TEST_F(TaskErrors, IdxFiles) {
  const std::string images = path("images"), labels = path("labels"), m = path("m.pbp");
  write_file(images, idx_file({3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  write_file(labels, idx_file({2}, {0, 1}));
  write_file(path("images.gz"), std::string("\x1f\x8b\x08\x00\x00\x00", 6));
  write_file(path("short"), idx_file({3, 2, 2}, {0, 1, 2}));
  write_file(path("d.csv"), regression_csv(5));
  expect_one_line_error(train_with(images, m, {}), 2, "IDX images need their --labels file");
  expect_one_line_error(train_with(images, m, {"--labels", labels, "--target", "0"}), 2,
                        "--target goes with CSV data, not IDX images");
  expect_one_line_error(train_with(path("d.csv"), m, {"--labels", labels}), 2,
                        "--labels goes with IDX images");
  expect_one_line_error(train_with(images, m, {"--labels", labels}), 1,
                        labels + ": 2 labels for the 3 items of " + images);
  expect_one_line_error(train_with(path("images.gz"), m, {"--labels", labels}), 1,
                        path("images.gz") + ": gzip-compressed IDX file: decompress it first");
  expect_one_line_error(
      train_with(path("short"), m, {"--labels", labels}), 1,
      path("short") + ": truncated IDX file: 3 x 2 x 2 needs 12 data bytes, found 3");
  expect_one_line_error(train_with(images, m, {"--labels", path("d.csv")}), 1,
                        path("d.csv") + ": not an IDX file: bad magic");
  write_file(labels, idx_file({3}, {0, 1, 3}));
  expect_one_line_error(train_with(images, m, {"--labels", labels, "--task", "binary"}), 1,
                        labels + ": label 2: expected a binary label 0 or 1, found 3");
  EXPECT_FALSE(std::filesystem::exists(m));
}

// IDX through train, predict and eval (regression on the label values: works with any runtime).
TEST_F(TaskEndToEnd, IdxImagesTrainPredictEval) {
  std::vector<uint8_t> pixels, label_values;
  for (uint8_t i = 0; i < 40; ++i) {
    const std::vector<uint8_t> image{static_cast<uint8_t>(i * 6), static_cast<uint8_t>(i % 3 * 90),
                                     static_cast<uint8_t>(250 - i), 7};
    pixels.insert(pixels.end(), image.begin(), image.end());
    label_values.push_back(static_cast<uint8_t>(i / 10));
  }
  write_file(path("images"), idx_file({40, 2, 2}, pixels));
  write_file(path("labels"), idx_file({40}, label_values));
  const RunResult trained =
      train_with(path("images"), path("m.pbp"),
                 {"--labels", path("labels"), "--hidden", "6", "--epochs", "3"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_NE(trained.out.find("40 rows, 4 inputs, target label"), std::string::npos) << trained.out;
  const RunResult predicted =
      run_pbp({"predict", "--model", path("m.pbp"), "--data", path("images")});
  ASSERT_EQ(predicted.exit_code, 0) << predicted.err;
  EXPECT_EQ(count_lines(predicted.out), 41u);
  const RunResult evaluated = run_pbp({"eval", "--model", path("m.pbp"), "--data", path("images"),
                                       "--labels", path("labels"), "--json"});
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.err;
  EXPECT_NE(evaluated.out.find("\"rows\": 40"), std::string::npos) << evaluated.out;
  // A model for other inputs: the pixel count is checked.
  write_file(path("d.csv"), regression_csv(20));
  ASSERT_EQ(train_with(path("d.csv"), path("two.pbp"), {"--epochs", "2"}).exit_code, 0);
  expect_one_line_error(run_pbp({"predict", "--model", path("two.pbp"), "--data", path("images")}),
                        1, "the model has 2 inputs but each image has 4 pixels");
}

// Trains `task` on `csv`; skips the test while the runtime cannot run such blobs yet.
#define TRAIN_OR_SKIP(csv_path, model_path, ...)                                               \
  do {                                                                                         \
    const RunResult trained_ = train_with(csv_path, model_path, {__VA_ARGS__});                \
    if (trained_.exit_code != 0 && trained_.err.find("unsupported task") != std::string::npos) \
      GTEST_SKIP() << "waiting on the runtime's task support (blob task field, class "         \
                      "probabilities, count distribution): "                                   \
                   << trained_.err;                                                            \
    ASSERT_EQ(trained_.exit_code, 0) << trained_.err;                                          \
  } while (0)

TEST_F(TaskEndToEnd, BinaryPredictEvalCrossval) {
  write_file(path("b.csv"), binary_csv(60));
  TRAIN_OR_SKIP(path("b.csv"), path("b.pbp"), "--task", "binary", "--hidden", "8", "--epochs", "5");
  const RunResult predicted =
      run_pbp({"predict", "--model", path("b.pbp"), "--data", path("b.csv")});
  ASSERT_EQ(predicted.exit_code, 0) << predicted.err;
  EXPECT_EQ(predicted.out.substr(0, predicted.out.find('\n')),
            "p0,p1,entropy,range,range_distance,range_input");
  EXPECT_EQ(count_lines(predicted.out), 61u);
  const RunResult json =
      run_pbp({"eval", "--model", path("b.pbp"), "--data", path("b.csv"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const char* key : {"\"accuracy\": ", "\"loglik\": ", "\"brier\": ", "\"ece\": "}) {
    EXPECT_NE(json.out.find(key), std::string::npos) << key << json.out;
  }
  const RunResult crossval = run_pbp({"crossval", "--data", path("b.csv"), "--task", "binary",
                                      "--splits", "2", "--epochs", "2", "--hidden", "4", "--json"});
  ASSERT_EQ(crossval.exit_code, 0) << crossval.err;
  for (const char* key :
       {"accuracy_mean", "accuracy_se", "loglik_mean", "brier_mean", "ece_mean"}) {
    EXPECT_NE(crossval.out.find(key), std::string::npos) << key << crossval.out;
  }
}

TEST_F(TaskEndToEnd, MulticlassAndCountPredictColumns) {
  std::string classes = "a,b,class\n", counts = "a,b,n\n";
  for (int i = 0; i < 45; ++i) {
    classes +=
        std::to_string(i % 5) + "," + std::to_string(i % 7) + "," + std::to_string(i % 3) + "\n";
    counts += std::to_string(i % 5) + "," + std::to_string(i % 7) + "," +
              std::to_string(i % 5 + i % 2) + "\n";
  }
  write_file(path("m.csv"), classes);
  write_file(path("n.csv"), counts);
  TRAIN_OR_SKIP(path("m.csv"), path("m.pbp"), "--task", "multiclass", "--epochs", "3");
  const RunResult probabilities =
      run_pbp({"predict", "--model", path("m.pbp"), "--data", path("m.csv")});
  ASSERT_EQ(probabilities.exit_code, 0) << probabilities.err;
  EXPECT_EQ(probabilities.out.substr(0, probabilities.out.find('\n')),
            "p0,p1,p2,entropy,range,range_distance,range_input");
  TRAIN_OR_SKIP(path("n.csv"), path("n.pbp"), "--task", "count", "--epochs", "3");
  const RunResult count = run_pbp({"predict", "--model", path("n.pbp"), "--data", path("n.csv")});
  ASSERT_EQ(count.exit_code, 0) << count.err;
  EXPECT_EQ(count.out.substr(0, count.out.find('\n')),
            "mean,variance,mode,lower,upper,range,range_distance,range_input");
  const RunResult json =
      run_pbp({"eval", "--model", path("n.pbp"), "--data", path("n.csv"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"mad\": "), std::string::npos) << json.out;
}

// Multiclass averages each epoch's iterates by default (--averaging on gives the same bytes, off
// others); --inference sep trains another model; regression keeps the last iterate by default.
TEST_F(TaskEndToEnd, InferenceAndAveragingOptionsChooseTheModel) {
  std::string classes = "a,b,class\n";
  for (int i = 0; i < 40; ++i) {
    classes +=
        std::to_string(i % 5) + "," + std::to_string(i % 7) + "," + std::to_string(i % 3) + "\n";
  }
  write_file(path("m.csv"), classes);
  auto blob = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> arguments = {"train",      "--data",   path("m.csv"),
                                          "--out",      path(name), "--task",
                                          "multiclass", "--epochs", "2"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const RunResult result = run_pbp(arguments);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return read_file(path(name));
  };
  const std::string standard = blob("d.pbp", {});
  EXPECT_EQ(blob("on.pbp", {"--averaging", "on"}), standard);
  EXPECT_NE(blob("off.pbp", {"--averaging", "off"}), standard);
  EXPECT_NE(blob("sep.pbp", {"--inference", "sep"}), standard);
  EXPECT_EQ(blob("adf.pbp", {"--inference", "adf"}), standard);
  write_file(path("r.csv"), regression_csv(30));
  auto regression = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> arguments = {"train",    "--data", path("r.csv"), "--out", path(name),
                                          "--epochs", "2"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    EXPECT_EQ(run_pbp(arguments).exit_code, 0);
    return read_file(path(name));
  };
  // PBP as published keeps the last iterate; the automatic recipe averages.
  const std::string paper = regression("r_paper.pbp", {"--recipe", "paper"});
  EXPECT_EQ(regression("r_off.pbp", {"--recipe", "paper", "--averaging", "off"}), paper);
  EXPECT_NE(regression("r_on.pbp", {"--recipe", "paper", "--averaging", "on"}), paper);
  EXPECT_EQ(regression("r_auto_on.pbp", {"--averaging", "on"}), regression("r.pbp", {}));
  EXPECT_NE(regression("r_auto_off.pbp", {"--averaging", "off"}), regression("r.pbp", {}));
}

}  // namespace
}  // namespace pbp::cli_test
