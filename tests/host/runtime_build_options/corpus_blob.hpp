// SPDX-License-Identifier: Apache-2.0
// The fuzz corpus's blobs (tests/fuzz/corpus) for the runtime variants' tests.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "test_paths.hpp"

inline std::vector<uint8_t> corpus_blob(const std::string& name) {
  std::ifstream file(pbp::test_paths::source_dir() + "/tests/fuzz/corpus/" + name,
                     std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// pbp_open's status for the corpus blob `name` (which must exist).
inline pbp_status open_corpus_blob(const std::string& name) {
  const std::vector<uint8_t> blob = corpus_blob(name);
  EXPECT_FALSE(blob.empty()) << name;
  pbp_model model;
  return pbp_open(&model, blob.data(), blob.size());
}
