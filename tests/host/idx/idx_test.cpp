// SPDX-License-Identifier: Apache-2.0
// IDX reading (the MNIST format) on small generated files: shapes, values, and every error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/idx.hpp"

namespace pbp::trainer {
namespace {

// An IDX file's bytes: magic 00 00 <type> <rank>, big-endian dims, then `values`.
std::string idx_bytes(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values,
                      uint8_t type = 0x08) {
  std::string bytes{'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (const uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>(d >> shift & 0xFF);
  }
  bytes.append(values.begin(), values.end());
  return bytes;
}

// Expects an InputError "f.idx: ..." that contains `fragment`.
void expect_idx_error(const std::string& bytes, const std::string& fragment) {
  try {
    parse_idx(bytes, "f.idx");
    ADD_FAILURE() << "no error; expected " << fragment;
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("f.idx: ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(Idx, ParsesImagesAndLabels) {
  // Two 2 x 3 images with pixel values 0..11, and their labels.
  std::vector<uint8_t> pixels(12);
  for (uint8_t i = 0; i < 12; ++i) pixels[i] = static_cast<uint8_t>(i * 20);
  const IdxArray images = parse_idx(idx_bytes({2, 2, 3}, pixels), "images");
  EXPECT_EQ(images.items(), 2u);
  EXPECT_EQ(images.item_size(), 6u);
  const IdxArray labels = parse_idx(idx_bytes({2}, {7, 3}), "labels");
  EXPECT_EQ(labels.item_size(), 1u);

  const Dataset data = idx_dataset(images, labels, Task::multiclass, 0);
  EXPECT_EQ(data.source, "images");
  EXPECT_EQ(data.rows, 2u);
  EXPECT_EQ(data.inputs, 6u);
  EXPECT_TRUE(data.feature_names.empty());  // pixels go by position
  EXPECT_EQ(data.target_name, "label");
  EXPECT_DOUBLE_EQ(data.row(1)[0], 120.0);  // raw values: the trainer standardises
  EXPECT_DOUBLE_EQ(data.row(1)[5], 220.0);
  EXPECT_EQ(data.y, (std::vector<double>{7, 3}));
  const Dataset inputs = idx_inputs(images);
  EXPECT_EQ(inputs.x, data.x);
  EXPECT_TRUE(inputs.y.empty());
}

TEST(Idx, HeaderErrors) {
  expect_idx_error(std::string("\x1f\x8b\x08\x00", 4), "gzip-compressed IDX file");
  expect_idx_error("ab", "truncated IDX file: 2 bytes");
  expect_idx_error(std::string("\x12\x34\x08\x01\0\0\0\0", 8), "bad magic 0x12 0x34");
  expect_idx_error(idx_bytes({1}, {0, 0, 0, 0}, 0x0D), "unsupported IDX element type 0x0D");
  expect_idx_error(idx_bytes({}, {}), "0 dimensions");
  expect_idx_error(idx_bytes({3, 4}, {}).substr(0, 9), "truncated IDX header: 2 dimensions");
  expect_idx_error(idx_bytes({3, 0}, {}), "IDX items of size 0 (3 x 0)");
}

TEST(Idx, DataLengthErrors) {
  expect_idx_error(idx_bytes({2, 2, 2}, {1, 2, 3}), "truncated IDX file: 2 x 2 x 2 needs 8");
  expect_idx_error(idx_bytes({2}, {1, 2, 3}),
                   "longer than its header says: 2 needs 2 data bytes, found 3");
  // Dimensions whose product overflows are still reported as truncation, not a crash.
  expect_idx_error(idx_bytes({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, {1}), "truncated IDX file");
  // Zero items are a valid (empty) file.
  EXPECT_EQ(parse_idx(idx_bytes({0, 28, 28}, {}), "f").items(), 0u);
}

TEST(Idx, LabelErrors) {
  const IdxArray images = parse_idx(idx_bytes({3, 2}, {0, 1, 2, 3, 4, 5}), "images");
  const auto message = [&](const IdxArray& labels, Task task, uint32_t classes) {
    try {
      idx_dataset(images, labels, task, classes);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(parse_idx(idx_bytes({2}, {0, 1}), "labels"), Task::binary, 0),
            "labels: 2 labels for the 3 items of images");
  EXPECT_EQ(message(parse_idx(idx_bytes({3, 1}, {0, 1, 0}), "labels"), Task::binary, 0),
            "labels: IDX labels must be a vector, found 3 x 1");
  EXPECT_EQ(message(parse_idx(idx_bytes({3}, {0, 2, 1}), "labels"), Task::binary, 0),
            "labels: label 1: expected a binary label 0 or 1, found 2");
  EXPECT_EQ(message(parse_idx(idx_bytes({3}, {0, 2, 9}), "labels"), Task::multiclass, 5),
            "labels: label 2: expected a class index 0..4, found 9");
  EXPECT_EQ(message(parse_idx(idx_bytes({3}, {0, 2, 9}), "labels"), Task::count, 0), "no error");
}

TEST(Idx, ReadsFilesAndSniffsTheFormat) {
  const auto dir = std::filesystem::temp_directory_path() / "pbp_idx_test";
  std::filesystem::create_directories(dir);
  const std::string images = (dir / "images").string(), csv = (dir / "d.csv").string();
  std::ofstream(images, std::ios::binary) << idx_bytes({1, 2}, {5, 6});
  std::ofstream(csv) << "a,b\n1,2\n";
  EXPECT_TRUE(looks_like_idx(images));
  EXPECT_FALSE(looks_like_idx(csv));
  EXPECT_FALSE(looks_like_idx((dir / "absent").string()));
  EXPECT_EQ(read_idx(images).values, (std::vector<uint8_t>{5, 6}));
  EXPECT_THROW(read_idx((dir / "absent").string()), InputError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pbp::trainer
