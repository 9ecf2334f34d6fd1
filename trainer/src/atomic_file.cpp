// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace pbp::trainer {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& action, int error) {
  throw std::runtime_error(path + ": cannot " + action + ": " + std::strerror(error));
}

// Removes the temporary file unless the rename succeeded.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string name) : name_(std::move(name)) {}
  ~TemporaryFile() {
    if (descriptor_ >= 0) ::close(descriptor_);
    if (!committed_) ::unlink(name_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::string& name() const { return name_; }
  int& descriptor() { return descriptor_; }
  void commit() { committed_ = true; }

 private:
  std::string name_;
  int descriptor_ = -1;
  bool committed_ = false;
};

void write_all(int descriptor, const uint8_t* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t written = ::write(descriptor, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      fail(path, "write", errno);
    }
    data += written;
    size -= static_cast<size_t>(written);
  }
}

std::filesystem::path directory_of(const std::filesystem::path& target) {
  return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

}  // namespace

void check_destination(const std::string& path) {
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
    throw std::runtime_error(path + ": cannot write: is a directory");
  }
  const std::filesystem::path directory = directory_of(path);
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    fail(path, "create a temporary file in " + directory.string(), errno);
  }
}

namespace {

std::string hidden_sibling(const std::filesystem::path& target, const std::string& suffix) {
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "." + name + "..." here.
  std::string name(".");
  name.append(target.filename().string()).append(suffix);
  return (directory_of(target) / name).string();
}

// Writes `bytes` to a new temporary file beside `path`, fsynced and closed; removed again when
// the returned object is destroyed unless committed.
std::unique_ptr<TemporaryFile> stage(const std::string& path, std::span<const uint8_t> bytes,
                                     bool check = true) {
  if (check) check_destination(path);
  const std::filesystem::path target(path);
  const std::string pattern = hidden_sibling(target, ".tmp-XXXXXX");
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');

  const int descriptor = ::mkstemp(buffer.data());
  if (descriptor < 0) {
    fail(path, "create a temporary file in " + directory_of(target).string(), errno);
  }
  auto temporary = std::make_unique<TemporaryFile>(buffer.data());
  temporary->descriptor() = descriptor;
  // mkstemp creates 0600; give the output the usual permissions (subject to the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(descriptor, 0666 & ~mask);

  write_all(descriptor, bytes.data(), bytes.size(), path);
  if (::fsync(descriptor) != 0) fail(path, "sync", errno);
  const int closing = temporary->descriptor();
  temporary->descriptor() = -1;
  if (::close(closing) != 0) fail(path, "close", errno);
  return temporary;
}

// Makes renames in `directory` durable; a failure cannot undo them, so it is not an error.
void sync_directory(const std::filesystem::path& directory) {
  const int descriptor = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (descriptor >= 0) {
    ::fsync(descriptor);
    ::close(descriptor);
  }
}

std::span<const uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  const std::unique_ptr<TemporaryFile> temporary = stage(path, bytes);
  if (::rename(temporary->name().c_str(), path.c_str()) != 0) fail(path, "replace", errno);
  temporary->commit();
  sync_directory(directory_of(path));
}

void write_files_atomically(const std::vector<FileContents>& files) {
  // Not check_destination: a target that cannot be replaced (e.g. a directory) fails below,
  // through the same undo as any late failure.
  std::vector<std::unique_ptr<TemporaryFile>> staged;
  for (const FileContents& file : files) {
    staged.push_back(stage(file.path, bytes_of(file.text), false));
  }
  // Per replaced target: a hard link to its old content (what an undo restores), if it had one.
  std::vector<std::optional<std::string>> backups;
  auto remove_backups = [&backups]() {
    for (const auto& backup : backups) {
      if (backup) ::unlink(backup->c_str());
    }
  };
  // Undoes the replacements before file i, newest first, and throws.
  auto undo_and_fail = [&](size_t i, const std::string& action, int error) {
    std::string restore_failures;
    for (size_t j = i; j-- > 0;) {
      const bool restored = backups[j] ? ::rename(backups[j]->c_str(), files[j].path.c_str()) == 0
                                       : ::unlink(files[j].path.c_str()) == 0;
      if (!restored) {
        restore_failures += "; could not restore " + files[j].path + " (" + std::strerror(errno) +
                            ")" + (backups[j] ? ", its old content is in " + *backups[j] : "");
      }
      backups[j].reset();  // restored, or kept for the user
    }
    remove_backups();
    throw std::runtime_error(
        files[i].path + ": cannot " + action + ": " + std::strerror(error) +
        (restore_failures.empty() ? "; no file was changed" : restore_failures));
  };
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& path = files[i].path;
    backups.emplace_back();
    struct stat existing {};
    if (::lstat(path.c_str(), &existing) == 0) {
      std::string name = hidden_sibling(path, ".bak-" + std::to_string(::getpid()));
      ::unlink(name.c_str());  // left by a crashed process that had this id
      if (::link(path.c_str(), name.c_str()) != 0) {
        undo_and_fail(i, "replace it (keeping its old content failed)", errno);
      }
      backups.back() = std::move(name);
    }
    if (::rename(staged[i]->name().c_str(), path.c_str()) != 0) {
      const int error = errno;
      if (backups.back()) ::unlink(backups.back()->c_str());  // this target is unchanged
      backups.back().reset();
      undo_and_fail(i, "replace", error);
    }
    staged[i]->commit();
  }
  remove_backups();
  for (const FileContents& file : files) sync_directory(directory_of(file.path));
}

void write_file_atomically(const std::string& path, std::string_view text) {
  write_file_atomically(path, bytes_of(text));
}

}  // namespace pbp::trainer
