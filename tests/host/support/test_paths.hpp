// SPDX-License-Identifier: Apache-2.0
// Where a host test finds the source tree, its build tree and the pbp command line: found at run
// time from the test executable's place (<build>/bin/<test>), never compiled in, so that a clone
// at another path compiles the same commands and gets the compiler cache's results
// (tests/README.md, "The compiler cache"). PBP_SOURCE_DIR and PBP_BINARY_DIR in the environment
// take precedence (a test binary copied elsewhere).
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace pbp::test_paths {

// The build tree: the parent of the executable's folder (CMAKE_RUNTIME_OUTPUT_DIRECTORY, bin/).
inline std::string binary_dir() {
  if (const char* set = std::getenv("PBP_BINARY_DIR")) return set;
  // qemu-aarch64 answers /proc/self/exe with the emulated executable's path.
  return std::filesystem::canonical("/proc/self/exe").parent_path().parent_path().string();
}

// The source tree: the build tree's CMakeCache.txt names it (pbp_edge_SOURCE_DIR).
inline std::string source_dir() {
  if (const char* set = std::getenv("PBP_SOURCE_DIR")) return set;
  const std::string cache_path = binary_dir() + "/CMakeCache.txt";
  std::ifstream cache(cache_path);
  const std::string key = "pbp_edge_SOURCE_DIR:STATIC=";
  for (std::string line; std::getline(cache, line);) {
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  }
  throw std::runtime_error(cache_path + " names no pbp_edge_SOURCE_DIR: set PBP_SOURCE_DIR");
}

// The pbp command line: the binary, or when cross-compiled the script that runs it under the
// emulator (tests/host/CMakeLists.txt writes it).
inline std::string cli_command() {
#if PBP_CLI_EMULATED
  return binary_dir() + "/pbp-emulated";
#else
  return binary_dir() + "/bin/pbp";
#endif
}

}  // namespace pbp::test_paths
