// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/idx.hpp"

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "pbp/trainer/csv.hpp"

namespace pbp::trainer {
namespace {

constexpr uint8_t kUnsignedByte = 0x08;
constexpr size_t kMagicBytes = 4;

[[noreturn]] void fail(const std::string& source, const std::string& message) {
  throw InputError(source, 0, 0, message);
}

uint32_t big_endian_u32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

std::string hex_byte(uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", static_cast<unsigned>(value));
  return text;
}

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1F &&
         static_cast<uint8_t>(bytes[1]) == 0x8B;
}

std::string read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(path, "cannot open file: " + std::generic_category().message(errno));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) fail(path, "read error");
  return contents.str();
}

std::string shape_text(const std::vector<uint32_t>& dims) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) text += (i > 0 ? " x " : "") + std::to_string(dims[i]);
  return text;
}

}  // namespace

size_t IdxArray::item_size() const {
  size_t size = 1;
  for (size_t i = 1; i < dims.size(); ++i) size *= dims[i];
  return size;
}

IdxArray parse_idx(const std::string& bytes, const std::string& source) {
  if (is_gzip(bytes)) {
    fail(source, "gzip-compressed IDX file: decompress it first (gunzip -k " + source + ")");
  }
  if (bytes.size() < kMagicBytes) {
    fail(source, "truncated IDX file: " + std::to_string(bytes.size()) + " bytes, no header");
  }
  const uint8_t type = static_cast<uint8_t>(bytes[2]);
  const size_t rank = static_cast<uint8_t>(bytes[3]);
  if (bytes[0] != 0 || bytes[1] != 0) {
    fail(source, "not an IDX file: bad magic " + hex_byte(static_cast<uint8_t>(bytes[0])) + " " +
                     hex_byte(static_cast<uint8_t>(bytes[1])) + " (expected 0x00 0x00)");
  }
  if (type != kUnsignedByte) {
    fail(source, "unsupported IDX element type " + hex_byte(type) +
                     " (only unsigned bytes, 0x08, are read)");
  }
  if (rank == 0) fail(source, "IDX header has 0 dimensions");
  const size_t header = kMagicBytes + 4 * rank;
  if (bytes.size() < header) {
    fail(source, "truncated IDX header: " + std::to_string(rank) + " dimensions need " +
                     std::to_string(header) + " bytes, the file has " +
                     std::to_string(bytes.size()));
  }
  IdxArray array;
  array.source = source;
  size_t expected = 1;
  for (size_t d = 0; d < rank; ++d) {
    array.dims.push_back(big_endian_u32(bytes, kMagicBytes + 4 * d));
    // Sizes beyond the file's length are reported as truncation below; only guard overflow.
    const size_t limit = std::numeric_limits<size_t>::max() / 2;
    expected =
        array.dims[d] == 0 || expected <= limit / array.dims[d] ? expected * array.dims[d] : limit;
  }
  if (array.item_size() == 0) fail(source, "IDX items of size 0 (" + shape_text(array.dims) + ")");
  const size_t data_bytes = bytes.size() - header;
  if (data_bytes < expected) {
    fail(source, "truncated IDX file: " + shape_text(array.dims) + " needs " +
                     std::to_string(expected) + " data bytes, found " + std::to_string(data_bytes));
  }
  if (data_bytes > expected) {
    fail(source, "IDX file longer than its header says: " + shape_text(array.dims) + " needs " +
                     std::to_string(expected) + " data bytes, found " + std::to_string(data_bytes));
  }
  array.values.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return array;
}

IdxArray read_idx(const std::string& path) {
  return parse_idx(read_bytes(path), path);
}

bool looks_like_idx(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char start[2] = {1, 1};
  if (!file || !file.read(start, 2)) return false;
  return (start[0] == 0 && start[1] == 0) || is_gzip(std::string(start, 2));
}

Dataset idx_inputs(const IdxArray& images) {
  Dataset data;
  data.source = images.source;
  data.rows = images.items();
  data.inputs = images.item_size();
  data.target_name = "label";
  data.x.assign(images.values.begin(), images.values.end());
  return data;
}

Dataset idx_dataset(const IdxArray& images, const IdxArray& labels, Task task, uint32_t classes) {
  if (labels.dims.size() != 1) {
    fail(labels.source, "IDX labels must be a vector, found " + shape_text(labels.dims));
  }
  if (labels.items() != images.items()) {
    fail(labels.source, std::to_string(labels.items()) + " labels for the " +
                            std::to_string(images.items()) + " items of " + images.source);
  }
  Dataset data = idx_inputs(images);
  data.y.assign(labels.values.begin(), labels.values.end());
  for (size_t i = 0; i < data.rows; ++i) {
    if (const auto problem = target_problem(data.y[i], task, classes)) {
      fail(labels.source, "label " + std::to_string(i) + ": " + *problem);
    }
  }
  return data;
}

}  // namespace pbp::trainer
