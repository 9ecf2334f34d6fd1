// SPDX-License-Identifier: Apache-2.0
// The learner's contract: all or nothing, skipped weights, predictions and write-back.
#include <gtest/gtest.h>

#include <cstring>

#include "learn_fixture.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/int8_unit_scales.hpp"
#include "pbp/trainer/likelihood.hpp"

namespace pbp_learn_test {
namespace {

// The learner and its state, byte for byte.
std::vector<uint8_t> snapshot(const Learner& l) {
  std::vector<uint8_t> bytes(sizeof(pbp_learner) + l.state.size() * 4);
  std::memcpy(bytes.data(), &l.learner, sizeof(pbp_learner));
  std::memcpy(bytes.data() + sizeof(pbp_learner), l.state.data(), l.state.size() * 4);
  return bytes;
}

void feed(Learner& l, Task task, size_t rows, uint64_t seed) {
  const Dataset data = synthetic(task, rows, seed);
  for (size_t r = 0; r < rows; ++r) {
    const float x[3] = {float(data.row(r)[0]), float(data.row(r)[1]), float(data.row(r)[2])};
    ASSERT_EQ(l.update(x, float(data.y[r])), PBP_OK);
  }
}

TEST(LearnState, RejectedUpdatesLeaveTheLearnerByteIdentical) {
  for (Task task : {Task::regression, Task::binary}) {
    Learner l(write_blob(small_model(task)));
    feed(l, task, 20, 5);
    const std::vector<uint8_t> before = snapshot(l);
    const float nan = std::nanf(""), inf = INFINITY;
    const float good[3] = {0.1f, 0.2f, 0.3f};
    const float with_nan[3] = {0.1f, nan, 0.3f};
    const float with_inf[3] = {inf, 0.2f, 0.3f};
    const float huge[3] = {3e38f, -3e38f, 3e38f};  // finite, but the moments overflow
    auto expect = [&](pbp_status got, pbp_status want, const char* what) {
      EXPECT_EQ(got, want) << what;
      EXPECT_TRUE(snapshot(l) == before) << what << ": the learner changed";
    };
    expect(l.update(with_nan, 0.0f), PBP_ERR_NONFINITE_INPUT, "NaN input");
    expect(l.update(with_inf, 0.0f), PBP_ERR_NONFINITE_INPUT, "infinite input");
    expect(l.update(good, nan), PBP_ERR_BAD_TARGET, "NaN target");
    expect(l.update(good, -inf), PBP_ERR_BAD_TARGET, "infinite target");
    expect(l.update(huge, 1.0f), PBP_ERR_NONFINITE_OUTPUT, "overflowing moments");
    if (task == Task::binary) {
      expect(l.update(good, 0.5f), PBP_ERR_BAD_TARGET, "label 0.5");
      expect(l.update(good, 2.0f), PBP_ERR_BAD_TARGET, "label 2");
      expect(l.update(good, -1.0f), PBP_ERR_BAD_TARGET, "label -1");
    }
    expect(pbp_learn_update(&l.learner, good, 2, 0.0f, l.workspace.data(), l.workspace.size() * 4,
                            nullptr),
           PBP_ERR_INPUT_WIDTH, "input width");
    expect(pbp_learn_update(&l.learner, good, 3, 0.0f, l.workspace.data(),
                            l.learner.workspace_bytes - 4, nullptr),
           PBP_ERR_WORKSPACE_TOO_SMALL, "workspace");
    expect(pbp_learn_update(&l.learner, good, 3, 0.0f,
                            reinterpret_cast<uint8_t*>(l.workspace.data()) + 1,
                            l.workspace.size() * 4 - 1, nullptr),
           PBP_ERR_MISALIGNED_POINTER, "misaligned workspace");
    expect(pbp_learn_update(&l.learner, nullptr, 3, 0.0f, l.workspace.data(),
                            l.workspace.size() * 4, nullptr),
           PBP_ERR_NULL_ARGUMENT, "null input");
    // And an accepted one does change it (the snapshot can tell).
    EXPECT_EQ(l.update(good, 1.0f), PBP_OK);
    EXPECT_FALSE(snapshot(l) == before);
  }
}

TEST(LearnState, InitChecksItsArguments) {
  const std::vector<uint8_t> bytes = write_blob(small_model(Task::regression));
  Blob blob(bytes);
  pbp_model model{};
  ASSERT_EQ(pbp_open(&model, blob.data(), blob.size), PBP_OK);
  pbp_learner learner;
  std::vector<float> state(PBP_LEARN_STATE_BYTES(model.weight_count) / 4);
  EXPECT_EQ(pbp_learn_init(&learner, &model, state.data(), state.size() * 4 - 1),
            PBP_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(pbp_learn_init(&learner, &model, reinterpret_cast<uint8_t*>(state.data()) + 2,
                           state.size() * 4),
            PBP_ERR_MISALIGNED_POINTER);
  pbp_model closed{};
  EXPECT_EQ(pbp_learn_init(&learner, &closed, state.data(), state.size() * 4),
            PBP_ERR_MODEL_NOT_OPEN);
  EXPECT_EQ(learner.learn_marker, 0u);  // a failed init leaves nothing usable
  const float x[3] = {0, 0, 0};
  std::vector<float> work(1000);
  EXPECT_EQ(pbp_learn_update(&learner, x, 3, 0.0f, work.data(), work.size() * 4, nullptr),
            PBP_ERR_MODEL_NOT_OPEN);
  TrainOptions options;
  options.task = Task::multiclass;
  options.hidden = {4};
  options.epochs = 1;
  Dataset data = synthetic(Task::binary, 30, 2);
  for (size_t i = 0; i < data.rows; ++i) data.y[i] = static_cast<double>(i % 3);
  Blob multiclass(write_blob(train(data, options)));
  ASSERT_EQ(pbp_open(&model, multiclass.data(), multiclass.size), PBP_OK);
  state.resize(PBP_LEARN_STATE_BYTES(model.weight_count) / 4);
  EXPECT_EQ(pbp_learn_init(&learner, &model, state.data(), state.size() * 4), PBP_ERR_WRONG_TASK);
  EXPECT_STREQ(pbp_status_name(PBP_ERR_BAD_TARGET), "PBP_ERR_BAD_TARGET");
  EXPECT_STREQ(pbp_status_name(PBP_ERR_BUFFER_TOO_SMALL), "PBP_ERR_BUFFER_TOO_SMALL");
}

// A weight whose update would leave a non-positive variance keeps its moments, as the trainer's:
// a model made very uncertain (variances 4) meets a target 30 stds away.
TEST(LearnState, SkipsTheWeightsTheTrainerSkips) {
  Model model = small_model(Task::regression);
  for (Layer& layer : model.layers) std::fill(layer.variance.begin(), layer.variance.end(), 4.0);
  const std::vector<uint8_t> bytes = write_blob(model);
  Learner l(bytes);
  Model host = read_blob(bytes);
  TrainOptions options;
  std::unique_ptr<Likelihood> likelihood = make_likelihood(options, 0, &host.noise, 1);
  AdfWorkspace ws(host.layers);
  const std::vector<float> before = l.state;
  const float x[3] = {0.5f, 1.0f, -1.0f};
  const float y = 30.0f * model.standardisation.target_std;
  pbp_learn_outcome outcome{};
  ASSERT_EQ(l.update(x, y, &outcome), PBP_OK);
  double xs[3];
  for (int k = 0; k < 3; ++k) {
    xs[k] = (x[k] - host.standardisation.input_mean[k]) / host.standardisation.input_std[k];
  }
  const AdfOutcome want =
      adf_update(host.layers, *likelihood, xs,
                 (y - host.standardisation.target_mean) / host.standardisation.target_std, ws);
  EXPECT_GT(outcome.skipped_weights, 0u);
  EXPECT_EQ(outcome.skipped_weights, want.rejected_weights);
  // Each skipped weight kept its bits; every variance is still positive and finite.
  uint32_t unchanged = 0;
  for (size_t i = 0; i < before.size(); ++i) unchanged += before[i] == l.state[i];
  EXPECT_GE(unchanged, 2 * outcome.skipped_weights);
  for (uint32_t layer = 0; layer < l.learner.model.layer_count; ++layer) {
    const pbp_layer& w = l.learner.model.layers[layer];
    for (uint32_t i = 0; i < w.outputs * (w.inputs + 1); ++i) {
      EXPECT_GT(w.variance[i], 0.0f);
      EXPECT_TRUE(std::isfinite(w.variance[i]) && std::isfinite(w.mean[i]));
    }
  }
}

// The state predicts as a blob does, and writes out as one: pbp_open accepts it, it predicts the
// same bits, and a learner started from it holds the same state.
void check_write_back(format::Storage storage, Activation activation) {
  Model trained = small_model(Task::regression, activation, storage);
  Learner l(write_blob(trained));
  feed(l, Task::regression, 30, 8);
  std::vector<uint32_t> out(l.learner.blob_bytes / 4 + 1);
  size_t written = 0;
  EXPECT_EQ(pbp_learn_write_blob(&l.learner, out.data(), l.learner.blob_bytes - 1, &written),
            PBP_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(written, 0u);
  ASSERT_EQ(pbp_learn_write_blob(&l.learner, out.data(), out.size() * 4, &written), PBP_OK);
  ASSERT_EQ(written, l.learner.blob_bytes);
  if (storage == format::Storage::float32) {  // the same layout, and the learn_check section
    EXPECT_EQ(written, ((l.blob.size - 4 + format::section_entry::kSize + 3) & ~size_t{3}) +
                           format::learn_check::kSize + 4);
  }
  pbp_model reopened{};
  ASSERT_EQ(pbp_open(&reopened, out.data(), written), PBP_OK);
  EXPECT_EQ(reopened.noise_a, l.learner.model.noise_a);
  EXPECT_EQ(reopened.noise_b, l.learner.model.noise_b);
  EXPECT_EQ(reopened.layers[0].storage, uint32_t{PBP_STORAGE_FLOAT32});
  const Dataset rows = synthetic(Task::regression, 20, 9);
  for (size_t r = 0; r < rows.rows; ++r) {
    const float x[3] = {float(rows.row(r)[0]), float(rows.row(r)[1]), float(rows.row(r)[2])};
    pbp_prediction a, b;
    ASSERT_EQ(pbp_predict(&l.learner.model, x, 3, 0.9f, l.predict_workspace.data(),
                          l.predict_workspace.size() * 4, &a),
              PBP_OK);
    ASSERT_EQ(pbp_predict(&reopened, x, 3, 0.9f, l.predict_workspace.data(),
                          l.predict_workspace.size() * 4, &b),
              PBP_OK);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "row " << r;
  }
  Learner again(std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(out.data()),
                                     reinterpret_cast<const uint8_t*>(out.data()) + written));
  EXPECT_TRUE(again.state == l.state);
  EXPECT_EQ(again.learner.blob_bytes, written);  // float32 now: written back at its own size
}

TEST(LearnState, WriteBackOpensAndPredictsAsTheState) {
  check_write_back(format::Storage::float32, Activation::relu);
  check_write_back(format::Storage::float32, Activation::erf);
  check_write_back(format::Storage::float32, Activation::sign);
}

TEST(LearnState, Float16BlobIsWidenedAndWrittenBackAsFloat32) {
  check_write_back(format::Storage::float16, Activation::relu);
}

TEST(LearnState, Int8BlobIsDecodedAndWrittenBackAsFloat32) {
  check_write_back(format::Storage::int8, Activation::relu);
}

// Logarithmic variance codes decode to the trainer's exact values rounded once to float.
TEST(LearnState, LogVarianceBlobIsDecodedAndWrittenBackAsFloat32) {
  check_write_back(format::Storage::int8_log_variance, Activation::relu);
  const std::vector<uint8_t> bytes = write_blob(
      small_model(Task::regression, Activation::relu, format::Storage::int8_log_variance));
  const Learner l(bytes);
  const Model decoded = read_blob(bytes);
  for (uint32_t layer = 0; layer < l.learner.model.layer_count; ++layer) {
    const pbp_layer& w = l.learner.model.layers[layer];
    for (uint32_t i = 0; i < w.outputs * (w.inputs + 1); ++i) {
      EXPECT_EQ(w.variance[i], static_cast<float>(decoded.layers[layer].variance[i])) << i;
      EXPECT_EQ(w.mean[i], static_cast<float>(decoded.layers[layer].mean[i])) << i;
    }
  }
}

// The int8 writer may rescale ReLU units by powers of two (int8_unit_scales.hpp); learning on
// the device from the rescaled network is the rescaled learning, bit for bit (runtime/FORMAT.md).
TEST(LearnState, RescaledUnitsLearnTheRescaledUpdate) {
  const Model trained = read_blob(write_blob(small_model(Task::regression)));
  pbp::trainer::UnitExponents exponents(trained.layers.size());
  for (size_t l = 0; l < trained.layers.size(); ++l) {
    for (uint32_t j = 0; j < trained.layers[l].outputs; ++j) {
      exponents[l].push_back(l + 1 < trained.layers.size() ? int(j % 7) - 3 : 0);
    }
  }
  Model rescaled = trained;
  pbp::trainer::rescale_units(rescaled, exponents);
  Learner plain(write_blob(trained)), scaled(write_blob(rescaled));
  feed(plain, Task::regression, 30, 8);
  feed(scaled, Task::regression, 30, 8);
  const auto written = [](const Learner& l) {
    std::vector<uint32_t> out(l.learner.blob_bytes / 4 + 1);
    size_t size = 0;
    EXPECT_EQ(pbp_learn_write_blob(&l.learner, out.data(), out.size() * 4, &size), PBP_OK);
    const uint8_t* bytes = reinterpret_cast<const uint8_t*>(out.data());
    return read_blob(std::vector<uint8_t>(bytes, bytes + size));
  };
  Model learned = written(plain);
  pbp::trainer::rescale_units(learned, exponents);
  const Model learned_rescaled = written(scaled);
  for (size_t l = 0; l < learned.layers.size(); ++l) {
    EXPECT_EQ(learned.layers[l].mean, learned_rescaled.layers[l].mean) << "layer " << l;
    EXPECT_EQ(learned.layers[l].variance, learned_rescaled.layers[l].variance) << "layer " << l;
  }
  EXPECT_EQ(learned.noise.a, learned_rescaled.noise.a);
  EXPECT_EQ(learned.noise.b, learned_rescaled.noise.b);
}

// The C++ wrapper is the C API.
TEST(LearnState, CppLearner) {
  const std::vector<uint8_t> bytes = write_blob(small_model(Task::binary));
  Blob blob(bytes);
  pbp::Model model;
  ASSERT_EQ(model.open(blob.data(), blob.size), PBP_OK);
  pbp::Learner learner;
  std::vector<float> state(pbp::learn_state_bytes(model.view().weight_count) / 4);
  ASSERT_EQ(learner.init(model, state.data(), state.size() * 4), PBP_OK);
  std::vector<float> work(pbp::learn_workspace_bytes(3, 11) / 4);
  EXPECT_EQ(learner.workspace_bytes(), work.size() * 4);
  const float x[3] = {0.5f, 1.0f, 1.0f};
  EXPECT_EQ(learner.update(x, 3, 1.0f, work.data(), work.size() * 4), PBP_OK);
  EXPECT_EQ(learner.updates(), 1u);
  float p[2];
  pbp_class_result c;
  std::vector<float> pw(model.workspace_bytes() / 4);
  EXPECT_EQ(learner.predict_classes(x, 3, pw.data(), pw.size() * 4, p, 2, &c), PBP_OK);
}

}  // namespace
}  // namespace pbp_learn_test
