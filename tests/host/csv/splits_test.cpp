// SPDX-License-Identifier: Apache-2.0
// Train/test splits: seeded random splits and index files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/splits.hpp"

namespace pbp::trainer {
namespace {

namespace fs = std::filesystem;

fs::path fresh_directory(const std::string& name) {
  const fs::path directory =
      fs::temp_directory_path() / ("pbp_splits_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(RandomSplits, PaperSizesDisjointAndDeterministic) {
  const std::vector<Split> splits = random_splits(506, 20, 0.1, 7);
  ASSERT_EQ(splits.size(), 20u);
  for (const Split& split : splits) {
    EXPECT_EQ(split.test.size(), 51u);
    EXPECT_EQ(split.train.size(), 455u);
    std::vector<size_t> all = split.train;
    all.insert(all.end(), split.test.begin(), split.test.end());
    std::sort(all.begin(), all.end());
    for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i);
  }
  EXPECT_NE(splits[0].test, splits[1].test);
  const std::vector<Split> again = random_splits(506, 20, 0.1, 7);
  EXPECT_EQ(again[5].test, splits[5].test);
  EXPECT_NE(random_splits(506, 1, 0.1, 8)[0].test, splits[0].test);
  EXPECT_EQ(random_splits(3, 1, 0.9, 1)[0].train.size(), 2u);  // at least 2 training rows
}

TEST(SplitFiles, ReadsUntilMissing) {
  const fs::path directory = fresh_directory("ok");
  write(directory / "index_train_0.txt", "0\n2\n4.0\n");
  write(directory / "index_test_0.txt", "1\n3\n");
  write(directory / "index_train_1.txt", "1 2 3\n\n");
  write(directory / "index_test_1.txt", "0\r\n4\r\n");
  write(directory / "index_train_3.txt", "0\n");  // after the gap at 2: ignored
  const std::vector<Split> splits = read_split_files(directory.string(), 5);
  ASSERT_EQ(splits.size(), 2u);
  EXPECT_EQ(splits[0].train, (std::vector<size_t>{0, 2, 4}));
  EXPECT_EQ(splits[0].test, (std::vector<size_t>{1, 3}));
  EXPECT_EQ(splits[1].train, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(splits[1].test, (std::vector<size_t>{0, 4}));
  fs::remove_all(directory);
}

TEST(SplitFiles, ErrorsNameFileLineAndColumn) {
  const fs::path directory = fresh_directory("bad");
  write(directory / "index_train_0.txt", "0\n1\n");
  write(directory / "index_test_0.txt", "2\n  x7\n");
  try {
    read_split_files(directory.string(), 5);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), (directory / "index_test_0.txt").string());
    EXPECT_EQ(error.line(), 2u);
    EXPECT_EQ(error.column(), 3u);
  }
  write(directory / "index_test_0.txt", "2\n5\n");
  try {
    read_split_files(directory.string(), 5);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("out of range"), std::string::npos);
    EXPECT_EQ(error.line(), 2u);
  }
  fs::remove(directory / "index_test_0.txt");
  EXPECT_THROW(read_split_files(directory.string(), 5), InputError);
  fs::remove(directory / "index_train_0.txt");
  EXPECT_THROW(read_split_files(directory.string(), 5), InputError);  // no splits at all
  fs::remove_all(directory);
}

}  // namespace
}  // namespace pbp::trainer
