// SPDX-License-Identifier: Apache-2.0
// A model blob as C99 source for firmware: NAME.h and NAME.c, the blob as an aligned const array
// with its size, shape and CRC-32 (`pbp export-c`, and pbp_edge's export_c in Python).
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace pbp::trainer {

bool is_c_identifier(const std::string& name);

struct CSource {
  std::string header;  // NAME.h
  std::string source;  // NAME.c
};

// Who wrote the files and from what, for their first comment: "`pbp export-c`" and the blob's path.
struct CSourceOrigin {
  std::string generator;
  std::string source;
};

// NAME.h declares the array and NAME_SIZE, NAME_INPUT_COUNT, NAME_MAX_WIDTH, NAME_WORKSPACE_BYTES,
// NAME_CRC32 and which input is which (c_export_inputs.hpp); NAME.c defines the array so that a
// .c compiled with another export's .h fails to compile. Throws std::invalid_argument if `name` is
// not a C identifier or the blob does not open with the runtime (its status text).
CSource c_source(std::span<const uint8_t> blob, const std::string& name,
                 const CSourceOrigin& origin);

// Writes DIR/NAME.h and DIR/NAME.c, both or neither (write_files_atomically), creating DIR once
// the blob is known to be good; returns DIR/NAME. Throws as c_source does, and std::runtime_error
// if a file or the folder cannot be written.
std::string write_c_source(std::span<const uint8_t> blob, const std::string& name,
                           const std::string& dir, const CSourceOrigin& origin);

}  // namespace pbp::trainer
