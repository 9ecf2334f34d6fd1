// Crash-safe file replacement: readers see either the old file or the complete new one.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace pbp::trainer {

// Writes `bytes` to a temporary file in the same directory, fsyncs it, renames it over `path`
// and fsyncs the directory. On any failure the temporary file is removed, `path` is left as it
// was, and std::runtime_error says which file and why (e.g. "no space left on device").
void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);
void write_file_atomically(const std::string& path, std::string_view text);

// Throws the error write_file_atomically would give for a destination that is a directory or
// lies in a missing or unwritable directory: lets a command fail before minutes of work.
void check_destination(const std::string& path);

}  // namespace pbp::trainer
