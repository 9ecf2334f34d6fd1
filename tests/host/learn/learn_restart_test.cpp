// SPDX-License-Identifier: Apache-2.0
// The learn_check section: a learner that writes its blob, restarts from it (a power cut: only the
// blob survives) and goes on gives the same bits as one that never stopped, for every storage
// type and task the learner takes, re-fit on or off; and pbp_open rejects a malformed section.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "learn_fixture.hpp"
#include "pbp/format.hpp"
#include "pbp/pbp_store.h"

namespace pbp_learn_test {
namespace {

namespace fmt = pbp::format;

std::vector<uint8_t> written_blob(const pbp_learner& learner) {
  std::vector<uint32_t> out(learner.blob_bytes / 4 + 1);
  size_t size = 0;
  if (pbp_learn_write_blob(&learner, out.data(), out.size() * 4, &size) != PBP_OK) {
    throw std::runtime_error("write");
  }
  std::vector<uint8_t> bytes(size);
  std::memcpy(bytes.data(), out.data(), size);
  return bytes;
}

void learn(Learner& l, const Dataset& data, size_t first, size_t last) {
  for (size_t r = first; r < last; ++r) {
    float x[3];
    for (int k = 0; k < 3; ++k) x[k] = static_cast<float>(data.row(r)[k]);
    ASSERT_EQ(l.update(x, static_cast<float>(data.y[r])), PBP_OK) << "row " << r;
  }
}

void expect_same_learner(const Learner& a, const Learner& b) {
  ASSERT_EQ(a.state.size(), b.state.size());
  EXPECT_EQ(std::memcmp(a.state.data(), b.state.data(), a.state.size() * 4), 0) << "state";
  EXPECT_EQ(std::memcmp(&a.learner.check, &b.learner.check, sizeof(pbp_learn_check)), 0) << "check";
  EXPECT_EQ(bits(a.learner.update_noise_a), bits(b.learner.update_noise_a));
  EXPECT_EQ(bits(a.learner.update_noise_b), bits(b.learner.update_noise_b));
  EXPECT_EQ(bits(a.learner.model.noise_a), bits(b.learner.model.noise_a));
  EXPECT_EQ(bits(a.learner.model.noise_b), bits(b.learner.model.noise_b));
  EXPECT_EQ(bits(a.learner.model.epistemic_scale), bits(b.learner.model.epistemic_scale));
  EXPECT_EQ(a.learner.recalibrate, b.learner.recalibrate);
}

// Learns 160 rows straight, and again with a restart from the written blob after `restart_row`
// rows (and a second one 50 rows later, from a blob that already has the section).
void check_restart(const Model& model, size_t restart_row, bool refit) {
  const Dataset data = synthetic(model.task, 160, 21);
  const std::vector<uint8_t> source = write_blob(model);
  Learner straight(source);
  ASSERT_EQ(pbp_learn_set_recalibration(&straight.learner, refit ? 1u : 0u), PBP_OK);
  learn(straight, data, 0, data.rows);

  auto first = std::make_unique<Learner>(source);
  ASSERT_EQ(pbp_learn_set_recalibration(&first->learner, refit ? 1u : 0u), PBP_OK);
  learn(*first, data, 0, restart_row);
  const std::vector<uint8_t> saved = written_blob(first->learner);
  first.reset();  // the power cut
  Learner second(saved);
  learn(second, data, restart_row, restart_row + 50);
  const std::vector<uint8_t> saved_again = written_blob(second.learner);
  EXPECT_EQ(saved_again.size(), saved.size()) << "a blob with the section keeps its size";
  Learner third(saved_again);
  learn(third, data, restart_row + 50, data.rows);
  expect_same_learner(straight, third);
  EXPECT_TRUE(written_blob(straight.learner) == written_blob(third.learner)) << "written blobs";
}

Model scaled(format::Storage storage) {
  Model model = small_model(Task::regression, Activation::relu, storage);
  model.epistemic_scale = 3.0;
  return model;
}

TEST(LearnRestart, ScaledFloat32GoesOnBitForBit) {
  check_restart(scaled(format::Storage::float32), 20, true);  // before the first re-fit
  check_restart(scaled(format::Storage::float32), 40, true);  // after it
}

TEST(LearnRestart, ScaledFloat16AndInt8GoOnBitForBit) {
  check_restart(scaled(format::Storage::float16), 40, true);
  check_restart(scaled(format::Storage::int8), 40, true);
}

TEST(LearnRestart, RefitOffStaysOff) {
  check_restart(scaled(format::Storage::float32), 40, false);
  Learner l(write_blob(scaled(format::Storage::float32)));
  ASSERT_EQ(pbp_learn_set_recalibration(&l.learner, 0u), PBP_OK);
  Learner restarted(written_blob(l.learner));
  EXPECT_EQ(restarted.learner.recalibrate, 0u);
}

TEST(LearnRestart, UnscaledRegressionAndBinaryGoOnBitForBit) {
  check_restart(small_model(Task::regression), 40, false);
  check_restart(small_model(Task::binary), 40, false);
}

// The written blob: one more section entry and the 180-byte section after the body; a blob
// without it (every blob of pbp train) still starts a learner with an empty check.
TEST(LearnRestart, SectionLayout) {
  const std::vector<uint8_t> source = write_blob(scaled(format::Storage::float32));
  Learner l(source);
  EXPECT_EQ(l.learner.check.rows, 0u);
  EXPECT_EQ(l.learner.blob_bytes,
            ((source.size() - 4 + fmt::section_entry::kSize + 3) & ~size_t{3}) +
                fmt::learn_check::kSize + 4);
  const std::vector<uint8_t> out = written_blob(l.learner);
  const uint32_t count = fmt::load_u32(&out[fmt::header::kSectionCount]);
  EXPECT_EQ(count, fmt::load_u32(&source[fmt::header::kSectionCount]) + 1);
  const uint8_t* entry = &out[fmt::header::kSize + (count - 1) * fmt::section_entry::kSize];
  EXPECT_EQ(fmt::load_u32(entry + fmt::section_entry::kType),
            static_cast<uint32_t>(fmt::SectionType::learn_check));
  EXPECT_EQ(fmt::load_u32(entry + fmt::section_entry::kFlags), 0u);  // optional
  EXPECT_EQ(fmt::load_u32(entry + fmt::section_entry::kLength), fmt::learn_check::kSize);
  EXPECT_EQ(fmt::load_u32(entry + fmt::section_entry::kOffset) + fmt::learn_check::kSize + 4,
            out.size());
}

// A RAM flash for pbp_store (NOR: erase to 0xFF, program clears bits), one page per 256 bytes.
struct RamFlash {
  std::vector<uint8_t> bytes;
  pbp_flash flash{this, read, erase, program, 256, 4};
  explicit RamFlash(size_t size) : bytes(size, 0xFF) {}
  static int read(void* c, uint32_t at, void* out, uint32_t n) {
    std::memcpy(out, &static_cast<RamFlash*>(c)->bytes[at], n);
    return 0;
  }
  static int erase(void* c, uint32_t at) {
    std::memset(&static_cast<RamFlash*>(c)->bytes[at], 0xFF, 256);
    return 0;
  }
  static int program(void* c, uint32_t at, const void* data, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i)
      static_cast<RamFlash*>(c)->bytes[at + i] &= static_cast<const uint8_t*>(data)[i];
    return 0;
  }
};

// pbp_learn_init checks the section: each field out of range, or another length, is refused
// (learner zeroed, state untouched); pbp_open skips it, and the model predicts the same bits;
// pbp_store_save_blob refuses to persist it (a learning firmware would not start from it) and
// leaves the flash as it was.
TEST(LearnRestart, MalformedSectionsAreRejected) {
  Learner l(write_blob(scaled(format::Storage::float32)));
  learn(l, synthetic(Task::regression, 40, 22), 0, 40);
  const std::vector<uint8_t> good = written_blob(l.learner);
  const uint32_t count = fmt::load_u32(&good[fmt::header::kSectionCount]);
  const uint32_t entry = fmt::header::kSize + (count - 1) * fmt::section_entry::kSize;
  const uint32_t at = fmt::load_u32(&good[entry + fmt::section_entry::kOffset]);
  namespace layout = fmt::learn_check;
  struct Edit {
    uint32_t offset;
    uint32_t value;
  };
  const Edit edits[] = {
      {at + layout::kUpdateNoiseA, bits(1.0f)},
      {at + layout::kUpdateNoiseB, bits(-1.0f)},
      {at + layout::kUpdateNoiseB, 0x7f800000u},
      {at + layout::kFlags, 2u},
      {at + layout::kRows, 0u},  // rows 0 with a window
      {at + layout::kWindow, bits(128.5f)},
      {at + layout::kWindow, bits(-1.0f)},
      {at + layout::kMeanLoglik, 0x7fc00000u},
      {at + layout::kMeanZ2, bits(-0.5f)},
      {at + layout::kInside95, bits(1.5f)},
      {at + layout::kCandidateCount, 17u},
      {at + layout::kResidualSums + 8, bits(-1.0f)},
      {at + layout::kLogSpreadSums + 4, 0x7f800000u},
      {entry + fmt::section_entry::kLength, layout::kSize - 4},
  };
  const Blob good_blob(good);
  pbp_model good_model{};
  ASSERT_EQ(pbp_open(&good_model, good_blob.data(), good_blob.size), PBP_OK);
  const float x[3] = {0.25f, -0.5f, 1.0f};
  std::vector<float> workspace(good_model.workspace_bytes / 4);
  pbp_prediction expected{};
  ASSERT_EQ(pbp_predict(&good_model, x, 3, 0.95f, workspace.data(), good_model.workspace_bytes,
                        &expected),
            PBP_OK);
  for (const Edit& e : edits) {
    std::vector<uint8_t> bad = good;
    fmt::store_u32(&bad[e.offset], e.value);
    fmt::store_u32(&bad[bad.size() - 4], fmt::crc32(bad.data(), bad.size() - 4));
    const Blob blob(bad);
    pbp_model m{};
    ASSERT_EQ(pbp_open(&m, blob.data(), blob.size), PBP_OK) << "offset " << e.offset - at;
    pbp_prediction p{};
    ASSERT_EQ(pbp_predict(&m, x, 3, 0.95f, workspace.data(), m.workspace_bytes, &p), PBP_OK);
    EXPECT_EQ(std::memcmp(&p, &expected, sizeof p), 0) << "offset " << e.offset - at;
    std::vector<float> state(PBP_LEARN_STATE_BYTES(m.weight_count) / 4, 7.0f);
    pbp_learner learner;
    std::memset(&learner, 0xA5, sizeof learner);
    EXPECT_EQ(pbp_learn_init(&learner, &m, state.data(), state.size() * 4), PBP_ERR_BAD_LEARN_CHECK)
        << "offset " << e.offset - at;
    EXPECT_EQ(learner.learn_marker, 0u);
    for (const float v : state) ASSERT_EQ(v, 7.0f) << "offset " << e.offset - at;
    const uint32_t slot = PBP_STORE_SLOT_BYTES(static_cast<uint32_t>(bad.size()), 256u);
    RamFlash ram(2u * slot);
    pbp_store store;
    ASSERT_EQ(pbp_store_init(&store, &ram.flash, 0, slot, slot, good_blob.data(), good_blob.size),
              PBP_OK);
    EXPECT_EQ(pbp_store_save_blob(&store, blob.data(), blob.size), PBP_ERR_BAD_LEARN_CHECK)
        << "offset " << e.offset - at;
    EXPECT_EQ(ram.bytes, std::vector<uint8_t>(2u * slot, 0xFF)) << "offset " << e.offset - at;
    EXPECT_EQ(pbp_store_save_blob(&store, good_blob.data(), good_blob.size), PBP_OK);
  }
  std::vector<float> state(PBP_LEARN_STATE_BYTES(good_model.weight_count) / 4);
  pbp_learner learner;
  EXPECT_EQ(pbp_learn_init(&learner, &good_model, state.data(), state.size() * 4), PBP_OK);
}

}  // namespace
}  // namespace pbp_learn_test
