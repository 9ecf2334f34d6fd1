#include "pbp/trainer/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
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

void write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  check_destination(path);
  const std::filesystem::path target(path);
  const std::filesystem::path directory = directory_of(target);
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "." + name + "..." here.
  std::string temporary_name(".");
  temporary_name.append(target.filename().string()).append(".tmp-XXXXXX");
  const std::string pattern = (directory / temporary_name).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');

  const int descriptor = ::mkstemp(buffer.data());
  if (descriptor < 0) fail(path, "create a temporary file in " + directory.string(), errno);
  TemporaryFile temporary(buffer.data());
  temporary.descriptor() = descriptor;
  // mkstemp creates 0600; give the output the usual permissions (subject to the umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(descriptor, 0666 & ~mask);

  write_all(descriptor, bytes.data(), bytes.size(), path);
  if (::fsync(descriptor) != 0) fail(path, "sync", errno);
  const int closing = temporary.descriptor();
  temporary.descriptor() = -1;
  if (::close(closing) != 0) fail(path, "close", errno);
  if (::rename(temporary.name().c_str(), path.c_str()) != 0) fail(path, "replace", errno);
  temporary.commit();

  // Make the rename itself durable; a failure here cannot undo it, so it is not an error.
  const int directory_descriptor = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (directory_descriptor >= 0) {
    ::fsync(directory_descriptor);
    ::close(directory_descriptor);
  }
}

void write_file_atomically(const std::string& path, std::string_view text) {
  write_file_atomically(
      path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace pbp::trainer
