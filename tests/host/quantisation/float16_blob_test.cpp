// SPDX-License-Identifier: Apache-2.0
// float16 weight storage end to end: the writer's bytes, the trainer's reader, the runtime's
// validation and its float16 kernel (bit for bit the float32 kernel on the decoded weights).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "opened_blob.hpp"
#include "pbp/float16.hpp"
#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

namespace fmt = pbp::format;
using pbp::trainer::Model;
using Bytes = std::vector<uint8_t>;

using pbp_quantisation_test::Opened;

Model with_storage(Model model, fmt::Storage storage) {
  model.weight_storage = storage;
  return model;
}

double via_half(double value) {
  return fmt::half_to_float(fmt::float_to_half(static_cast<float>(value)));
}

TEST(Float16Blob, WriterStoresHalvesTheRuntimeOpens) {
  const Model model = pbp::test_fixtures::random_model(5, {16, 8}, 3);
  const Bytes f32 = pbp::trainer::write_blob(model);
  const Bytes f16 = pbp::trainer::write_blob(with_storage(model, fmt::Storage::float16));
  uint32_t weights = 0;
  for (const auto& layer : model.layers) weights += static_cast<uint32_t>(layer.mean.size());
  // Two bytes per value instead of four, each tensor padded to 4 bytes (at most 2 bytes each).
  EXPECT_GE(f16.size() + 4u * weights, f32.size());
  EXPECT_LE(f16.size() + 4u * weights, f32.size() + 2u * 2u * model.layers.size());
  const Opened opened(f16);
  ASSERT_EQ(opened.status, PBP_OK);
  EXPECT_EQ(opened.model.weight_count, weights);
  for (uint32_t l = 0; l < opened.model.layer_count; ++l) {
    const pbp_layer& layer = opened.model.layers[l];
    EXPECT_EQ(layer.storage, PBP_STORAGE_FLOAT16);
    EXPECT_EQ(layer.mean, nullptr);
    EXPECT_EQ(layer.variance, nullptr);
    const auto* means = static_cast<const uint16_t*>(layer.stored_mean);
    const auto* variances = static_cast<const uint16_t*>(layer.stored_variance);
    for (size_t i = 0; i < model.layers[l].mean.size(); ++i) {
      ASSERT_EQ(means[i], fmt::float_to_half(static_cast<float>(model.layers[l].mean[i])));
      ASSERT_EQ(variances[i], fmt::float_to_half(static_cast<float>(model.layers[l].variance[i])));
    }
  }
}

TEST(Float16Blob, ReaderDecodesAndRewritesTheSameBytes) {
  const Model model = pbp::test_fixtures::random_model(4, {12}, 5);
  const Bytes f16 = pbp::trainer::write_blob(with_storage(model, fmt::Storage::float16));
  const Model read = pbp::trainer::read_blob(f16);
  EXPECT_EQ(read.weight_storage, fmt::Storage::float16);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    for (size_t i = 0; i < model.layers[l].mean.size(); ++i) {
      ASSERT_EQ(read.layers[l].mean[i], via_half(model.layers[l].mean[i]));
      ASSERT_EQ(read.layers[l].variance[i], via_half(model.layers[l].variance[i]));
    }
  }
  EXPECT_EQ(pbp::trainer::write_blob(read), f16);
  // Quantising a float32 blob (read, then write as float16) gives the bytes of writing float16.
  const Model from_f32 = pbp::trainer::read_blob(pbp::trainer::write_blob(model));
  EXPECT_EQ(from_f32.weight_storage, fmt::Storage::float32);
  EXPECT_EQ(pbp::trainer::write_blob(with_storage(from_f32, fmt::Storage::float16)), f16);
}

TEST(Float16Blob, TinyVariancesBecomeTheSmallestHalfAndHugeWeightsAreRefused) {
  Model model = pbp::test_fixtures::random_model(2, {3}, 7);
  model.layers[0].variance[0] = 0.0;
  model.layers[0].variance[1] = 1e-12;  // below 2^-25: would round to 0
  const Bytes f16 = pbp::trainer::write_blob(with_storage(model, fmt::Storage::float16));
  const Opened opened(f16);
  ASSERT_EQ(opened.status, PBP_OK);
  const auto* variances = static_cast<const uint16_t*>(opened.model.layers[0].stored_variance);
  EXPECT_EQ(variances[0], 0x0001);
  EXPECT_EQ(variances[1], 0x0001);
  model.layers[1].mean[0] = 70000.0;  // finite in float32, not in float16
  EXPECT_THROW(pbp::trainer::write_blob(with_storage(model, fmt::Storage::float16)),
               std::invalid_argument);
}

// The float16 kernel's outputs are the float32 kernel's on the decoded weights, bit for bit:
// same terms in the same order, each half converted exactly.
TEST(Float16Blob, PredictionsEqualTheFloat32KernelOnDecodedWeights) {
  for (uint64_t seed : {11u, 12u, 13u}) {
    const Model model = pbp::test_fixtures::random_model(6, {20, 9}, seed);
    const Bytes f16 = pbp::trainer::write_blob(with_storage(model, fmt::Storage::float16));
    const Bytes decoded =
        pbp::trainer::write_blob(with_storage(pbp::trainer::read_blob(f16), fmt::Storage::float32));
    const Opened a(f16), b(decoded);
    ASSERT_EQ(a.status, PBP_OK);
    ASSERT_EQ(b.status, PBP_OK);
    std::vector<float> workspace(a.model.workspace_bytes / 4);
    std::mt19937_64 rng(seed);
    for (int row = 0; row < 50; ++row) {
      const std::vector<double> raw = pbp::test_fixtures::random_row(model, rng);
      const std::vector<float> x(raw.begin(), raw.end());
      pbp_prediction pa{}, pb{};
      ASSERT_EQ(
          pbp_predict(&a.model, x.data(), 6, 0.9f, workspace.data(), a.model.workspace_bytes, &pa),
          PBP_OK);
      ASSERT_EQ(
          pbp_predict(&b.model, x.data(), 6, 0.9f, workspace.data(), b.model.workspace_bytes, &pb),
          PBP_OK);
      ASSERT_EQ(std::memcmp(&pa, &pb, sizeof pa), 0) << "seed " << seed << " row " << row;
    }
  }
}

// And they differ from the float32 blob's by what rounding the weights to 11 significant bits
// does: relative 2^-11 per weight; the check is loose (2^-11 x 64 of the predictive std),
// the point being that the float16 layers are used at all and do not compute something else.
TEST(Float16Blob, PredictionsAreCloseToTheFloat32Blob) {
  const Model model = pbp::test_fixtures::random_model(6, {20}, 21);
  const Opened a(pbp::trainer::write_blob(with_storage(model, fmt::Storage::float16)));
  const Opened b(pbp::trainer::write_blob(model));
  std::vector<float> workspace(a.model.workspace_bytes / 4);
  std::mt19937_64 rng(4);
  bool any_difference = false;
  for (int row = 0; row < 50; ++row) {
    const std::vector<double> raw = pbp::test_fixtures::random_row(model, rng);
    const std::vector<float> x(raw.begin(), raw.end());
    pbp_prediction pa{}, pb{};
    ASSERT_EQ(
        pbp_predict(&a.model, x.data(), 6, 0.9f, workspace.data(), a.model.workspace_bytes, &pa),
        PBP_OK);
    ASSERT_EQ(
        pbp_predict(&b.model, x.data(), 6, 0.9f, workspace.data(), b.model.workspace_bytes, &pb),
        PBP_OK);
    EXPECT_LE(std::abs(pa.mean - pb.mean), 64.0 / 2048.0 * pb.std);
    EXPECT_LE(std::abs(pa.std - pb.std), 64.0 / 2048.0 * pb.std);
    any_difference = any_difference || pa.mean != pb.mean;
  }
  EXPECT_TRUE(any_difference);
}

}  // namespace
