// SPDX-License-Identifier: Apache-2.0
// The Laplace model's blob entry (input_laplace_scale): written, read back, refused when
// malformed, ignored by the runtime; `--prior laplace` on the command line and the input relevance
// `pbp inspect` derives from layer 0's weights.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ard_model.hpp"
#include "cli_helpers.hpp"
#include "pbp/format.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/input_relevance.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::cli_test {
namespace {

namespace fmt = pbp::format;
using trainer::LaplaceScale;

trainer::Model small_laplace_model() {
  return ard_test::small_input_prior_model(trainer::PriorMode::laplace);
}

std::span<const uint8_t> metadata_of(const pbp::Model& opened) {
  return {opened.view().metadata, opened.view().metadata_size};
}

using ard_test::reseal;

TEST(LaplaceBlob, ScaleRoundTripsAndTheRuntimeIgnoresIt) {
  const trainer::Model laplace = small_laplace_model();
  ASSERT_TRUE(laplace.input_laplace_scale.has_value());
  trainer::Model plain = laplace;
  plain.input_laplace_scale.reset();
  const std::vector<uint8_t> with = trainer::write_blob(laplace);
  const std::vector<uint8_t> without = trainer::write_blob(plain);
  EXPECT_EQ(with.size(),
            without.size() + fmt::metadata_entry::kHeaderSize + fmt::laplace_scale_record::kSize);
  pbp::Model a, b;
  ASSERT_EQ(a.open(with.data(), with.size()), PBP_OK);
  ASSERT_EQ(b.open(without.data(), without.size()), PBP_OK);
  const std::optional<LaplaceScale> scale = trainer::read_laplace_scale(metadata_of(a));
  ASSERT_TRUE(scale.has_value());
  EXPECT_EQ(scale->mean, static_cast<float>(laplace.input_laplace_scale->mean));
  EXPECT_EQ(scale->variance, static_cast<float>(laplace.input_laplace_scale->variance));
  EXPECT_FALSE(trainer::read_laplace_scale(metadata_of(b)).has_value());
  const trainer::Model read = trainer::read_blob(with);
  ASSERT_TRUE(read.input_laplace_scale.has_value());
  EXPECT_EQ(read.input_laplace_scale->mean, scale->mean);
  EXPECT_EQ(trainer::write_blob(read), with);  // the same bytes again

  trainer::Random random(4);
  std::vector<uint8_t> workspace(a.view().workspace_bytes);
  for (int row = 0; row < 20; ++row) {
    const float x[3] = {static_cast<float>(random.normal()), static_cast<float>(random.normal()),
                        static_cast<float>(random.normal())};
    pbp_prediction pa{}, pb{};
    ASSERT_EQ(a.predict(x, 3, 0.9f, workspace.data(), workspace.size(), &pa), PBP_OK);
    ASSERT_EQ(b.predict(x, 3, 0.9f, workspace.data(), workspace.size(), &pb), PBP_OK);
    EXPECT_EQ(std::memcmp(&pa, &pb, sizeof pa), 0) << row;
  }
}

TEST(LaplaceBlob, BadScalesAreRefused) {
  trainer::Model model = small_laplace_model();
  for (const LaplaceScale bad :
       {LaplaceScale{NAN, 1.0}, LaplaceScale{0.0, 0.0}, LaplaceScale{0.0, -1.0},
        LaplaceScale{1e300, 1.0}, LaplaceScale{0.0, 1e-300}}) {
    model.input_laplace_scale = bad;
    EXPECT_THROW(trainer::write_blob(model), std::invalid_argument)
        << bad.mean << " " << bad.variance;
  }
  const std::vector<uint8_t> seven(7, 0);
  EXPECT_THROW(trainer::decode_laplace_scale(seven), std::runtime_error);
  std::vector<uint8_t> value(8, 0);
  EXPECT_THROW(trainer::decode_laplace_scale(value), std::runtime_error);  // variance 0
  fmt::store_f32(value.data() + fmt::laplace_scale_record::kVariance, 0.5f);
  EXPECT_EQ(trainer::decode_laplace_scale(value).variance, 0.5);
  // Two entries: refused by the tools' reader.
  std::vector<uint8_t> twice(32, 0);
  for (size_t at : {size_t{0}, size_t{16}}) {
    fmt::store_u32(&twice[at + fmt::metadata_entry::kKey],
                   static_cast<uint32_t>(fmt::MetadataKey::input_laplace_scale));
    fmt::store_u32(&twice[at + fmt::metadata_entry::kLength], 8);
    fmt::store_f32(&twice[at + 8 + fmt::laplace_scale_record::kVariance], 0.5f);
  }
  EXPECT_THROW(trainer::read_laplace_scale(twice), std::runtime_error);
  twice.resize(16);
  EXPECT_EQ(trainer::read_laplace_scale(twice)->variance, 0.5);
}

// Each input's mean square over the hidden units, ranked; the bias column is not an input.
TEST(LaplaceBlob, WeightRelevanceRanksByMeanSquare) {
  // 2 units x (2 inputs + bias): input 0 E[w^2] = ((1 + 0.5) + (0 + 0.5)) / 2 = 1, input 1 = 4.5.
  const std::vector<float> mean{1.0f, 3.0f, 100.0f, 0.0f, -0.0f, 100.0f};
  const std::vector<float> variance{0.5f, 0.0f, 1.0f, 0.5f, 0.0f, 1.0f};
  const std::vector<trainer::WeightRelevance> r = trainer::weight_relevance(mean, variance, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].input, 1u);
  EXPECT_EQ(r[0].relevance, 1.0);
  EXPECT_EQ(r[0].mean_square, 4.5);
  EXPECT_EQ(r[1].input, 0u);
  EXPECT_EQ(r[1].mean_square, 1.0);
  EXPECT_EQ(r[1].relevance, 1.0 / 4.5);
  EXPECT_THROW(trainer::weight_relevance(mean, variance, 3), std::invalid_argument);
}

using LaplaceCli = CliTest;

TEST_F(LaplaceCli, TrainsAndInspectRanksTheInputsByName) {
  write_file(path("d.csv"), regression_csv(60, "size,rooms,price"));
  const RunResult trained = run_pbp({"train", "--data", path("d.csv"), "--out", path("l.pbp"),
                                     "--hidden", "8", "--epochs", "5", "--prior", "laplace"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const RunResult text = run_pbp({"inspect", path("l.pbp")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Laplace on those (below)"), std::string::npos) << text.out;
  const size_t table = text.out.find("input relevance (Laplace)");
  ASSERT_NE(table, std::string::npos) << text.out;
  for (const std::string row : {"\n  size ", "\n  rooms "}) {
    EXPECT_NE(text.out.find(row, table), std::string::npos) << row << " missing:\n" << text.out;
  }
  const RunResult json = run_pbp({"inspect", path("l.pbp"), "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const std::string key :
       {"\"input_relevance\": [{\"feature\": ", "\"laplace_scale\": {",
        "\"phi_variance\": ", "\"mean_square_weight\": ", "\"relevance\": 1}"}) {
    EXPECT_NE(json.out.find(key), std::string::npos) << key << " missing: " << json.out;
  }
  const RunResult ebp = run_pbp({"train", "--data", path("d.csv"), "--out", path("m.pbp"),
                                 "--prior", "laplace", "--algorithm", "ebp"});
  EXPECT_EQ(ebp.exit_code, 2);
  EXPECT_NE(ebp.err.find("--prior laplace goes with --algorithm pbp"), std::string::npos)
      << ebp.err;
}

// A float16 model's layers have no float pointers: inspect ranks its inputs from the decoded
// halves, the same ranking as the float32 model's up to the rounding.
TEST_F(LaplaceCli, InspectRanksTheInputsOfAFloat16Model) {
  write_file(path("d.csv"), regression_csv(60, "size,rooms,price"));
  const RunResult trained = run_pbp({"train", "--data", path("d.csv"), "--out", path("l.pbp"),
                                     "--hidden", "8", "--epochs", "5", "--prior", "laplace"});
  ASSERT_EQ(trained.exit_code, 0) << trained.err;
  const RunResult quantised =
      run_pbp({"quantize", path("l.pbp"), "--storage", "float16", "--out", path("h.pbp")});
  ASSERT_EQ(quantised.exit_code, 0) << quantised.err;
  const RunResult full = run_pbp({"inspect", path("l.pbp")});
  const RunResult half = run_pbp({"inspect", path("h.pbp")});
  ASSERT_EQ(half.exit_code, 0) << half.err;
  const auto ranking = [](const std::string& out) {
    const size_t table = out.find("input relevance (Laplace)");
    return std::make_pair(out.find("\n  size ", table), out.find("\n  rooms ", table));
  };
  const auto [size_full, rooms_full] = ranking(full.out);
  const auto [size_half, rooms_half] = ranking(half.out);
  ASSERT_NE(size_half, std::string::npos) << half.out;
  ASSERT_NE(rooms_half, std::string::npos) << half.out;
  EXPECT_EQ(size_full < rooms_full, size_half < rooms_half) << full.out << half.out;
}

TEST_F(LaplaceCli, InspectRefusesAMalformedEntryThatPredictionIgnores) {
  std::vector<uint8_t> blob = trainer::write_blob(small_laplace_model());
  pbp_model opened;
  ASSERT_EQ(pbp_open(&opened, blob.data(), blob.size()), PBP_OK);
  // The entry is the metadata's last (the writer's order): its variance the last 4 bytes.
  const size_t at = static_cast<size_t>(opened.metadata - blob.data()) + opened.metadata_size - 4;
  fmt::store_f32(&blob[at], -1.0f);
  reseal(blob);
  ASSERT_EQ(pbp_open(&opened, blob.data(), blob.size()), PBP_OK);
  write_file(path("bad.pbp"), std::string(blob.begin(), blob.end()));
  const RunResult inspect = run_pbp({"inspect", path("bad.pbp")});
  EXPECT_EQ(inspect.exit_code, 1);
  EXPECT_NE(inspect.err.find("invalid metadata: input_laplace_scale"), std::string::npos)
      << inspect.err;
}

}  // namespace
}  // namespace pbp::cli_test
