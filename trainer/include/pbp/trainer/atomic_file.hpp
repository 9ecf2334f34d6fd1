// SPDX-License-Identifier: Apache-2.0
// Crash-safe file replacement: readers see either the old file or the complete new one.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pbp::trainer {

// Writes `bytes` to a temporary file in the same directory, fsyncs it, renames it over `path`
// and fsyncs the directory. On any failure the temporary file is removed, `path` is left as it
// was, and std::runtime_error says which file and why (e.g. "no space left on device").
void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);
void write_file_atomically(const std::string& path, std::string_view text);

// One file of a set written together.
struct FileContents {
  std::string path;
  std::string_view text;
};

// Writes files that must match each other (e.g. a generated .h and .c) so that they change
// together or not at all, as far as a process can: every new content is first written to a
// temporary file beside its target and fsynced (a full disk fails here, nothing changed); then,
// in order, each existing target is kept under a hard link (a backup costing no space) and the
// temporary renamed over it. If one of those steps fails, the targets already replaced are
// restored from their backups (or removed if they did not exist before) and std::runtime_error
// names the file and the reason. On success the backups are removed and the directories fsynced.
// What no single process can promise: a crash or power loss between two renames leaves the first
// file new and the second old (each complete) and a stray ".NAME.bak-<pid>"; a restore that
// itself fails is reported with where the old content is.
void write_files_atomically(const std::vector<FileContents>& files);

// Throws the error write_file_atomically would give for a destination that is a directory or
// lies in a missing or unwritable directory: lets a command fail before minutes of work.
void check_destination(const std::string& path);

}  // namespace pbp::trainer
