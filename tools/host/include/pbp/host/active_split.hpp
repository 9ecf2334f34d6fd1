// SPDX-License-Identifier: Apache-2.0
// How one active-learning repeat divides the data: its initial training rows, the rows it is
// scored on, and the pool it picks from; and the seeds it gives every strategy alike.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pbp::host {

struct RepeatSplit {
  std::vector<size_t> training;  // data rows
  std::vector<size_t> scored;    // the test rows, or with score_on_pool rows taken from the pool
  std::vector<size_t> pool;
  uint64_t training_seed = 0;
  uint64_t pick_seed = 0;
};

// Repeat `repeat` of the experiment seeded `seed`: the data rows shuffled, then `initial`
// training rows, `test` test rows and the pool. With `score_on_pool` the test rows take no part
// at all (the development protocol, for choosing settings without them): the pool's first `test`
// rows are scored and the rest is the pool. The seeds are the (3r+1)-th .. (3r+3)-th draws of a
// stream seeded by `seed`, so a repeat does not depend on how many others run.
// Needs rows >= initial + test (+ test again with score_on_pool).
RepeatSplit split_repeat(size_t rows, size_t initial, size_t test, bool score_on_pool,
                         uint64_t seed, size_t repeat);

}  // namespace pbp::host
