// SPDX-License-Identifier: Apache-2.0
// `pbp quantize` and `pbp train --storage`: float16 and int8 blobs from the command line.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cli_helpers.hpp"
#include "pbp/trainer/blob.hpp"

namespace pbp::cli_test {
namespace {

class Quantize : public CliTest {
 protected:
  // `pbp train` on train.csv (regression) into `out`; fails the test if it does not succeed.
  void train(const std::string& hidden, const std::string& epochs, const std::string& seed,
             const std::string& out) {
    const RunResult r = run_pbp({"train", "--data", path("train.csv"), "--hidden", hidden,
                                 "--epochs", epochs, "--seed", seed, "--out", path(out)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // f32.pbp from `pbp train` on train.csv with `hidden`, `epochs` and `seed`, i8.pbp from the
  // same with --storage int8, and q.pbp from quantising f32.pbp with the training rows: the same
  // bytes as i8.pbp.
  void expect_int8_training_matches_quantize(const std::string& hidden, const std::string& epochs,
                                             const std::string& seed) {
    train(hidden, epochs, seed, "f32.pbp");
    const RunResult trained =
        run_pbp({"train", "--data", path("train.csv"), "--hidden", hidden, "--epochs", epochs,
                 "--seed", seed, "--out", path("i8.pbp"), "--storage", "int8"});
    ASSERT_EQ(trained.exit_code, 0) << trained.err;
    const RunResult quantised = run_pbp({"quantize", path("f32.pbp"), "--storage", "int8", "--data",
                                         path("train.csv"), "--out", path("q.pbp")});
    ASSERT_EQ(quantised.exit_code, 0) << quantised.err;
    EXPECT_EQ(read_file(path("q.pbp")), read_file(path("i8.pbp")));
  }
};

// Quantising the float32 blob of a training run gives the bytes `train --storage float16`
// writes for the same run; inspect then reports float16 layers at 4 bytes per weight, and
// quantising back to float32 decodes the halves.
TEST_F(Quantize, MatchesTrainingWithFloat16Storage) {
  write_file(path("train.csv"), regression_csv(60));
  const std::vector<std::string> train = {"train",    "--data", path("train.csv"), "--hidden", "6",
                                          "--epochs", "3",      "--seed",          "5"};
  std::vector<std::string> f32 = train, f16 = train;
  f32.insert(f32.end(), {"--out", path("f32.pbp")});
  f16.insert(f16.end(), {"--out", path("f16.pbp"), "--storage", "float16"});
  ASSERT_EQ(run_pbp(f32).exit_code, 0);
  const RunResult trained = run_pbp(f16);
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const RunResult quantised =
      run_pbp({"quantize", path("f32.pbp"), "--storage", "float16", "--out", path("q.pbp")});
  ASSERT_EQ(quantised.exit_code, 0) << quantised.err;
  EXPECT_NE(quantised.out.find("largest change: means"), std::string::npos) << quantised.out;
  EXPECT_EQ(read_file(path("q.pbp")), read_file(path("f16.pbp")));
  EXPECT_LT(read_file(path("q.pbp")).size(), read_file(path("f32.pbp")).size());

  const RunResult inspect = run_pbp({"inspect", path("q.pbp")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("2 -> 6 relu, float16 weights"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("4 per weight"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("rounding:   float16 weights are within"), std::string::npos);
  EXPECT_EQ(run_pbp({"inspect", path("f32.pbp")}).out.find("rounding:"), std::string::npos);

  ASSERT_EQ(run_pbp({"quantize", path("q.pbp"), "--storage", "float32", "--out", path("back.pbp")})
                .exit_code,
            0);
  EXPECT_EQ(read_file(path("back.pbp")).size(), read_file(path("f32.pbp")).size());
  EXPECT_NE(read_file(path("back.pbp")), read_file(path("f32.pbp")));  // the rounding stays
}

// int8 likewise: train --storage int8 writes what quantising the float32 blob with the training
// rows (--data) writes; quantising the int8 blob again
// changes nothing, with or without rows (its decoded values are what it encodes); inspect
// reports int8 layers and their rounding; the weights take about 2 bytes each.
TEST_F(Quantize, MatchesTrainingWithInt8StorageAndIsIdempotent) {
  write_file(path("train.csv"), regression_csv(60));
  expect_int8_training_matches_quantize("6", "3", "5");
  if (HasFatalFailure()) return;
  for (const bool with_rows : {false, true}) {
    std::vector<std::string> args = {"quantize", path("q.pbp"), "--storage",
                                     "int8",     "--out",       path("q2.pbp")};
    if (with_rows) args.insert(args.end(), {"--data", path("train.csv")});
    const RunResult again = run_pbp(args);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("largest change: means 0 (relative 0), variances 0 (relative 0)"),
              std::string::npos)
        << again.out;
    EXPECT_EQ(read_file(path("q2.pbp")), read_file(path("q.pbp")));
  }
  const RunResult float16_rows = run_pbp({"quantize", path("f32.pbp"), "--storage", "float16",
                                          "--data", path("train.csv"), "--out", path("x.pbp")});
  EXPECT_EQ(float16_rows.exit_code, 2);
  EXPECT_NE(float16_rows.err.find("--data applies to --storage int8"), std::string::npos)
      << float16_rows.err;

  const RunResult inspect = run_pbp({"inspect", path("q.pbp")});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("2 -> 6 relu, int8 weights"), std::string::npos) << inspect.out;
  // 2 -> 6 -> 1: 25 weights in 7 rows; 7 row scales, 2 variance scales, 2 x 25 codes = 86 bytes.
  EXPECT_NE(inspect.out.find("mean + variance: 86 bytes, 3.44 per weight"), std::string::npos)
      << inspect.out;
  EXPECT_NE(inspect.out.find("rounding:   int8 weights are within"), std::string::npos);

  // Every layer with logarithmic variance codes: train and quantize --data write the same bytes,
  // the same size as int8's, and quantising them again changes nothing.
  const RunResult trained =
      run_pbp({"train", "--data", path("train.csv"), "--hidden", "6", "--epochs", "3", "--seed",
               "5", "--storage", "int8-logvar", "--out", path("lt.pbp")});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const RunResult quantised = run_pbp({"quantize", path("f32.pbp"), "--storage", "int8-logvar",
                                       "--data", path("train.csv"), "--out", path("lq.pbp")});
  ASSERT_EQ(quantised.exit_code, 0) << quantised.err;
  EXPECT_EQ(read_file(path("lt.pbp")), read_file(path("lq.pbp")));
  EXPECT_EQ(read_file(path("lq.pbp")).size(), read_file(path("q.pbp")).size());
  const RunResult log_again =
      run_pbp({"quantize", path("lq.pbp"), "--storage", "int8-logvar", "--out", path("lq2.pbp")});
  ASSERT_EQ(log_again.exit_code, 0) << log_again.err;
  EXPECT_EQ(read_file(path("lq2.pbp")), read_file(path("lq.pbp")));
}

// --data rounds differently from the nearest code (on a network wide enough for the spread
// errors to move codes), with the same layout (tests/host/quantisation checks what it keeps).
TEST_F(Quantize, TrainingRowsMoveTheInt8Codes) {
  write_file(path("train.csv"), regression_csv(200));
  train("24", "5", "3", "f32.pbp");
  ASSERT_EQ(
      run_pbp({"quantize", path("f32.pbp"), "--storage", "int8", "--out", path("n.pbp")}).exit_code,
      0);
  const RunResult rows = run_pbp({"quantize", path("f32.pbp"), "--storage", "int8", "--data",
                                  path("train.csv"), "--out", path("d.pbp")});
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_NE(read_file(path("n.pbp")), read_file(path("d.pbp")));
  EXPECT_EQ(read_file(path("n.pbp")).size(), read_file(path("d.pbp")).size());
  // verify --reference knows it for the original quantised (only the means differ)
  const RunResult verified = run_pbp({"verify", "--model", path("d.pbp"), "--reference",
                                      path("f32.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("tolerance 0.05: PASS"), std::string::npos) << verified.out;
}

// The same on a 2 x 20 network, whose rows the rounding gives steps below their largest / 127:
// train --storage int8 must store those values as they are (an extra float32 round trip of the
// rounded means moved a byte here).
TEST_F(Quantize, TrainingWithInt8StorageMatchesQuantizeOnTwoHiddenLayers) {
  write_file(path("train.csv"), regression_csv(200));
  expect_int8_training_matches_quantize("20,20", "40", "4");
}

// With the training rows, quantize and train --storage int8 report how far the int8 blob's
// predictions are from the float32 blob's on them. Where that is more than 0.01 nats (a row whose
// one mean is 100 times the rest keeps little of the rest on the int8 grid: KL 0.86) or the
// epistemic std moves by more than 2 % (this model: 0.41 %), they keep the layer that moves them in
// float16 (--fallback none: they warn instead).
TEST_F(Quantize, ReportsAndWarnsHowFarInt8PredictionsMove) {
  write_file(path("train.csv"), regression_csv(200));
  train("8", "5", "3", "f32.pbp");
  const RunResult rows = run_pbp({"quantize", path("f32.pbp"), "--storage", "int8", "--data",
                                  path("train.csv"), "--out", path("d.pbp")});
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  EXPECT_NE(rows.out.find("int8 against float32 on 200 training rows: predictive KL mean"),
            std::string::npos)
      << rows.out;
  EXPECT_NE(rows.out.find("; epistemic std "), std::string::npos) << rows.out;
  EXPECT_EQ(rows.err.find("warning"), std::string::npos) << rows.err;
  const RunResult trained =
      run_pbp({"train", "--data", path("train.csv"), "--hidden", "8", "--epochs", "5", "--seed",
               "3", "--storage", "int8", "--out", path("t.pbp")});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  EXPECT_NE(trained.out.find("int8 against float32 on 200 training rows"), std::string::npos)
      << trained.out;

  const std::string original = read_file(path("f32.pbp"));
  pbp::trainer::Model model =
      pbp::trainer::read_blob(std::vector<uint8_t>(original.begin(), original.end()));
  pbp::trainer::Layer& first = model.layers[0];
  double largest = 0.0;
  for (const double m : first.mean) largest = std::max(largest, std::fabs(m));
  for (uint32_t j = 0; j < first.outputs; ++j) {
    first.mean[j * first.row_length()] = 100.0 * largest;  // every unit's first input weight
  }
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  write_file(path("outlier.pbp"), std::string(blob.begin(), blob.end()));
  const RunResult outlier =
      run_pbp({"quantize", path("outlier.pbp"), "--storage", "int8", "--data", path("train.csv"),
               "--out", path("o.pbp"), "--fallback", "none"});
  ASSERT_EQ(outlier.exit_code, 0) << outlier.err;
  EXPECT_NE(outlier.err.find("pbp quantize: warning: int8 weights change this model's predictions"),
            std::string::npos)
      << outlier.out << outlier.err;
  EXPECT_NE(outlier.err.find("--storage float16"), std::string::npos) << outlier.err;
  // By default the first layer stays float16 (logarithmic variance codes would not help its
  // means), the second int8, and the blob is within the goals.
  const RunResult mixed = run_pbp({"quantize", path("outlier.pbp"), "--storage", "int8", "--data",
                                   path("train.csv"), "--out", path("m.pbp")});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.out.find("layer 1 (8 x 3) kept in float16: before, the predictive KL mean was "),
            std::string::npos)
      << mixed.out;
  EXPECT_EQ(mixed.out.find("layer 2"), std::string::npos) << mixed.out;
  EXPECT_EQ(mixed.err.find("warning"), std::string::npos) << mixed.err;
  const std::string mixed_bytes = read_file(path("m.pbp"));
  const pbp::trainer::Model mixed_model =
      pbp::trainer::read_blob(std::vector<uint8_t>(mixed_bytes.begin(), mixed_bytes.end()));
  ASSERT_EQ(mixed_model.layer_storage.size(), 2u);
  EXPECT_EQ(mixed_model.layer_storage[0], pbp::format::Storage::float16);
  EXPECT_EQ(mixed_model.layer_storage[1], pbp::format::Storage::int8);
  EXPECT_EQ(mixed_model.weight_storage, pbp::format::Storage::int8);
  const RunResult inspected = run_pbp({"inspect", path("m.pbp")});
  EXPECT_NE(inspected.out.find("float16"), std::string::npos) << inspected.out;
  const RunResult mixed_verified = run_pbp({"verify", "--model", path("m.pbp"), "--reference",
                                            path("outlier.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(mixed_verified.exit_code, 0) << mixed_verified.out << mixed_verified.err;
  EXPECT_NE(mixed_verified.out.find("tolerance 0.05: PASS"), std::string::npos)
      << mixed_verified.out;

  // One output weight's variance 10^6 times the rest, on a unit that is about 0 on every row: the
  // layer's code scale would put the others on its floor. ReLU units are rescaled to move it out
  // of the way (epistemic std 0.4 %, no warning); erf units cannot be (erf(c a) != c erf(a)):
  // their epistemic std moves by 219 % while the predictive KL stays 0.004 nats.
  const auto widen = [&](const std::string& from, const std::string& to,
                         const std::string& fallback) {
    const std::string bytes = read_file(path(from));
    pbp::trainer::Model wide =
        pbp::trainer::read_blob(std::vector<uint8_t>(bytes.begin(), bytes.end()));
    pbp::trainer::Layer& last = wide.layers.back();
    last.variance[0] = 1e6 * *std::max_element(last.variance.begin(), last.variance.end());
    pbp::trainer::Layer& first_layer = wide.layers.front();  // unit 0 ~ 0: the weight hardly used
    for (size_t k = 0; k < first_layer.row_length(); ++k) {
      first_layer.mean[k] = 0.0;
      first_layer.variance[k] = 1e-8;
    }
    const std::vector<uint8_t> wide_blob = pbp::trainer::write_blob(wide);
    write_file(path(to), std::string(wide_blob.begin(), wide_blob.end()));
    return run_pbp({"quantize", path(to), "--storage", "int8", "--data", path("train.csv"), "--out",
                    path("w.pbp"), "--fallback", fallback});
  };
  const RunResult rescaled = widen("f32.pbp", "wide.pbp", "float16");
  ASSERT_EQ(rescaled.exit_code, 0) << rescaled.err;
  EXPECT_EQ(rescaled.err.find("warning"), std::string::npos) << rescaled.out << rescaled.err;
  EXPECT_EQ(rescaled.out.find("kept in float16"), std::string::npos) << rescaled.out;
  // verify --reference reads the units' scales back from the blob and compares the two
  const RunResult verified = run_pbp({"verify", "--model", path("w.pbp"), "--reference",
                                      path("wide.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("tolerance 0.05: PASS"), std::string::npos) << verified.out;
  ASSERT_EQ(run_pbp({"train", "--data", path("train.csv"), "--hidden", "8", "--epochs", "5",
                     "--seed", "3", "--activation", "erf", "--out", path("erf.pbp")})
                .exit_code,
            0);
  const RunResult spread = widen("erf.pbp", "wide_erf.pbp", "none");
  ASSERT_EQ(spread.exit_code, 0) << spread.err;
  EXPECT_NE(
      spread.err.find("pbp quantize: warning: int8 weights change this model's epistemic std"),
      std::string::npos)
      << spread.out << spread.err;
  // By default the output layer, whose variances the codes lose, stays float16.
  const RunResult kept = widen("erf.pbp", "wide_erf.pbp", "float16");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.out.find("layer 2 (1 x 9) kept in float16"), std::string::npos) << kept.out;
  EXPECT_EQ(kept.err.find("warning"), std::string::npos) << kept.out << kept.err;
  // --fallback auto: the logarithmic variance codes span the 10^6 (a blob no bigger than int8's).
  ASSERT_EQ(widen("erf.pbp", "wide_erf.pbp", "none").exit_code, 0);
  const std::string all_int8 = read_file(path("w.pbp"));
  const RunResult logarithmic = widen("erf.pbp", "wide_erf.pbp", "auto");
  ASSERT_EQ(logarithmic.exit_code, 0) << logarithmic.err;
  EXPECT_NE(logarithmic.out.find("layer 2 (1 x 9) takes logarithmic variance codes"),
            std::string::npos)
      << logarithmic.out;
  EXPECT_EQ(logarithmic.out.find("float16"), std::string::npos) << logarithmic.out;
  EXPECT_EQ(logarithmic.err.find("warning"), std::string::npos) << logarithmic.err;
  const std::string log_bytes = read_file(path("w.pbp"));
  const pbp::trainer::Model log_model =
      pbp::trainer::read_blob(std::vector<uint8_t>(log_bytes.begin(), log_bytes.end()));
  ASSERT_EQ(log_model.layer_storage.size(), 2u);
  EXPECT_EQ(log_model.layer_storage[0], pbp::format::Storage::int8);
  EXPECT_EQ(log_model.layer_storage[1], pbp::format::Storage::int8_log_variance);
  EXPECT_EQ(log_bytes.size(), all_int8.size());
  const RunResult log_verified = run_pbp({"verify", "--model", path("w.pbp"), "--reference",
                                          path("wide_erf.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(log_verified.exit_code, 0) << log_verified.out << log_verified.err;
}

// pbp verify --reference: a quantised blob against its float32 original, with the quantisation's
// tolerance; a blob that is not the original quantised is refused, not compared.
TEST_F(Quantize, VerifyAgainstTheFloat32Original) {
  write_file(path("train.csv"), regression_csv(60));
  train("6", "3", "5", "f32.pbp");
  train("6", "3", "6", "other.pbp");
  ASSERT_EQ(run_pbp({"quantize", path("f32.pbp"), "--storage", "int8", "--out", path("i8.pbp")})
                .exit_code,
            0);
  const RunResult verified = run_pbp({"verify", "--model", path("i8.pbp"), "--reference",
                                      path("f32.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("(quantisation tolerance 0.05)"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("tolerance 0.05: PASS"), std::string::npos) << verified.out;
  // Without the reference the int8 blob is verified against its own decoded weights: float
  // rounding and the kernel's int16 unit moments, within the int8 default 5e-3 but not 1e-5.
  const RunResult own = run_pbp({"verify", "--model", path("i8.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(own.exit_code, 0) << own.out;
  EXPECT_NE(own.out.find("tolerance 0.005: PASS"), std::string::npos) << own.out;
  EXPECT_EQ(run_pbp({"verify", "--model", path("i8.pbp"), "--data", path("train.csv"),
                     "--tolerance", "1e-7"})
                .exit_code,
            1);
  // Against the original the default tolerance sees the quantisation.
  EXPECT_EQ(run_pbp({"verify", "--model", path("i8.pbp"), "--reference", path("f32.pbp"), "--data",
                     path("train.csv"), "--tolerance", "1e-5"})
                .exit_code,
            1);
  // Every layer with logarithmic variance codes: the same checks, the same tolerances.
  ASSERT_EQ(
      run_pbp({"quantize", path("f32.pbp"), "--storage", "int8-logvar", "--out", path("lv.pbp")})
          .exit_code,
      0);
  const RunResult log_verified = run_pbp({"verify", "--model", path("lv.pbp"), "--reference",
                                          path("f32.pbp"), "--data", path("train.csv")});
  EXPECT_NE(log_verified.out.find("tolerance 0.05: PASS"), std::string::npos) << log_verified.out;
  const RunResult log_own =
      run_pbp({"verify", "--model", path("lv.pbp"), "--data", path("train.csv")});
  EXPECT_NE(log_own.out.find("tolerance 0.005: PASS"), std::string::npos) << log_own.out;
  const RunResult log_inspected = run_pbp({"inspect", path("lv.pbp")});
  EXPECT_NE(log_inspected.out.find("int8-logvar weights"), std::string::npos) << log_inspected.out;
  const RunResult other = run_pbp({"verify", "--model", path("i8.pbp"), "--reference",
                                   path("other.pbp"), "--data", path("train.csv")});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("is not " + path("other.pbp") + " quantised to int8"), std::string::npos)
      << other.err;
}

TEST_F(Quantize, BadArgumentsLeaveNothing) {
  const RunResult storage = run_pbp(
      {"quantize", kCorpus + "valid_tiny.pbp", "--storage", "int4", "--out", path("x.pbp")});
  EXPECT_EQ(storage.exit_code, 2);
  EXPECT_NE(storage.err.find("--storage must be float32, float16, int8 or int8-logvar"),
            std::string::npos);
  const RunResult fallback = run_pbp({"quantize", kCorpus + "valid_tiny.pbp", "--storage", "int8",
                                      "--out", path("x.pbp"), "--fallback", "int4"});
  EXPECT_EQ(fallback.exit_code, 2);
  EXPECT_NE(fallback.err.find("--fallback must be auto, float16 or none, got 'int4'"),
            std::string::npos)
      << fallback.err;
  const RunResult no_rows = run_pbp({"quantize", kCorpus + "valid_tiny.pbp", "--storage", "int8",
                                     "--out", path("x.pbp"), "--fallback", "none"});
  EXPECT_EQ(no_rows.exit_code, 2);
  EXPECT_NE(no_rows.err.find("--fallback applies to --storage int8 with --data"), std::string::npos)
      << no_rows.err;
  write_file(path("train.csv"), regression_csv(20));
  const RunResult float_training =
      run_pbp({"train", "--data", path("train.csv"), "--hidden", "4", "--epochs", "1", "--fallback",
               "none", "--out", path("x.pbp")});
  EXPECT_EQ(float_training.exit_code, 2);
  EXPECT_NE(float_training.err.find("--fallback applies to --storage int8"), std::string::npos)
      << float_training.err;
  const RunResult blob = run_pbp(
      {"quantize", kCorpus + "truncated.pbp", "--storage", "float16", "--out", path("x.pbp")});
  EXPECT_EQ(blob.exit_code, 1);
  EXPECT_NE(blob.err.find("invalid model blob"), std::string::npos) << blob.err;
  EXPECT_FALSE(std::filesystem::exists(path("x.pbp")));
}

}  // namespace
}  // namespace pbp::cli_test
