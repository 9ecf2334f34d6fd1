// SPDX-License-Identifier: Apache-2.0
// Train/test splits for the paper's protocol: seeded random splits or index files.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pbp::trainer {

struct Split {
  std::vector<size_t> train;  // 0-based row indices into the data set
  std::vector<size_t> test;
};

// `count` independent random splits of `rows` rows; each holds out rows - floor(rows * (1 -
// test_fraction)) test rows (51 of Boston's 506 at 0.1), at least 1, leaving at least 2 for
// training. Platform-independent: the same arguments give the same splits everywhere.
// Throws std::invalid_argument for rows < 3, count == 0 or a fraction outside (0, 1).
std::vector<Split> random_splits(size_t rows, size_t count, double test_fraction, uint64_t seed);

// Reads directory/index_train_<s>.txt and index_test_<s>.txt for s = 0, 1, 2, ... until
// index_train_<s>.txt is missing: whitespace-separated 0-based row indices ("12" or "12.0").
// Throws InputError (file:line:column) for a bad or out-of-range index, a missing test file, an
// empty list, or no splits at all.
std::vector<Split> read_split_files(const std::string& directory, size_t rows);

}  // namespace pbp::trainer
