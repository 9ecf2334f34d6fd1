// SPDX-License-Identifier: Apache-2.0
// pbp_store: two slots in NOR flash, the header programmed last (pbp_store.h, DEPLOYING.md §8).
#include "pbp/pbp_store.h"

#include "blob_view.hpp"
#include "pbp/format.hpp"

namespace {

namespace fmt = pbp::format;

constexpr uint32_t kStoreMarker = 0x73504250u;  // "PBPs": a store filled by pbp_store_init
constexpr uint32_t kSlotMagic = 0x53504250u;    // "PBPS" at the start of a valid slot
// The header's fields, little-endian words; its CRC covers the four before it.
constexpr uint32_t kMagicAt = 0, kSequenceAt = 4, kSizeAt = 8, kBlobCrcAt = 12, kHeaderCrcAt = 16;
constexpr uint32_t kHeaderFieldBytes = 20;
constexpr uint32_t kChunk = PBP_STORE_MAX_WRITE_SIZE;  // stack bytes per read-back or padded write

struct Header {
  uint32_t sequence, size, blob_crc;
};

// Serial-number arithmetic (RFC 1982): a is newer than b when it is less than 2^31 ahead.
bool newer(uint32_t a, uint32_t b) {
  return a != b && static_cast<uint32_t>(a - b) < 0x80000000u;
}

pbp_status read(const pbp_store& store, uint32_t offset, void* out, uint32_t size) {
  const pbp_flash& flash = *store.flash;
  return flash.read(flash.context, offset, out, size) == 0 ? PBP_OK : PBP_ERR_FLASH;
}

// A header is valid when its magic and CRC check out and its blob fits the slot: a cut while it
// was programmed or erased leaves a CRC that matches only by chance (2^-32).
bool valid_header(const pbp_store& store, const uint8_t* bytes, Header* header) {
  if (fmt::load_u32(bytes + kMagicAt) != kSlotMagic) return false;
  if (fmt::load_u32(bytes + kHeaderCrcAt) != fmt::crc32(bytes, kHeaderCrcAt)) return false;
  header->sequence = fmt::load_u32(bytes + kSequenceAt);
  header->size = fmt::load_u32(bytes + kSizeAt);
  header->blob_crc = fmt::load_u32(bytes + kBlobCrcAt);
  return header->size >= fmt::kMinimumBlobSize &&
         header->size <= store.slot_bytes - PBP_STORE_HEADER_BYTES;
}

// Both slots' headers, and which is the newer of the valid ones (serial-number order).
struct Slots {
  Header headers[2];
  bool valid[2];
  uint32_t newest;
};

pbp_status read_headers(const pbp_store& store, Slots* slots) {
  for (uint32_t slot = 0; slot < 2; ++slot) {
    uint8_t bytes[kHeaderFieldBytes];
    if (read(store, store.slot_offset[slot], bytes, kHeaderFieldBytes) != PBP_OK)
      return PBP_ERR_FLASH;
    slots->valid[slot] = valid_header(store, bytes, &slots->headers[slot]);
  }
  slots->newest = slots->valid[1] && (!slots->valid[0] || newer(slots->headers[1].sequence,
                                                                slots->headers[0].sequence));
  return PBP_OK;
}

// Programs `size` bytes at `offset` (write-size aligned) in ranges that stay within a page; the
// tail is padded with 0xFF (which programs nothing) to a whole write unit.
pbp_status program(const pbp_store& store, uint32_t offset, const uint8_t* data, uint32_t size) {
  const pbp_flash& flash = *store.flash;
  uint32_t done = 0;
  while (done < size) {
    const uint32_t at = offset + done;
    const uint32_t page_left = flash.page_size - at % flash.page_size;
    uint32_t length = size - done < page_left ? size - done : page_left;
    if (length >= flash.write_size) {
      length -= length % flash.write_size;
      if (flash.program(flash.context, at, data + done, length) != 0) return PBP_ERR_FLASH;
    } else {
      uint8_t padded[kChunk];
      for (uint32_t i = 0; i < flash.write_size; ++i)
        padded[i] = i < length ? data[done + i] : 0xFF;
      if (flash.program(flash.context, at, padded, flash.write_size) != 0) return PBP_ERR_FLASH;
    }
    done += length;
  }
  return PBP_OK;
}

// Reads back `size` bytes at `offset` and compares them with `expected`.
pbp_status verify(const pbp_store& store, uint32_t offset, const uint8_t* expected, uint32_t size) {
  uint8_t landed[kChunk];
  for (uint32_t done = 0; done < size; done += kChunk) {
    const uint32_t length = size - done < kChunk ? size - done : kChunk;
    if (read(store, offset + done, landed, length) != PBP_OK) return PBP_ERR_FLASH;
    for (uint32_t i = 0; i < length; ++i)
      if (landed[i] != expected[done + i]) return PBP_ERR_FLASH_VERIFY;
  }
  return PBP_OK;
}

// Reads a slot's blob into `buffer` and opens it (*opened): its CRC trailer must be the header's.
pbp_status open_slot(const pbp_store& store, uint32_t slot, const Header& header, uint8_t* buffer,
                     pbp_model* model, bool* opened) {
  const pbp_status status =
      read(store, store.slot_offset[slot] + PBP_STORE_HEADER_BYTES, buffer, header.size);
  *opened = status == PBP_OK && pbp_open(model, buffer, header.size) == PBP_OK &&
            fmt::load_u32(buffer + header.size - fmt::kCrcSize) == header.blob_crc;
  return status;
}

// pbp_open's check, in a frame of its own: the pbp_model is not on the stack with what follows.
__attribute__((noinline)) pbp_status opens(const void* blob, size_t size) {
  pbp_model model{};
  return pbp_open(&model, blob, size);
}

// The learner's check of a learn_check section, which pbp_open skips: a blob that a learning
// firmware's pbp_learn_init would refuse at the next boot is not persisted (`blob` opens).
__attribute__((noinline)) pbp_status learn_check_ok(const void* blob, size_t size) {
  pbp::detail::Sections sections{};
  const pbp_status status = pbp::detail::locate_sections(static_cast<const uint8_t*>(blob),
                                                         static_cast<uint32_t>(size), &sections);
  if (status != PBP_OK || sections.learn_check.data == nullptr) return status;
  pbp::detail::LearnCheckRecord record{};
  return pbp::detail::read_learn_check(sections.learn_check, &record);
}

bool ready(const pbp_store* store) {
  return store->store_marker == kStoreMarker;
}

}  // namespace

extern "C" pbp_status pbp_store_init(pbp_store* store, const pbp_flash* flash,
                                     uint32_t slot0_offset, uint32_t slot1_offset,
                                     uint32_t slot_bytes, const void* factory_blob,
                                     size_t factory_size) {
  if (store == nullptr) return PBP_ERR_NULL_ARGUMENT;
  *store = pbp_store{};
  if (flash == nullptr || factory_blob == nullptr || flash->read == nullptr ||
      flash->erase_page == nullptr || flash->program == nullptr)
    return PBP_ERR_NULL_ARGUMENT;
  const uint32_t w = flash->write_size, page = flash->page_size;
  const bool layout_ok =
      w >= 1 && w <= PBP_STORE_MAX_WRITE_SIZE && (w & (w - 1u)) == 0 && page >= w &&
      page % w == 0 && slot0_offset % page == 0 && slot1_offset % page == 0 &&
      slot_bytes % page == 0 && slot_bytes >= PBP_STORE_HEADER_BYTES + fmt::kMinimumBlobSize &&
      slot0_offset <= 0xFFFFFFFFu - slot_bytes && slot1_offset <= 0xFFFFFFFFu - slot_bytes &&
      (slot0_offset + slot_bytes <= slot1_offset || slot1_offset + slot_bytes <= slot0_offset);
  if (!layout_ok) return PBP_ERR_STORE_LAYOUT;
  store->flash = flash;
  store->slot_offset[0] = slot0_offset;
  store->slot_offset[1] = slot1_offset;
  store->slot_bytes = slot_bytes;
  store->factory_blob = factory_blob;
  store->factory_size = factory_size;
  store->current = PBP_STORE_NO_SLOT;
  store->store_marker = kStoreMarker;
  return PBP_OK;
}

extern "C" pbp_status pbp_store_boot(pbp_store* store, void* buffer, size_t capacity,
                                     pbp_model* model, pbp_store_source* source) {
  if (store == nullptr || buffer == nullptr || model == nullptr || source == nullptr)
    return PBP_ERR_NULL_ARGUMENT;
  *model = pbp_model{};
  *source = PBP_STORE_FACTORY;
  if (!ready(store)) return PBP_ERR_MODEL_NOT_OPEN;
  if (reinterpret_cast<uintptr_t>(buffer) % 4u != 0) return PBP_ERR_MISALIGNED_POINTER;
  Slots slots;
  pbp_status status = read_headers(*store, &slots);
  if (status != PBP_OK) return status;
  for (uint32_t slot = 0; slot < 2; ++slot)
    if (slots.valid[slot] && slots.headers[slot].size > capacity) return PBP_ERR_BUFFER_TOO_SMALL;
  for (uint32_t i = 0; i < 2; ++i) {
    const uint32_t slot = i == 0 ? slots.newest : 1u - slots.newest;
    if (!slots.valid[slot]) continue;
    bool opened = false;
    status =
        open_slot(*store, slot, slots.headers[slot], static_cast<uint8_t*>(buffer), model, &opened);
    if (status != PBP_OK) return status;
    if (opened) {
      store->current = slot;
      store->sequence = slots.headers[slot].sequence;
      *source = i == 0 ? PBP_STORE_NEWEST : PBP_STORE_OLDER;
      return PBP_OK;
    }
    *model = pbp_model{};
  }
  store->current = PBP_STORE_NO_SLOT;
  store->sequence = 0;
  return pbp_open(model, store->factory_blob, store->factory_size);
}

extern "C" pbp_status pbp_store_save_blob(pbp_store* store, const void* blob, size_t size) {
  if (store == nullptr || blob == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (!ready(store)) return PBP_ERR_MODEL_NOT_OPEN;
  pbp_status loads = opens(blob, size);  // never persist what would not load
  if (loads == PBP_OK) loads = learn_check_ok(blob, size);
  if (loads != PBP_OK) return loads;
  if (size > store->slot_bytes - PBP_STORE_HEADER_BYTES) return PBP_ERR_BUFFER_TOO_SMALL;
  const pbp_flash& flash = *store->flash;
  const uint32_t slot = store->current == 0 ? 1u : 0u;
  const uint32_t base = store->slot_offset[slot];
  const uint8_t* bytes = static_cast<const uint8_t*>(blob);
  const uint32_t blob_size = static_cast<uint32_t>(size);
  // The header page first, so the slot stops looking valid at once (a partly erased blob would
  // fail its CRC anyway: the header records it, and pbp_open checks it over every byte).
  for (uint32_t page = 0; page < store->slot_bytes; page += flash.page_size)
    if (flash.erase_page(flash.context, base + page) != 0) return PBP_ERR_FLASH;
  pbp_status status = program(*store, base + PBP_STORE_HEADER_BYTES, bytes, blob_size);
  // What landed is the blob, byte for byte: it opens as `blob` did (checked above).
  if (status == PBP_OK) status = verify(*store, base + PBP_STORE_HEADER_BYTES, bytes, blob_size);
  if (status != PBP_OK) return status;
  uint8_t header[kHeaderFieldBytes];
  const uint32_t sequence = store->current == PBP_STORE_NO_SLOT ? 1u : store->sequence + 1u;
  fmt::store_u32(header + kMagicAt, kSlotMagic);
  fmt::store_u32(header + kSequenceAt, sequence);
  fmt::store_u32(header + kSizeAt, blob_size);
  fmt::store_u32(header + kBlobCrcAt, fmt::load_u32(bytes + blob_size - fmt::kCrcSize));
  fmt::store_u32(header + kHeaderCrcAt, fmt::crc32(header, kHeaderCrcAt));
  status = program(*store, base, header, kHeaderFieldBytes);  // the commit: the slot is valid
  if (status == PBP_OK) status = verify(*store, base, header, kHeaderFieldBytes);
  if (status != PBP_OK) return status;
  store->current = slot;
  store->sequence = sequence;
  return PBP_OK;
}

extern "C" pbp_status pbp_store_save(pbp_store* store, const pbp_learner* learner, void* scratch,
                                     size_t capacity) {
  if (store == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (!ready(store)) return PBP_ERR_MODEL_NOT_OPEN;
  size_t written = 0;
  const pbp_status status = pbp_learn_write_blob(learner, scratch, capacity, &written);
  return status == PBP_OK ? pbp_store_save_blob(store, scratch, written) : status;
}

extern "C" pbp_status pbp_store_forget(pbp_store* store) {
  if (store == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (!ready(store)) return PBP_ERR_MODEL_NOT_OPEN;
  // From the flash, not from store->current: forgetting needs no boot first.
  Slots slots;
  const pbp_status status = read_headers(*store, &slots);
  if (status != PBP_OK) return status;
  const uint32_t order[2] = {1u - slots.newest, slots.newest};
  const pbp_flash& flash = *store->flash;
  for (uint32_t slot : order)
    if (flash.erase_page(flash.context, store->slot_offset[slot]) != 0) return PBP_ERR_FLASH;
  store->current = PBP_STORE_NO_SLOT;
  store->sequence = 0;
  return PBP_OK;
}
