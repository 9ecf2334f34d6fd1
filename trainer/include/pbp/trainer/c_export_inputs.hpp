// SPDX-License-Identifier: Apache-2.0
// The part of `pbp export-c`'s NAME.h that says which input is which: each input's index, name
// and training range, and the target's name, as a comment table and as macros.
#pragma once
#include <string>
#include <vector>

#include "pbp/pbp.h"

namespace pbp::trainer {

// The identifier part of each input's macros (NAME_INPUT_<part>), in input order. The rule: the
// feature name upper-cased, every run of characters other than A-Z and 0-9 turned into one '_',
// leading and trailing '_' dropped; an empty result, or a model without feature names, gives the
// input's index ("0", "1", ...); a part whose macros (NAME_INPUT_<part>, _MIN, _MAX, _NAME) would
// repeat one already written (NAME_INPUT_COUNT included) gets "_2", "_3", ... (the first free).
std::vector<std::string> input_macro_parts(const pbp_model& model);

// The header lines after NAME_CRC32: the comment table, then per input NAME_INPUT_<part> (its
// index), NAME_INPUT_<part>_NAME (its name, a string,
// when it has one), NAME_INPUT_<part>_MIN and _MAX (its
// training range, float literals that round-trip exactly; absent from a blob without ranges), and
// NAME_TARGET_NAME when the blob names the target. `macro` is the upper-cased export name.
std::string input_section(const std::string& macro, const pbp_model& model);

}  // namespace pbp::trainer
