// SPDX-License-Identifier: Apache-2.0
// read_blob inverts write_blob: every field comes back rounded to float32, writing the result
// again gives the same bytes, for every task; a blob the runtime refuses is refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

using pbp::trainer::Model;
using pbp::trainer::Task;

void expect_float_rounded(const std::vector<double>& read, const std::vector<double>& written) {
  ASSERT_EQ(read.size(), written.size());
  for (size_t i = 0; i < read.size(); ++i) {
    ASSERT_EQ(read[i], static_cast<double>(static_cast<float>(written[i]))) << i;
  }
}

void expect_read_back(const Model& model) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  const Model read = pbp::trainer::read_blob(blob);
  EXPECT_EQ(read.task, model.task);
  ASSERT_EQ(read.layers.size(), model.layers.size());
  for (size_t l = 0; l < model.layers.size(); ++l) {
    EXPECT_EQ(read.layers[l].inputs, model.layers[l].inputs);
    EXPECT_EQ(read.layers[l].outputs, model.layers[l].outputs);
    EXPECT_EQ(read.layers[l].activation, model.layers[l].activation);
    expect_float_rounded(read.layers[l].mean, model.layers[l].mean);
    expect_float_rounded(read.layers[l].variance, model.layers[l].variance);
  }
  expect_float_rounded({read.noise.a, read.noise.b, read.prior.a, read.prior.b},
                       {model.noise.a, model.noise.b, model.prior.a, model.prior.b});
  expect_float_rounded(read.standardisation.input_mean, model.standardisation.input_mean);
  expect_float_rounded(read.standardisation.input_std, model.standardisation.input_std);
  expect_float_rounded({read.standardisation.target_mean, read.standardisation.target_std},
                       {model.standardisation.target_mean, model.standardisation.target_std});
  EXPECT_EQ(read.metadata.name, model.metadata.name);
  EXPECT_EQ(read.metadata.target_name, model.metadata.target_name);
  EXPECT_EQ(read.metadata.notes, model.metadata.notes);
  EXPECT_EQ(read.metadata.training_rows, model.metadata.training_rows);
  EXPECT_EQ(read.metadata.feature_names, model.metadata.feature_names);
  ASSERT_EQ(read.input_priors.size(), model.input_priors.size());
  for (size_t i = 0; i < model.input_priors.size(); ++i) {
    expect_float_rounded({read.input_priors[i].a, read.input_priors[i].b},
                         {model.input_priors[i].a, model.input_priors[i].b});
  }
  EXPECT_EQ(pbp::trainer::write_blob(read), blob);
}

TEST(BlobReader, ReadsBackWhatWasWritten) {
  expect_read_back(pbp::test_fixtures::random_model(4, {7}, 1));
  expect_read_back(pbp::test_fixtures::random_model(13, {50, 20}, 2));
  expect_read_back(pbp::test_fixtures::random_model(5, {}, 3));
}

TEST(BlobReader, ArdInputPriors) {
  Model model = pbp::test_fixtures::random_model(4, {7}, 5);
  for (uint32_t i = 0; i <= model.input_count(); ++i)
    model.input_priors.push_back({2.0 + i, 0.3 * i + 0.1});
  expect_read_back(model);
}

TEST(BlobReader, EveryTaskAndNoMetadata) {
  for (const Task task : {Task::binary, Task::multiclass, Task::count}) {
    Model model = pbp::test_fixtures::random_model(3, {6}, 10 + static_cast<uint64_t>(task));
    model.task = task;
    model.metadata = {};
    if (task == Task::multiclass) {
      pbp::trainer::Layer& last = model.layers.back();
      last.outputs = 4;
      last.mean.assign(4 * last.row_length(), 0.25);
      last.variance.assign(last.mean.size(), 0.125);
    }
    expect_read_back(model);
  }
}

TEST(BlobReader, RefusesWhatTheRuntimeRefuses) {
  std::vector<uint8_t> blob = pbp::trainer::write_blob(pbp::test_fixtures::random_model(2, {3}, 4));
  blob[blob.size() / 2] ^= 0x10;  // the CRC no longer matches
  EXPECT_THROW(pbp::trainer::read_blob(blob), std::invalid_argument);
  EXPECT_THROW(pbp::trainer::read_blob(std::vector<uint8_t>(8, 0)), std::invalid_argument);
  blob.resize(blob.size() - 1);
  EXPECT_THROW(pbp::trainer::read_blob(blob), std::invalid_argument);
}

}  // namespace
