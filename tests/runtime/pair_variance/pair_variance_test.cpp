// SPDX-License-Identifier: Apache-2.0
// The pair variance's novelty (data_distance.hpp, FORMAT.md section 8): each input's bin on its
// pair grid, clamped to the end bins, and the fraction of a row's input pairs on a cell no training
// row occupies, exact in float on every target. The golden vectors run it inside pbp_predict.
#include "harness.hpp"
#include "pbp/data_distance.hpp"

namespace {

namespace pair = pbp::format::input_pair_occupancy_section;

// Sets the cell (bin_a, bin_b) of pair k's grid in `grids`.
void occupy(uint32_t* grids, uint32_t k, uint32_t bin_a, uint32_t bin_b) {
  const uint32_t cell = pbp::distance::pair_cell(bin_a, bin_b);
  grids[k * pair::kWordsPerPair + cell / 32u] |= 1u << (cell % 32u);
}

}  // namespace

PBP_TEST(bins_are_equal_sixteenths_of_the_range_clamped_at_both_ends) {
  using pbp::distance::pair_bin;
  PBP_CHECK_EQ(pair_bin(0.0f, 0.0f, 16.0f), 0u);
  PBP_CHECK_EQ(pair_bin(0.999f, 0.0f, 16.0f), 0u);
  PBP_CHECK_EQ(pair_bin(1.0f, 0.0f, 16.0f), 1u);  // a bin's lower edge belongs to it
  PBP_CHECK_EQ(pair_bin(15.5f, 0.0f, 16.0f), 15u);
  PBP_CHECK_EQ(pair_bin(16.0f, 0.0f, 16.0f), 15u);  // the last bin closed
  PBP_CHECK_EQ(pair_bin(-5.0f, 0.0f, 16.0f), 0u);   // beyond the range: the end bins
  PBP_CHECK_EQ(pair_bin(1e30f, 0.0f, 16.0f), 15u);
  PBP_CHECK_EQ(pair_bin(-2.0f, -3.0f, 5.0f), 2u);  // width 0.5
  PBP_CHECK_EQ(pair_bin(7.0f, 3.0f, 3.0f), 0u);    // a constant input: one bin
}

PBP_TEST(novelty_is_the_fraction_of_pairs_on_unoccupied_cells) {
  // Three inputs on [0, 16]; the training rows occupy (2, 3) of pair (0, 1), (2, 5) of (0, 2) and
  // (3, 5) of (1, 2): one row, (2.5, 3.5, 5.5).
  uint32_t grids[3 * pair::kWordsPerPair] = {};
  occupy(grids, 0, 2, 3);
  occupy(grids, 1, 2, 5);
  occupy(grids, 2, 3, 5);
  const float min[3] = {0.0f, 0.0f, 0.0f}, max[3] = {16.0f, 16.0f, 16.0f};
  const float seen[3] = {2.5f, 3.5f, 5.5f};
  PBP_CHECK(pbp::distance::pair_novelty(seen, min, max, grids, 3) == 0.0f);
  // Each value a training value's, input 2 with neither of the others: 2 of 3 pairs unseen.
  const float input_2_moved[3] = {2.5f, 3.5f, 9.0f};
  PBP_CHECK(pbp::distance::pair_novelty(input_2_moved, min, max, grids, 3) == 2.0f / 3.0f);
  const float far[3] = {20.0f, -1.0f, 9.0f};  // bins 15, 0, 9
  PBP_CHECK(pbp::distance::pair_novelty(far, min, max, grids, 3) == 1.0f);
  // The grid is ordered (a, b): (3, 2) of pair (0, 1) is not (2, 3).
  const float swapped[3] = {3.5f, 2.5f, 5.5f};
  PBP_CHECK(pbp::distance::pair_novelty(swapped, min, max, grids, 3) == 1.0f);
}

PBP_TEST(the_variance_is_the_scale_times_the_target_std_times_the_novelty_squared) {
  PBP_CHECK(pbp::distance::distance_variance(2.0f, 0.5f, 3.0f) == 9.0f);
  PBP_CHECK(pbp::distance::distance_variance(2.0f, 0.0f, 3.0f) == 0.0f);
}
