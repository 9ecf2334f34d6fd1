// SPDX-License-Identifier: Apache-2.0
// Feeds every file of the seed corpus to the fuzz entry point: the normal test run replays what
// the fuzzer starts from (and any crash reproducer committed to the corpus).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_open_predict.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    pbp_fuzz_open_predict(bytes.data(), bytes.size());
    std::printf("replayed %s (%zu bytes)\n", entry.path().filename().c_str(), bytes.size());
    ++files;
  }
  std::printf("%d corpus files replayed\n", files);
  return files > 0 ? 0 : 1;
}
