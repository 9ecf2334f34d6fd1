// SPDX-License-Identifier: Apache-2.0
// pbp_store on this target: a save cut in every erase and program step, each with every partial
// state a NOR flash can be left in, boots the old model or the new one, bit for bit; forgetting,
// worn slots, the sequence wrap and saves cut again and again across reboots, on a RAM-backed
// flash in three geometries. The blobs are the learner's golden ones (tests/runtime/learn), so
// every target runs the same cut points: the counts it prints are the host's.
#include "../learn/learn_vectors.h"
#include "harness.hpp"
#include "power_cut.hpp"

namespace {

// The larger of the two golden blobs as the learner writes them (with the learn_check
// section), in words.
constexpr uint32_t kBlobWords =
    (PBP_LEARN_WRITTEN_SIZE_0 > PBP_LEARN_WRITTEN_SIZE_1 ? PBP_LEARN_WRITTEN_SIZE_0
                                                         : PBP_LEARN_WRITTEN_SIZE_1) /
    4u;
constexpr uint32_t kFlashBytes = 2u * PBP_STORE_SLOT_BYTES(4u * kBlobWords, 256u);

// In .bss, not on the stack (the micro:bit has 16 KiB of RAM).
uint32_t flash_memory[kFlashBytes / 4];
uint32_t saves[pbp_test::kSaves][kBlobWords];
uint32_t boot[kBlobWords];
float state[PBP_LEARN_STATE_WORDS_0];  // the larger golden model's
float workspace[PBP_LEARN_WORKSPACE_FLOATS(PBP_LEARN_GOLDEN_INPUTS, 8u)];
pbp_test::Rig rig;

struct Geometry {
  uint32_t page, write;
};
constexpr Geometry kGeometries[] = {{64, 1}, {128, 4}, {256, 8}};

void set_up(const uint32_t* factory, uint32_t factory_size) {
  rig.nor.bytes = reinterpret_cast<uint8_t*>(flash_memory);
  rig.nor.size = sizeof flash_memory;
  rig.factory = factory;
  rig.factory_size = factory_size;
  for (uint32_t s = 0; s < pbp_test::kSaves; ++s) rig.saves[s] = saves[s];
  rig.boot = boot;
  // The rig's learner opens saves[n], never the booted blob, so a save's buffer can be the boot
  // buffer: the micro:bit has 16 KiB of RAM.
  rig.scratch = boot;
  rig.blob_capacity = sizeof boot;
  rig.state = state;
  rig.state_bytes = sizeof state;
  rig.workspace = workspace;
  rig.workspace_bytes = sizeof workspace;
  rig.failure = nullptr;
  PBP_CHECK(pbp_test::make_saves(rig));
}

void check(bool passed) {
  if (!passed) pbp_test::note("failed: %s", rig.failure);
  PBP_CHECK(passed);
}

const char* const kScenarioNames[] = {"nothing saved", "one save", "two saves", "wrapped"};

}  // namespace

PBP_TEST(every_cut_point_boots_the_old_or_the_new_model) {
  const uint32_t* factories[2] = {pbp_learn_blob_0, pbp_learn_blob_1};
  const uint32_t sizes[2] = {PBP_LEARN_BLOB_SIZE_0, PBP_LEARN_BLOB_SIZE_1};
  pbp_test::Tally total;
  for (uint32_t f = 0; f < 2; ++f) {
    set_up(factories[f], sizes[f]);
    for (const Geometry& g : kGeometries) {
      rig.slot_bytes = PBP_STORE_SLOT_BYTES(rig.save_size, g.page);
      PBP_CHECK(2u * rig.slot_bytes <= sizeof flash_memory);
      for (uint32_t b = 0; b < static_cast<uint32_t>(pbp_test::Before::count); ++b) {
        pbp_test::Tally tally;
        check(pbp_test::cut_every_step(rig, static_cast<pbp_test::Before>(b), g.page, g.write,
                                       &tally));
        pbp_test::note("blob %u, page %u, write %u, %s: %u cut points, %u old (%u factory), %u new",
                       static_cast<unsigned>(f), static_cast<unsigned>(g.page),
                       static_cast<unsigned>(g.write), kScenarioNames[b],
                       static_cast<unsigned>(tally.cut_points),
                       static_cast<unsigned>(tally.old_model), static_cast<unsigned>(tally.factory),
                       static_cast<unsigned>(tally.new_model));
        PBP_CHECK_EQ(tally.lost, 0u);
        PBP_CHECK(tally.old_model > 0 && tally.new_model > 0);  // the cuts fall on both sides
        total.cut_points += tally.cut_points;
        total.old_model += tally.old_model;
        total.new_model += tally.new_model;
      }
    }
  }
  pbp_test::note("saves: %u cut points, %u old, %u new, none lost",
                 static_cast<unsigned>(total.cut_points), static_cast<unsigned>(total.old_model),
                 static_cast<unsigned>(total.new_model));
}

PBP_TEST(forget_worn_slots_wrap_and_repeated_cuts) {
  set_up(pbp_learn_blob_0, PBP_LEARN_BLOB_SIZE_0);
  pbp_test::Tally forget, repeated;
  for (const Geometry& g : kGeometries) {
    rig.slot_bytes = PBP_STORE_SLOT_BYTES(rig.save_size, g.page);
    check(pbp_test::cut_forget(rig, g.page, g.write, &forget));
    check(pbp_test::worn_slots(rig, g.page, g.write));
    check(pbp_test::sequence_wraps(rig, g.page, g.write));
    check(pbp_test::interrupted_across_reboots(rig, g.page, g.write, 40, &repeated));
  }
  pbp_test::note("forget: %u cut points, %u kept the current model, %u the factory one",
                 static_cast<unsigned>(forget.cut_points), static_cast<unsigned>(forget.old_model),
                 static_cast<unsigned>(forget.new_model));
  pbp_test::note(
      "across reboots: %u saves, %u old, %u new", static_cast<unsigned>(repeated.cut_points),
      static_cast<unsigned>(repeated.old_model), static_cast<unsigned>(repeated.new_model));
  PBP_CHECK_EQ(forget.lost + repeated.lost, 0u);
  PBP_CHECK(repeated.old_model > 0 && repeated.new_model > 0);
}

PBP_TEST(store_statuses) {
  set_up(pbp_learn_blob_0, PBP_LEARN_BLOB_SIZE_0);
  rig.slot_bytes = PBP_STORE_SLOT_BYTES(rig.save_size, 64u);
  rig.nor.format(rig.nor.bytes, rig.nor.size, 64, 4);
  const pbp_flash flash = rig.nor.flash();
  pbp_store store;
  PBP_CHECK_EQ(pbp_store_init(&store, nullptr, 0, 1024, 1024, boot, 596), PBP_ERR_NULL_ARGUMENT);
  PBP_CHECK_EQ(pbp_store_init(&store, &flash, 0, 512, 1024, boot, 596), PBP_ERR_STORE_LAYOUT);
  PBP_CHECK_EQ(pbp_store_init(&store, &flash, 32, 1024, 1024, boot, 596), PBP_ERR_STORE_LAYOUT);
  pbp_flash odd = flash;
  odd.write_size = 3;
  PBP_CHECK_EQ(pbp_store_init(&store, &odd, 0, 1024, 1024, boot, 596), PBP_ERR_STORE_LAYOUT);
  pbp_model model;
  pbp_store_source source;
  PBP_CHECK_EQ(pbp_store_boot(&store, boot, sizeof boot, &model, &source), PBP_ERR_MODEL_NOT_OPEN);
  PBP_CHECK_EQ(pbp_store_init(&store, &flash, 0, rig.slot_bytes, rig.slot_bytes, pbp_learn_blob_0,
                              PBP_LEARN_BLOB_SIZE_0),
               PBP_OK);
  PBP_CHECK_EQ(pbp_store_boot(&store, boot, sizeof boot, &model, &source), PBP_OK);
  PBP_CHECK_EQ(source, PBP_STORE_FACTORY);
  PBP_CHECK_EQ(pbp_store_save_blob(&store, saves[0], 8), PBP_ERR_TOO_SMALL);  // not a blob
  PBP_CHECK_EQ(pbp_store_save_blob(&store, saves[0], rig.save_size), PBP_OK);
  PBP_CHECK_EQ(pbp_store_boot(&store, boot, 64, &model, &source), PBP_ERR_BUFFER_TOO_SMALL);
  PBP_CHECK_EQ(pbp_store_init(&store, &flash, 0, 640, 640, pbp_learn_blob_0, PBP_LEARN_BLOB_SIZE_0),
               PBP_OK);
  PBP_CHECK_EQ(pbp_store_save_blob(&store, saves[0], rig.save_size), PBP_ERR_BUFFER_TOO_SMALL);
  rig.nor.power_on();
  rig.nor.cut_power_in(0, pbp_test::Partial::none);
  PBP_CHECK_EQ(pbp_store_forget(&store), PBP_ERR_FLASH);
}
