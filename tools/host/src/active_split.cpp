// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/active_split.hpp"

#include <numeric>

#include "pbp/trainer/random.hpp"

namespace pbp::host {

RepeatSplit split_repeat(size_t rows, size_t initial, size_t test, bool score_on_pool,
                         uint64_t seed, size_t repeat) {
  trainer::Random seeds(seed);
  for (size_t skipped = 0; skipped < 3 * repeat; ++skipped) seeds.next();
  trainer::Random shuffle(seeds.next());
  RepeatSplit split;
  split.training_seed = seeds.next();
  split.pick_seed = seeds.next();
  std::vector<size_t> order(rows);
  std::iota(order.begin(), order.end(), size_t{0});
  shuffle.shuffle(order);
  const auto test_begin = order.begin() + static_cast<std::ptrdiff_t>(initial);
  auto scored_begin = test_begin;
  if (score_on_pool) scored_begin += static_cast<std::ptrdiff_t>(test);  // test rows left out
  const auto pool_begin = scored_begin + static_cast<std::ptrdiff_t>(test);
  split.training.assign(order.begin(), test_begin);
  split.scored.assign(scored_begin, pool_begin);
  split.pool.assign(pool_begin, order.end());
  return split;
}

}  // namespace pbp::host
