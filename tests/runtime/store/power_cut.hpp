// SPDX-License-Identifier: Apache-2.0
// Power cuts at every erase and program step of a pbp_store save, each with every Partial state,
// then a reboot: the model that comes up must open and be, bit for bit, the one saved before or
// the one being saved. Freestanding and heap-free: the host suite (tests/host/store) and the
// portable suite on every target (tests/runtime/store) run it on their own blobs and geometries.
#pragma once
#include <stdint.h>
#include <string.h>

#include "pbp/pbp_store.h"
#include "simulated_nor.hpp"

namespace pbp_test {

inline constexpr uint32_t kSaves = 3;  // distinct learnt models a scenario saves in turn

// Every buffer a run needs, the caller's (4-byte aligned); blob buffers hold `blob_capacity`.
struct Rig {
  SimulatedNor nor;
  pbp_flash flash{};
  pbp_store store{};
  uint32_t slot_bytes = 0;
  const uint32_t* factory = nullptr;
  uint32_t factory_size = 0;
  uint32_t* saves[kSaves] = {};  // filled by make_saves: the factory blob after 1, 2, 3 rounds
  uint32_t save_size = 0;
  uint32_t* boot = nullptr;
  uint32_t* scratch = nullptr;
  uint32_t blob_capacity = 0;
  float* state = nullptr;
  uint32_t state_bytes = 0;
  float* workspace = nullptr;
  uint32_t workspace_bytes = 0;
  pbp_model booted{}, source{};
  pbp_learner learner{};
  pbp_store_source booted_from = PBP_STORE_FACTORY;
  const char* failure = nullptr;  // why the last check failed
};

// What came up after a reboot: the factory blob, saves[i] (0 .. kSaves-1), or something else.
inline constexpr int kFactory = -1, kUnknown = -2;

// Tallies of one run; `lost` counts boots that gave neither the old nor the new model.
struct Tally {
  uint32_t cut_points = 0, old_model = 0, new_model = 0, factory = 0, lost = 0;
};

inline bool fail(Rig& rig, const char* why) {
  rig.failure = why;
  return false;
}

inline uint32_t next(uint32_t& state) {  // xorshift32
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

// The factory model after 1, 2, 3 rounds of five pseudo-random rows (its own units).
inline bool make_saves(Rig& rig) {
  if (pbp_open(&rig.source, rig.factory, rig.factory_size) != PBP_OK) return fail(rig, "factory");
  if (pbp_learn_init(&rig.learner, &rig.source, rig.state, rig.state_bytes) != PBP_OK)
    return fail(rig, "learn_init");
  const pbp_model& m = rig.source;
  float x[16];
  if (m.input_count > 16) return fail(rig, "more than 16 inputs");
  uint32_t random = 0x1234567u;
  const auto uniform = [&random] {
    return static_cast<float>(next(random) % 2001u) / 1000.0f - 1.0f;
  };
  for (uint32_t s = 0; s < kSaves; ++s) {
    for (uint32_t row = 0; row < 5; ++row) {
      for (uint32_t i = 0; i < m.input_count; ++i)
        x[i] = m.input_mean[i] + m.input_std[i] * uniform();
      const float target = m.task == PBP_TASK_BINARY ? static_cast<float>(next(random) & 1u)
                                                     : m.target_mean + m.target_std * uniform();
      if (pbp_learn_update(&rig.learner, x, m.input_count, target, rig.workspace,
                           rig.workspace_bytes, nullptr) != PBP_OK)
        return fail(rig, "learn_update");
    }
    size_t written = 0;
    if (pbp_learn_write_blob(&rig.learner, rig.saves[s], rig.blob_capacity, &written) != PBP_OK)
      return fail(rig, "write_blob");
    rig.save_size = static_cast<uint32_t>(written);
  }
  for (uint32_t s = 1; s < kSaves; ++s)
    if (memcmp(rig.saves[s], rig.saves[s - 1], rig.save_size) == 0) return fail(rig, "same saves");
  return true;
}

// Power on, a fresh pbp_store over the same flash, boot.
inline pbp_status reboot(Rig& rig) {
  rig.nor.power_on();
  rig.flash = rig.nor.flash();
  const pbp_status status = pbp_store_init(&rig.store, &rig.flash, 0, rig.slot_bytes,
                                           rig.slot_bytes, rig.factory, rig.factory_size);
  if (status != PBP_OK) return status;
  return pbp_store_boot(&rig.store, rig.boot, rig.blob_capacity, &rig.booted, &rig.booted_from);
}

inline int booted_model(const Rig& rig) {
  const pbp_model& m = rig.booted;
  if (m.blob_size == rig.factory_size && memcmp(m.blob, rig.factory, rig.factory_size) == 0)
    return rig.booted_from == PBP_STORE_FACTORY ? kFactory : kUnknown;
  for (uint32_t s = 0; s < kSaves; ++s)
    if (m.blob_size == rig.save_size && memcmp(m.blob, rig.saves[s], rig.save_size) == 0 &&
        rig.booted_from != PBP_STORE_FACTORY)
      return static_cast<int>(s);
  return kUnknown;
}

// Where a scenario starts: nothing saved yet; saves[0] in slot 0; saves[0] and saves[1] in both
// slots; the same with the sequence numbers 0xFFFFFFFF and 0 (a wrap between them).
enum class Before : uint32_t { nothing, one_save, two_saves, wrapped, count };

inline uint32_t saves_before(Before before) {
  return before == Before::nothing ? 0u : before == Before::one_save ? 1u : 2u;
}

// Formats the flash and saves what `before` says; the model that boots is `old_model`'s.
inline bool prepare(Rig& rig, Before before, uint32_t page, uint32_t write) {
  rig.nor.format(rig.nor.bytes, rig.nor.size, page, write);
  if (reboot(rig) != PBP_OK || rig.booted_from != PBP_STORE_FACTORY) return fail(rig, "fresh boot");
  // As a device that has saved 2^32 - 2 times: the next save writes slot 0 with 0xFFFFFFFF.
  if (before == Before::wrapped) {
    rig.store.current = 1;
    rig.store.sequence = 0xFFFFFFFEu;
  }
  for (uint32_t s = 0; s < saves_before(before); ++s)
    if (pbp_store_save_blob(&rig.store, rig.saves[s], rig.save_size) != PBP_OK)
      return fail(rig, "prepare save");
  const int expected =
      before == Before::nothing ? kFactory : static_cast<int>(saves_before(before)) - 1;
  if (reboot(rig) != PBP_OK || booted_model(rig) != expected) return fail(rig, "prepared boot");
  return true;
}

// A learner holding saves[s] (its blob opened in place), as a device that learnt it.
inline bool learner_for(Rig& rig, uint32_t s) {
  return pbp_open(&rig.source, rig.saves[s], rig.save_size) == PBP_OK &&
         pbp_learn_init(&rig.learner, &rig.source, rig.state, rig.state_bytes) == PBP_OK;
}

// Erase and program steps of one save from `before` (no cut).
inline uint32_t steps_per_save(Rig& rig, Before before, uint32_t page, uint32_t write) {
  if (!prepare(rig, before, page, write) || !learner_for(rig, saves_before(before))) return 0;
  rig.nor.operations = 0;
  if (pbp_store_save(&rig.store, &rig.learner, rig.scratch, rig.blob_capacity) != PBP_OK) return 0;
  return rig.nor.operations;
}

// Cuts the save of saves[n] (n = saves before) in every step with every Partial, reboots, and
// tallies the model that came up; then a clean save must land and boot. False on any loss.
inline bool cut_every_step(Rig& rig, Before before, uint32_t page, uint32_t write, Tally* tally) {
  const uint32_t steps = steps_per_save(rig, before, page, write);
  if (steps == 0) return fail(rig, "no steps");
  const uint32_t n = saves_before(before);
  const int old_model = n == 0 ? kFactory : static_cast<int>(n) - 1;
  for (uint32_t step = 0; step < steps; ++step) {
    for (uint32_t p = 0; p < static_cast<uint32_t>(Partial::count); ++p) {
      if (!prepare(rig, before, page, write) || !learner_for(rig, n)) return false;
      rig.nor.cut_power_in(step, static_cast<Partial>(p));
      if (pbp_store_save(&rig.store, &rig.learner, rig.scratch, rig.blob_capacity) != PBP_ERR_FLASH)
        return fail(rig, "a save the power was cut in reported no flash failure");
      ++tally->cut_points;
      const int came_up = reboot(rig) == PBP_OK ? booted_model(rig) : kUnknown;
      if (came_up == static_cast<int>(n)) {
        ++tally->new_model;
      } else if (came_up == old_model) {
        ++tally->old_model;
        if (came_up == kFactory) ++tally->factory;
      } else {
        ++tally->lost;
        return fail(rig, "neither the old nor the new model came up");
      }
      // The next save erases whatever the cut left and lands.
      if (pbp_store_save_blob(&rig.store, rig.saves[n], rig.save_size) != PBP_OK ||
          reboot(rig) != PBP_OK || booted_model(rig) != static_cast<int>(n) ||
          rig.booted_from != PBP_STORE_NEWEST)
        return fail(rig, "the save after a cut did not land");
    }
  }
  return true;
}

// pbp_store_forget cut in each of its steps: what boots is what was current, or the factory.
inline bool cut_forget(Rig& rig, uint32_t page, uint32_t write, Tally* tally) {
  for (uint32_t step = 0; step < 2; ++step) {
    for (uint32_t p = 0; p < static_cast<uint32_t>(Partial::count); ++p) {
      if (!prepare(rig, Before::two_saves, page, write)) return false;
      rig.nor.cut_power_in(step, static_cast<Partial>(p));
      if (pbp_store_forget(&rig.store) != PBP_ERR_FLASH) return fail(rig, "forget: no failure");
      ++tally->cut_points;
      const int came_up = reboot(rig) == PBP_OK ? booted_model(rig) : kUnknown;
      if (came_up == 1) {
        ++tally->old_model;
      } else if (came_up == kFactory) {
        ++tally->new_model;
        ++tally->factory;
      } else {
        ++tally->lost;
        return fail(rig, "forget cut: neither the current model nor the factory one");
      }
    }
  }
  if (!prepare(rig, Before::two_saves, page, write) || pbp_store_forget(&rig.store) != PBP_OK ||
      reboot(rig) != PBP_OK || booted_model(rig) != kFactory)
    return fail(rig, "forget did not go back to the factory model");
  return true;
}

// Saves cut short again and again across reboots (pseudo-random step and Partial, sometimes no
// cut): every boot gives the last model that came up, or the one whose save was cut.
inline bool interrupted_across_reboots(Rig& rig, uint32_t page, uint32_t write, uint32_t rounds,
                                       Tally* tally) {
  const uint32_t steps = steps_per_save(rig, Before::one_save, page, write);
  if (steps == 0 || !prepare(rig, Before::one_save, page, write)) return fail(rig, "start");
  int current = 0;
  uint32_t random = 0xC0FFEEu;
  for (uint32_t round = 0; round < rounds; ++round) {
    const uint32_t attempt =
        (static_cast<uint32_t>(current) + 1u + next(random) % (kSaves - 1)) % kSaves;
    const uint32_t step = next(random) % (steps + 2);  // apart: argument order is unspecified
    rig.nor.cut_power_in(step, static_cast<Partial>(next(random) % 6u));
    const pbp_status saved = pbp_store_save_blob(&rig.store, rig.saves[attempt], rig.save_size);
    const int came_up = reboot(rig) == PBP_OK ? booted_model(rig) : kUnknown;
    if (saved == PBP_OK && came_up != static_cast<int>(attempt))
      return fail(rig, "a save was lost");
    ++tally->cut_points;
    if (came_up == static_cast<int>(attempt)) {
      ++tally->new_model;
    } else if (came_up == current) {
      ++tally->old_model;
    } else {
      ++tally->lost;
      return fail(rig, "across reboots: neither the old nor the new model came up");
    }
    current = came_up;
  }
  return true;
}

// Worn flash: a slot whose programs do not land (the save reports it, the old model stays); a
// slot that reads back different (the other boots); both (the factory boots).
inline bool worn_slots(Rig& rig, uint32_t page, uint32_t write) {
  if (!prepare(rig, Before::one_save, page, write)) return false;
  rig.nor.stuck_offset = rig.slot_bytes + PBP_STORE_HEADER_BYTES;  // slot 1's blob magic 'P'
  rig.nor.stuck_mask = 0xFF;
  if (pbp_store_save_blob(&rig.store, rig.saves[1], rig.save_size) != PBP_ERR_FLASH_VERIFY)
    return fail(rig, "a worn slot's save was not refused");
  if (reboot(rig) != PBP_OK || booted_model(rig) != 0 || rig.booted_from != PBP_STORE_NEWEST)
    return fail(rig, "the model before the worn save did not boot");
  const uint32_t blob_middle = PBP_STORE_HEADER_BYTES + rig.save_size / 2;
  const uint32_t header_sequence = 4;
  const uint32_t places[2] = {blob_middle, header_sequence};
  for (uint32_t where : places) {
    if (!prepare(rig, Before::two_saves, page, write)) return false;
    rig.nor.flip_offset[0] = rig.slot_bytes + where;  // the newest slot, 1
    rig.nor.flip_mask = 0x10;
    // A bad blob is tried and passed over; a bad header makes the other slot the only one.
    const pbp_store_source expected = where == blob_middle ? PBP_STORE_OLDER : PBP_STORE_NEWEST;
    if (reboot(rig) != PBP_OK || booted_model(rig) != 0 || rig.booted_from != expected)
      return fail(rig, "a slot reading back different: the other did not boot");
    rig.nor.flip_offset[1] = where;  // and slot 0
    if (reboot(rig) != PBP_OK || booted_model(rig) != kFactory)
      return fail(rig, "both slots reading back different: the factory model did not boot");
  }
  return true;
}

// Sequence numbers across the wrap: 0 is newer than 0xFFFFFFFF, 1 than 0.
inline bool sequence_wraps(Rig& rig, uint32_t page, uint32_t write) {
  if (!prepare(rig, Before::wrapped, page, write)) return false;
  if (rig.store.sequence != 0u || rig.booted_from != PBP_STORE_NEWEST || booted_model(rig) != 1)
    return fail(rig, "0 did not come up as newer than 0xFFFFFFFF");
  if (pbp_store_save_blob(&rig.store, rig.saves[2], rig.save_size) != PBP_OK ||
      reboot(rig) != PBP_OK || booted_model(rig) != 2 || rig.store.sequence != 1u ||
      rig.store.current != 0u)
    return fail(rig, "1 did not come up as newer than 0");
  return true;
}

}  // namespace pbp_test
