// SPDX-License-Identifier: Apache-2.0
// Damage that the CRC and the size checks must catch: the tiny blob cut at every byte, and every
// single-bit flip of it (including flips in the size fields, which must not move the CRC window).
#include "blob_edit.hpp"
#include "harness.hpp"

PBP_TEST(truncation_at_every_byte_is_rejected) {
  pbp_test::EditableBlob& blob = pbp_test::tiny_copy();
  uint32_t accepted = 0;
  for (uint32_t size = 0; size < PBP_TINY_BLOB_SIZE; ++size) {
    blob.size = size;
    const pbp_status status = pbp_test::open_blob(blob);
    if (status == PBP_OK) ++accepted;
    PBP_CHECK(status ==
              (size < pbp::format::kMinimumBlobSize ? PBP_ERR_TOO_SMALL : PBP_ERR_SIZE_MISMATCH));
  }
  PBP_CHECK_EQ(accepted, 0u);
}

PBP_TEST(every_single_bit_flip_is_rejected) {
  pbp_test::EditableBlob& blob = pbp_test::tiny_copy();
  uint32_t accepted = 0;
  uint32_t by_crc = 0;
  for (uint32_t byte = 0; byte < PBP_TINY_BLOB_SIZE; ++byte) {
    for (uint32_t bit = 0; bit < 8; ++bit) {
      blob.bytes[byte] ^= static_cast<uint8_t>(1u << bit);
      const pbp_status status = pbp_test::open_blob(blob);
      blob.bytes[byte] ^= static_cast<uint8_t>(1u << bit);
      if (status == PBP_OK) {
        ++accepted;
        pbp_test::note("flip of byte %u bit %u accepted", static_cast<unsigned>(byte),
                       static_cast<unsigned>(bit));
      }
      if (status == PBP_ERR_CRC_MISMATCH) ++by_crc;
      // Only the fields before the CRC check may report something else.
      const bool envelope_field = byte < pbp::format::header::kTotalSize + 4;
      PBP_CHECK(envelope_field || status == PBP_ERR_CRC_MISMATCH);
    }
  }
  PBP_CHECK_EQ(accepted, 0u);
  pbp_test::note("%u flips, %u caught by the CRC", static_cast<unsigned>(PBP_TINY_BLOB_SIZE * 8),
                 static_cast<unsigned>(by_crc));
  PBP_CHECK_EQ(pbp_test::open_blob(blob), PBP_OK);  // the loop restored every bit
}

// Both CRC-32 forms (format.hpp; crc32 takes the nibbles in size builds, the bytes otherwise): the
// check value, and the same CRC over every prefix of the tiny blob.
PBP_TEST(crc32_by_bytes_and_by_nibbles_agree) {
  const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  PBP_CHECK_EQ(pbp::format::crc32_by_bytes(check, sizeof check), 0xCBF43926u);
  PBP_CHECK_EQ(pbp::format::crc32_by_nibbles(check, sizeof check), 0xCBF43926u);
  const pbp_test::EditableBlob& blob = pbp_test::tiny_copy();
  for (uint32_t size = 0; size <= PBP_TINY_BLOB_SIZE; ++size) {
    PBP_CHECK_EQ(pbp::format::crc32_by_nibbles(blob.bytes, size),
                 pbp::format::crc32_by_bytes(blob.bytes, size));
  }
}
