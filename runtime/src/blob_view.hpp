// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: the pieces pbp_open is built from, each checking one layer of the
// blob and trusting only what the previous ones checked.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"

// Tensors are read in place as float: the blob's little-endian binary32 must be the target's.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the runtime needs a little-endian target");
static_assert(sizeof(float) == 4, "the runtime needs IEEE-754 binary32 floats");

namespace pbp::detail {

// Marks a pbp_model filled by a successful pbp_open ("PBPo").
inline constexpr uint32_t kOpenMarker = 0x6F504250u;

// A byte range of the blob that has been checked to lie inside it.
struct Span {
  const uint8_t* data;
  uint32_t size;
};

// The sections v1 knows, located by the section table (size 0 and data null when absent).
struct Sections {
  Span model;
  Span layers;
  Span standardisation;
  Span tensor_data;
  Span metadata;
  Span learn_check;
  Span input_occupancy;
  Span input_pair_occupancy;
  Span predictive_tail;
};

// Size, magic, version, total size, CRC: nothing else of the blob is read before these pass.
pbp_status check_envelope(const uint8_t* blob, size_t size);

// Header size and the section table of a blob that passed check_envelope.
pbp_status locate_sections(const uint8_t* blob, uint32_t size, Sections* sections);

// Checks the tensor descriptor at `descriptor` (already inside the blob) for a float32 tensor of
// `element_count` elements inside `tensor_data`, and returns a pointer to its first element.
pbp_status locate_float_tensor(const uint8_t* descriptor, uint32_t element_count, Span tensor_data,
                               const float** elements);

// Every value finite (and, for variances, >= 0 / for input stds,
// format::valid_input_standardisation with the input's finite mean).
pbp_status check_finite(const float* values, uint32_t count);
pbp_status check_variances(const float* values, uint32_t count);
pbp_status check_input_stds(const float* means, const float* stds, uint32_t count);

// Walks the metadata entries; fills the metadata fields of `model` (input_count already set).
pbp_status read_metadata(Span metadata, pbp_model* model);

// What the optional learn_check section restores in a learner (format::learn_check).
struct LearnCheckRecord {
  float update_noise_a, update_noise_b;
  uint32_t recalibrate;
  pbp_learn_check check;
};

// Reads and checks a learn_check section: PBP_ERR_BAD_LEARN_CHECK for a length other than
// format::learn_check::kSize or any field out of range (pbp_learn_init, its only reader).
pbp_status read_learn_check(Span section, LearnCheckRecord* record);

}  // namespace pbp::detail
