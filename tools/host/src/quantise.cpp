// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/quantise.hpp"

#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/int8_rounding.hpp"
#include "pbp/trainer/int8_unit_scales.hpp"

namespace pbp::host {

QuantisedBlob quantise_blob(const std::vector<uint8_t>& bytes, format::Storage storage,
                            const ModelRows* rows, Int8Fallback fallback,
                            const Progress& progress) {
  QuantisedBlob out;
  out.original = trainer::read_blob(bytes);
  out.model = out.original;
  out.model.weight_storage = storage;
  out.model.layer_storage.clear();
  out.rescaled = out.original;
  // An int8 blob's means are on its grid already: rounding it again would change nothing but,
  // from its rounded variances, perhaps its units' scales.
  if (rows != nullptr && out.original.weight_storage != format::Storage::int8) {
    trainer::rescale_units(out.rescaled,
                           trainer::rescale_and_round_for_int8(out.model, rows->data));
  }
  out.fallback_searched =
      rows != nullptr && out.original.weight_storage == format::Storage::float32;
  if (out.fallback_searched) {
    out.fallback_steps =
        fall_back_within_goals(bytes, out.model, out.rescaled, *rows, storage, fallback, progress);
  }
  out.blob = trainer::write_blob(out.model);
  return out;
}

}  // namespace pbp::host
