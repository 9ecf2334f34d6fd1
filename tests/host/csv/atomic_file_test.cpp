// SPDX-License-Identifier: Apache-2.0
// Atomic replacement: the old file survives any failed write, and no temporary is left behind.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "pbp/trainer/atomic_file.hpp"

namespace pbp::trainer {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("pbp_atomic_" + std::to_string(::getpid()));
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override {
    fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(directory_);
  }
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(directory_), {}));
  }
  fs::path directory_;
};

// Runs `write` under a 4 KiB file-size limit, which makes write() fail with EFBIG part-way, like
// a full disk, even for root; returns the message of the runtime_error it throws ("" if none).
std::string error_on_a_full_disk(const std::function<void()>& write) {
  rlimit saved{};
  if (::getrlimit(RLIMIT_FSIZE, &saved) != 0) return "getrlimit failed";
  rlimit small = saved;
  small.rlim_cur = 4096;
  const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
  if (::setrlimit(RLIMIT_FSIZE, &small) != 0) return "setrlimit failed";
  std::string message;
  try {
    write();
  } catch (const std::runtime_error& error) {
    message = error.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous_handler);
  return message;
}

TEST_F(AtomicFile, WritesAndReplaces) {
  const fs::path target = directory_ / "out.txt";
  write_file_atomically(target.string(), "first");
  EXPECT_EQ(read_text(target), "first");
  write_file_atomically(target.string(), "second");
  EXPECT_EQ(read_text(target), "second");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, TargetIsADirectory) {
  const fs::path target = directory_ / "model.pbp";
  fs::create_directory(target);
  try {
    write_file_atomically(target.string(), "data");
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(target.string()), std::string::npos);
  }
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, UnwritableDirectoryKeepsOldFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  const fs::path target = directory_ / "model.pbp";
  write_file_atomically(target.string(), "old model");
  fs::permissions(directory_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(write_file_atomically(target.string(), "new model"), std::runtime_error);
  fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(read_text(target), "old model");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, MissingDirectory) {
  EXPECT_THROW(write_file_atomically((directory_ / "no" / "x").string(), "x"), std::runtime_error);
}

TEST_F(AtomicFile, FailedWriteKeepsOldFileAndRemovesTemporary) {
  const fs::path target = directory_ / "model.pbp";
  write_file_atomically(target.string(), "old model");
  const std::string message = error_on_a_full_disk(
      [&] { write_file_atomically(target.string(), std::string(100000, 'x')); });
  EXPECT_NE(message.find(target.string() + ": cannot write"), std::string::npos) << message;
  EXPECT_EQ(read_text(target), "old model");
  EXPECT_EQ(entries(), 1u);
}

// A pair (a generated .h and .c) changes together or not at all.
TEST_F(AtomicFile, PairIsReplacedTogether) {
  const fs::path header = directory_ / "m.h", source = directory_ / "m.c";
  write_files_atomically({{header.string(), "old h"}, {source.string(), "old c"}});
  write_files_atomically({{header.string(), "new h"}, {source.string(), "new c"}});
  EXPECT_EQ(read_text(header), "new h");
  EXPECT_EQ(read_text(source), "new c");
  EXPECT_EQ(entries(), 2u);  // no temporary, no backup left
}

// The second rename fails after the first succeeded (a directory where m.c goes): the first is
// restored from its backup, nothing else is left behind.
TEST_F(AtomicFile, PairFailingAtTheSecondRestoresTheFirst) {
  const fs::path header = directory_ / "m.h", source = directory_ / "m.c";
  write_file_atomically(header.string(), "old h");
  fs::create_directories(source / "inside");
  std::string message;
  try {
    write_files_atomically({{header.string(), "new h"}, {source.string(), "new c"}});
  } catch (const std::runtime_error& error) {
    message = error.what();
  }
  EXPECT_NE(message.find(source.string() + ": cannot replace"), std::string::npos) << message;
  EXPECT_NE(message.find("no file was changed"), std::string::npos) << message;
  EXPECT_EQ(read_text(header), "old h");
  EXPECT_TRUE(fs::is_directory(source / "inside"));
  EXPECT_EQ(entries(), 2u);
}

// The same when the first file did not exist before: it is removed again.
TEST_F(AtomicFile, PairFailingAtTheSecondRemovesANewFirst) {
  const fs::path header = directory_ / "m.h", source = directory_ / "m.c";
  fs::create_directories(source);
  EXPECT_THROW(write_files_atomically({{header.string(), "new h"}, {source.string(), "new c"}}),
               std::runtime_error);
  EXPECT_FALSE(fs::exists(header));
  EXPECT_EQ(entries(), 1u);
}

// A full disk while writing the second file (a file size limit stands in for it): neither file
// changes, and the temporaries are gone.
TEST_F(AtomicFile, PairOnAFullDiskChangesNeither) {
  const fs::path header = directory_ / "m.h", source = directory_ / "m.c";
  write_files_atomically({{header.string(), "old h"}, {source.string(), "old c"}});
  const std::string large(100000, 'x');
  const std::string message = error_on_a_full_disk([&] {
    write_files_atomically({{header.string(), "new h"}, {source.string(), large}});
  });
  EXPECT_NE(message.find(source.string() + ": cannot write"), std::string::npos) << message;
  EXPECT_EQ(read_text(header), "old h");
  EXPECT_EQ(read_text(source), "old c");
  EXPECT_EQ(entries(), 2u);
}

}  // namespace
}  // namespace pbp::trainer
