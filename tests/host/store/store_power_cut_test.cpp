// SPDX-License-Identifier: Apache-2.0
// pbp_store on the host: every cut point of a save (each erase and program step, each left in
// every partial state) on the Boston example's 13-50-1 blob and on small trained regression and
// binary models, in five flash geometries; then forgetting, worn slots, the sequence wrap and
// saves cut again and again across reboots. Prints the number of cut points and their outcomes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "learn_fixture.hpp"
#include "pbp/pbp.hpp"
#include "power_cut.hpp"
#include "test_paths.hpp"

namespace {

struct Geometry {
  uint32_t page, write;
};
constexpr Geometry kGeometries[] = {{64, 1}, {256, 4}, {1024, 8}, {2048, 64}, {4096, 16}};
const char* const kScenarioNames[] = {"nothing saved", "one save", "two saves", "wrapped"};

// A rig's buffers, owned; `factory` is the blob every scenario starts from.
struct OwnedRig {
  std::vector<uint32_t> factory, flash, boot, scratch;
  std::vector<std::vector<uint32_t>> saves;
  std::vector<float> state, workspace;
  pbp_test::Rig rig;

  explicit OwnedRig(const std::vector<uint8_t>& blob) : factory((blob.size() + 3) / 4) {
    std::memcpy(factory.data(), blob.data(), blob.size());
    // The learner adds its learn_check section to a blob that has none.
    const uint32_t capacity = PBP_LEARN_WRITTEN_BYTES(static_cast<uint32_t>(blob.size()));
    boot.resize(capacity / 4);
    scratch.resize(capacity / 4);
    saves.assign(pbp_test::kSaves, std::vector<uint32_t>(capacity / 4));
    flash.resize(2 * PBP_STORE_SLOT_BYTES(capacity, 4096u) / 4);
    state.resize(PBP_LEARN_STATE_BYTES(blob.size() / 4) / 4);
    workspace.resize(PBP_LEARN_WORKSPACE_FLOATS(64u, blob.size() / 4));
    rig.nor.bytes = reinterpret_cast<uint8_t*>(flash.data());
    rig.nor.size = static_cast<uint32_t>(flash.size() * 4);
    rig.factory = factory.data();
    rig.factory_size = static_cast<uint32_t>(blob.size());
    for (uint32_t s = 0; s < pbp_test::kSaves; ++s) rig.saves[s] = saves[s].data();
    rig.boot = boot.data();
    rig.scratch = scratch.data();
    rig.blob_capacity = capacity;
    rig.state = state.data();
    rig.state_bytes = static_cast<uint32_t>(state.size() * 4);
    rig.workspace = workspace.data();
    rig.workspace_bytes = static_cast<uint32_t>(workspace.size() * 4);
    if (!pbp_test::make_saves(rig)) throw std::runtime_error(rig.failure);
  }
  void use(const Geometry& g) { rig.slot_bytes = PBP_STORE_SLOT_BYTES(rig.save_size, g.page); }
};

std::vector<uint8_t> boston_start() {
  std::ifstream in(
      (pbp::test_paths::source_dir() + "/targets/examples/learn_on_device/boston_start.pbp"),
      std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> factories() {
  using namespace pbp_learn_test;
  return {{"boston 13-50-1", boston_start()},
          {"regression 3-10-1", write_blob(small_model(Task::regression))},
          {"binary 3-10-1", write_blob(small_model(Task::binary))}};
}

}  // namespace

TEST(StorePowerCut, EveryCutPointBootsTheOldOrTheNewModel) {
  pbp_test::Tally total;
  for (const auto& [name, blob] : factories()) {
    ASSERT_GT(blob.size(), 0u) << name;
    OwnedRig owned(blob);
    for (const Geometry& g : kGeometries) {
      owned.use(g);
      for (uint32_t b = 0; b < static_cast<uint32_t>(pbp_test::Before::count); ++b) {
        pbp_test::Tally tally;
        EXPECT_TRUE(pbp_test::cut_every_step(owned.rig, static_cast<pbp_test::Before>(b), g.page,
                                             g.write, &tally))
            << name << ", page " << g.page << ": " << owned.rig.failure;
        std::printf(
            "%s (%u bytes), page %u, write %u, %s: %u cut points, %u old (%u factory), "
            "%u new\n",
            name.c_str(), owned.rig.save_size, g.page, g.write, kScenarioNames[b], tally.cut_points,
            tally.old_model, tally.factory, tally.new_model);
        EXPECT_EQ(tally.lost, 0u);
        EXPECT_GT(tally.old_model, 0u);
        EXPECT_GT(tally.new_model, 0u);
        // Only a device that never saved may come up with the factory model.
        if (b != 0) {
          EXPECT_EQ(tally.factory, 0u);
        }
        total.cut_points += tally.cut_points;
        total.old_model += tally.old_model;
        total.new_model += tally.new_model;
      }
    }
  }
  std::printf("saves: %u cut points, %u old, %u new, none lost\n", total.cut_points,
              total.old_model, total.new_model);
  EXPECT_EQ(total.cut_points, total.old_model + total.new_model);
}

TEST(StorePowerCut, ForgetWornSlotsWrapAndRepeatedCuts) {
  pbp_test::Tally forget, repeated;
  for (const auto& [name, blob] : factories()) {
    OwnedRig owned(blob);
    for (const Geometry& g : kGeometries) {
      owned.use(g);
      EXPECT_TRUE(pbp_test::cut_forget(owned.rig, g.page, g.write, &forget)) << owned.rig.failure;
      EXPECT_TRUE(pbp_test::worn_slots(owned.rig, g.page, g.write)) << owned.rig.failure;
      EXPECT_TRUE(pbp_test::sequence_wraps(owned.rig, g.page, g.write)) << owned.rig.failure;
      EXPECT_TRUE(pbp_test::interrupted_across_reboots(owned.rig, g.page, g.write, 200, &repeated))
          << name << ", page " << g.page << ": " << owned.rig.failure;
    }
  }
  std::printf("forget: %u cut points, %u kept the current model, %u the factory one\n",
              forget.cut_points, forget.old_model, forget.new_model);
  std::printf("across reboots: %u saves, %u old, %u new\n", repeated.cut_points, repeated.old_model,
              repeated.new_model);
  EXPECT_EQ(forget.lost + repeated.lost, 0u);
  EXPECT_GT(forget.old_model, 0u);
  EXPECT_GT(forget.new_model, 0u);
}

// The C++ wrapper boots, saves a learner and forgets as the C API does.
TEST(StorePowerCut, CppWrapper) {
  OwnedRig owned(boston_start());
  owned.use({1024, 8});
  owned.rig.nor.format(owned.rig.nor.bytes, owned.rig.nor.size, 1024, 8);
  const pbp_flash flash = owned.rig.nor.flash();
  pbp::Store store;
  ASSERT_EQ(store.init(flash, 0, owned.rig.slot_bytes, owned.rig.slot_bytes, owned.factory.data(),
                       owned.rig.factory_size),
            PBP_OK);
  pbp::Model model;
  pbp_store_source source;
  ASSERT_EQ(store.boot(owned.boot.data(), owned.rig.blob_capacity, &model, &source), PBP_OK);
  EXPECT_EQ(source, PBP_STORE_FACTORY);
  pbp::Model learnt;
  ASSERT_EQ(learnt.open(owned.saves[2].data(), owned.rig.save_size), PBP_OK);
  pbp::Learner learner;
  ASSERT_EQ(learner.init(learnt, owned.state.data(), owned.state.size() * 4), PBP_OK);
  ASSERT_EQ(store.save(learner, owned.scratch.data(), owned.rig.blob_capacity), PBP_OK);
  ASSERT_EQ(store.boot(owned.boot.data(), owned.rig.blob_capacity, &model, &source), PBP_OK);
  EXPECT_EQ(source, PBP_STORE_NEWEST);
  EXPECT_EQ(std::memcmp(model.view().blob, owned.saves[2].data(), owned.rig.save_size), 0);
  ASSERT_EQ(store.forget(), PBP_OK);
  ASSERT_EQ(store.boot(owned.boot.data(), owned.rig.blob_capacity, &model, &source), PBP_OK);
  EXPECT_EQ(source, PBP_STORE_FACTORY);
}
