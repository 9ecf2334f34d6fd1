// SPDX-License-Identifier: Apache-2.0
// A NOR flash in RAM that loses power on demand: erase sets a page to 0xFF, program only clears
// bits, and the operation the power is cut in leaves one of several partial states. Freestanding
// (no heap), so the host suite and every target run the same fault injection.
#pragma once
#include <stdint.h>
#include <string.h>

#include "pbp/pbp_store.h"

namespace pbp_test {

// What the erase or program the power is cut in leaves behind (deterministic).
enum class Partial : uint32_t {
  none,            // the cut came just before it: nothing changed
  complete,        // just after it: all of it landed
  first_half,      // the first half of the page (erase) or range (program) landed
  all_but_last,    // all but the last byte landed
  alternate_bits,  // half the bits of every byte moved (0x55 set, or 0xAA cleared)
  scattered_bits,  // a pseudo-random half of the bits moved
  count
};

struct SimulatedNor {
  uint8_t* bytes = nullptr;
  uint32_t size = 0;
  uint32_t page_size = 0, write_size = 0;
  uint32_t operations = 0;              // erases and programs since the last power-on
  uint32_t cut_at = 0xFFFFFFFFu;        // the operation the power fails in (none: never)
  Partial partial = Partial::none;      // what that operation leaves
  bool powered = true;                  // false from the cut on: every call fails
  uint32_t stuck_offset = 0xFFFFFFFFu;  // a worn byte whose bits in stuck_mask stay 1
  uint8_t stuck_mask = 0;
  uint32_t flip_offset[2] = {0xFFFFFFFFu, 0xFFFFFFFFu};  // bytes that read back inverted bits
  uint8_t flip_mask = 0;

  void format(uint8_t* memory, uint32_t memory_size, uint32_t page, uint32_t write) {
    bytes = memory;
    size = memory_size;
    page_size = page;
    write_size = write;
    memset(bytes, 0xFF, size);
    stuck_offset = flip_offset[0] = flip_offset[1] = 0xFFFFFFFFu;
    power_on();
  }
  void power_on() {
    operations = 0;
    cut_at = 0xFFFFFFFFu;
    powered = true;
  }
  void cut_power_in(uint32_t operation, Partial what) {
    cut_at = operation;
    partial = what;
  }

  pbp_flash flash() {
    pbp_flash f{};
    f.context = this;
    f.read = &read;
    f.erase_page = &erase;
    f.program = &program;
    f.page_size = page_size;
    f.write_size = write_size;
    return f;
  }

 private:
  static SimulatedNor& self(void* context) { return *static_cast<SimulatedNor*>(context); }

  // Counts an erase or program; true when it may run, with `*cut` when the power fails in it.
  bool begin(bool* cut) {
    if (!powered) return false;
    *cut = operations++ == cut_at;
    return true;
  }

  // Byte i of n moves towards its target: all of it, none, or part (mask: the bits that move).
  uint8_t moving_bits(uint32_t i, uint32_t n, uint32_t seed, bool cut) const {
    if (!cut || partial == Partial::complete) return 0xFF;
    switch (partial) {
      case Partial::first_half:
        return i < n / 2 ? 0xFF : 0x00;
      case Partial::all_but_last:
        return i + 1 < n ? 0xFF : 0x00;
      case Partial::alternate_bits:
        return 0x55;
      case Partial::scattered_bits: {
        uint32_t x = (seed + i) * 2654435761u + 0x9E3779B9u;  // Knuth's multiplicative hash
        x ^= x >> 15;
        return static_cast<uint8_t>(x >> 8);
      }
      default:
        return 0x00;  // none
    }
  }

  static int read(void* context, uint32_t offset, void* out, uint32_t n) {
    SimulatedNor& nor = self(context);
    if (!nor.powered || offset > nor.size || n > nor.size - offset) return -1;
    uint8_t* to = static_cast<uint8_t*>(out);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t at = offset + i;
      const bool flips = at == nor.flip_offset[0] || at == nor.flip_offset[1];
      to[i] = static_cast<uint8_t>(nor.bytes[at] ^ (flips ? nor.flip_mask : 0));
    }
    return 0;
  }

  static int erase(void* context, uint32_t offset) {
    SimulatedNor& nor = self(context);
    bool cut = false;
    if (offset % nor.page_size != 0 || offset >= nor.size || !nor.begin(&cut)) return -1;
    for (uint32_t i = 0; i < nor.page_size; ++i)  // erasing sets the bits that move
      nor.bytes[offset + i] |= nor.moving_bits(i, nor.page_size, nor.operations, cut);
    if (cut) nor.powered = false;
    return cut ? -1 : 0;
  }

  static int program(void* context, uint32_t offset, const void* data, uint32_t n) {
    SimulatedNor& nor = self(context);
    bool cut = false;
    const bool legal = offset % nor.write_size == 0 && n % nor.write_size == 0 && n > 0 &&
                       offset < nor.size && n <= nor.size - offset &&
                       offset / nor.page_size == (offset + n - 1) / nor.page_size;
    if (!legal || !nor.begin(&cut)) return -1;
    const uint8_t* from = static_cast<const uint8_t*>(data);
    for (uint32_t i = 0; i < n; ++i) {  // programming clears the bits that move and are 0 in data
      const uint8_t cleared =
          static_cast<uint8_t>(~from[i] & nor.moving_bits(i, n, nor.operations, cut));
      const uint8_t stuck = offset + i == nor.stuck_offset ? nor.stuck_mask : 0;
      nor.bytes[offset + i] &= static_cast<uint8_t>(~cleared | stuck);
    }
    if (cut) nor.powered = false;
    return cut ? -1 : 0;
  }
};

}  // namespace pbp_test
