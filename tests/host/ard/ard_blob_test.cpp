// SPDX-License-Identifier: Apache-2.0
// The input_prior_precision metadata entry: written by the blob writer, read back by the tools,
// refused when malformed, and ignored by the runtime, which opens and predicts exactly as without.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "ard_model.hpp"
#include "pbp/format.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/input_relevance.hpp"

namespace pbp::ard_test {
namespace {

namespace fmt = pbp::format;
using trainer::Gamma;
using trainer::read_input_priors;

std::span<const uint8_t> metadata_of(const pbp::Model& opened) {
  return {opened.view().metadata, opened.view().metadata_size};
}

TEST(ArdBlob, InputPriorsRoundTripAndTheRuntimeIgnoresThem) {
  const trainer::Model ard = small_ard_model();
  ASSERT_EQ(ard.input_priors.size(), 4u);
  trainer::Model shared = ard;
  shared.input_priors.clear();
  const std::vector<uint8_t> with = trainer::write_blob(ard);
  const std::vector<uint8_t> without = trainer::write_blob(shared);
  EXPECT_EQ(with.size(),
            without.size() + fmt::metadata_entry::kHeaderSize + 4 * fmt::input_prior_record::kSize);

  pbp::Model a, b;
  ASSERT_EQ(a.open(with.data(), with.size()), PBP_OK);
  ASSERT_EQ(b.open(without.data(), without.size()), PBP_OK);
  const std::optional<std::vector<Gamma>> priors = read_input_priors(metadata_of(a), 3);
  ASSERT_TRUE(priors.has_value());
  ASSERT_EQ(priors->size(), 4u);
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(priors->at(k).a, static_cast<float>(ard.input_priors[k].a)) << k;
    EXPECT_EQ(priors->at(k).b, static_cast<float>(ard.input_priors[k].b)) << k;
  }
  EXPECT_FALSE(read_input_priors(metadata_of(b), 3).has_value());
  EXPECT_EQ(a.view().feature_name_count, 3u);

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

TEST(ArdBlob, WriterRefusesPriorsThatDoNotFit) {
  trainer::Model model = small_ard_model();
  model.input_priors.pop_back();
  EXPECT_THROW(trainer::write_blob(model), std::invalid_argument);
  model = small_ard_model();
  model.input_priors[1].a = 1.0 + 1e-12;  // > 1 in double, 1 in float32: no finite b/(a-1)
  EXPECT_THROW(trainer::write_blob(model), std::invalid_argument);
  model.input_priors[1] = {3.0, 0.0};
  EXPECT_THROW(trainer::write_blob(model), std::invalid_argument);
  model.input_priors[1] = {3.0, 1e300};
  EXPECT_THROW(trainer::write_blob(model), std::invalid_argument);
}

// A metadata section of hand-made entries {key, length, value}.
std::vector<uint8_t> entries(const std::vector<std::pair<uint32_t, std::vector<float>>>& list) {
  std::vector<uint8_t> bytes;
  for (const auto& [key, values] : list) {
    const size_t at = bytes.size();
    bytes.resize(at + 8 + 4 * values.size());
    fmt::store_u32(&bytes[at], key);
    fmt::store_u32(&bytes[at + 4], static_cast<uint32_t>(4 * values.size()));
    for (size_t i = 0; i < values.size(); ++i) fmt::store_f32(&bytes[at + 8 + 4 * i], values[i]);
  }
  return bytes;
}

constexpr uint32_t kPriors = static_cast<uint32_t>(fmt::MetadataKey::input_prior_precision);

TEST(ArdBlob, ReaderRefusesMalformedEntries) {
  const std::vector<float> good{2.0f, 1.0f, 3.0f, 0.5f, 4.0f, 2.0f};  // 2 inputs and the bias
  const auto read = [](const std::vector<uint8_t>& bytes) { return read_input_priors(bytes, 2); };
  const std::optional<std::vector<Gamma>> ok = read(entries({{99, {1.0f}}, {kPriors, good}}));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->at(1).a, 3.0);
  EXPECT_EQ(ok->at(2).b, 2.0);
  EXPECT_THROW(read(entries({{kPriors, {2.0f, 1.0f, 3.0f, 0.5f}}})), std::runtime_error);
  EXPECT_THROW(read(entries({{kPriors, good}, {kPriors, good}})), std::runtime_error);
  for (const size_t field : {0u, 3u}) {
    for (const float bad : {1.0f, 0.0f, -2.0f, NAN, INFINITY}) {
      std::vector<float> values = good;
      values[field] = bad;
      if (field == 3 && bad == 1.0f) continue;  // b = 1 is a valid rate
      EXPECT_THROW(read(entries({{kPriors, values}})), std::runtime_error) << field << " " << bad;
    }
  }
  std::vector<uint8_t> overlong = entries({{kPriors, good}});
  fmt::store_u32(&overlong[4], 1000);
  EXPECT_THROW(read(overlong), std::runtime_error);
  fmt::store_u32(&overlong[4], 0xFFFFFFFFu);  // the padding must not wrap around
  EXPECT_THROW(read(overlong), std::runtime_error);
  EXPECT_THROW(read({1, 0, 0, 0}), std::runtime_error);  // a header cut short
}

// The runtime does not read the entry: a blob with a malformed one still opens (pbp inspect
// reports it; see ard_cli_test.cpp).
TEST(ArdBlob, RuntimeOpensABlobWithAMalformedEntry) {
  std::vector<uint8_t> blob = trainer::write_blob(small_ard_model());
  pbp::Model opened;
  ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
  const size_t entry = static_cast<size_t>(opened.view().metadata_size) - 8 - 32;
  const size_t at = static_cast<size_t>(opened.view().metadata - blob.data()) + entry;
  ASSERT_EQ(fmt::load_u32(&blob[at]), kPriors);
  fmt::store_f32(&blob[at + 8 + fmt::input_prior_record::kA], 0.5f);
  reseal(blob);
  ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
  EXPECT_THROW(read_input_priors(metadata_of(opened), 3), std::runtime_error);
}

}  // namespace
}  // namespace pbp::ard_test
