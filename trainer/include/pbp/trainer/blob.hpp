// SPDX-License-Identifier: Apache-2.0
// Exports a trained Model as a model blob (format v1, runtime/FORMAT.md).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// The blob of `model`: Gammas and standardisation as float32, the layers' weights in
// model.storage_of(layer) (float32; float16 rounded from the float32 values; int8 quantised from
// the values as given, FORMAT.md "Storage type 3"), the metadata as it
// is. Throws std::invalid_argument if the model is inconsistent (shapes that do not chain, a value
// that is not finite in float32, a Gamma with a <= 1, ...): the blob is checked by opening it
// with the runtime before it is returned, so every blob this returns opens.
std::vector<uint8_t> write_blob(const Model& model);

// The Model a blob holds, every value decoded and widened to double (weight_storage set to what the
// blob's layers use; layer_storage too where they differ): write_blob's inverse up to that rounding
// (read_blob(write_blob(m)) writes the same bytes again). The blob is validated by the runtime's
// pbp_open first, so only a blob a device would accept is read; throws std::invalid_argument with
// the runtime's status text otherwise (and std::runtime_error for an ARD input-prior or Laplace
// scale entry the runtime skips but that is malformed: decode_input_priors, decode_laplace_scale).
Model read_blob(std::span<const uint8_t> blob);
// read_blob of a blob pbp_open has opened already (`opened` and its blob stay the caller's).
Model read_model(const pbp_model& opened);

// `layer`'s weights as an int8 blob stores them in `storage`, type 3 or 4 (write_blob's rounding,
// FORMAT.md "Storage type 3" and "Storage type 4"), decoded: exact in double, what read_blob of
// that blob gives. The values must be finite in float32 and the variances >= 0 (write_blob
// checks that; this does not).
Layer int8_decoded(const Layer& layer, format::Storage storage = format::Storage::int8);

// write_blob, then write_file_atomically (atomic_file.hpp) to `path`.
void write_blob_file(const Model& model, const std::string& path);

}  // namespace pbp::trainer
