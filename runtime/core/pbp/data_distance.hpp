// SPDX-License-Identifier: Apache-2.0
// How far an input row lies from the training rows, in training stds: per input, beyond its
// training range the range report's distance, inside it the distance to the nearest bin of the
// input's occupancy bitmap holding a training value (format.hpp, input_occupancy_section); the
// row's distance d is the largest over its inputs. A regression predictive adds (A target_std d)^2
// to its epistemic variance. A row whose every value is near the training values can still lie in
// a combination no training row has: f, the fraction of its input pairs on an unoccupied cell of
// the pair's grid (format.hpp, input_pair_occupancy_section), adds (A2 target_std f)^2. The one
// copy the runtime (float), the range report and the trainer (double) run.
#pragma once
#include <stdint.h>

#include "pbp/format.hpp"

namespace pbp::distance {

using format::input_occupancy_section::kBins;
using format::input_occupancy_section::kWordsPerInput;

// How far x lies beyond [min, max], in x's units; 0 inside. Finite x and bounds: > 0 outside.
template <class T>
inline T beyond_range(T x, T min, T max) {
  return x < min ? min - x : x > max ? x - max : T(0);
}

inline bool occupied(const uint32_t* bitmap, uint32_t bin) {
  return (bitmap[bin / 32u] >> (bin % 32u) & 1u) != 0u;
}

// The bin at t = (x - min) / width bins above min (the last one closed).
template <class T>
inline uint32_t bin_at(T t) {
  // t >= 0; NaN (an infinite width) and t >= kBins fall in the last bin
  return t < T(kBins) ? static_cast<uint32_t>(t) : kBins - 1u;
}

// The bin of x in [min, max] of width (max - min) / kBins.
template <class T>
inline uint32_t occupancy_bin(T x, T min, T width) {
  return bin_at((x - min) / width);
}

// Inside [min, max]: the distance from x to the nearest occupied bin, in x's units (a lower bound
// of the distance to the nearest training value, short of it by less than one bin).
template <class T>
inline T gap_distance(T x, T min, T max, const uint32_t* bitmap) {
  const T width = (max - min) * (T(1) / T(kBins));
  if (!(width > T(0))) return T(0);
  const T t = (x - min) / width;  // once: occupancy_bin's, and the distances' below
  const uint32_t bin = bin_at(t);
  // Bins 0 and kBins - 1 are occupied (pbp_open checks it), so both walks stop inside the map.
  uint32_t below = bin;
  while (!occupied(bitmap, below)) --below;
  if (below == bin) return T(0);  // x's own bin is occupied
  uint32_t above = bin + 1u;
  while (!occupied(bitmap, above)) ++above;
  const T to_below = t - static_cast<T>(below + 1u);
  const T to_above = static_cast<T>(above) - t;
  return (to_below < to_above ? to_below : to_above) * width;
}

// The row's distance d: the largest over its n inputs, in training stds. `occupancy`
// (kWordsPerInput words per input) null: the ranges alone.
template <class T>
inline T row_distance(const T* x, const T* min, const T* max, const T* std,
                      const uint32_t* occupancy, uint32_t n) {
  T d = T(0);
  for (uint32_t i = 0; i < n; ++i) {
    T away = beyond_range(x[i], min[i], max[i]);
    if (!(away > T(0)) && occupancy != nullptr) {
      away = gap_distance(x[i], min[i], max[i], occupancy + kWordsPerInput * i);
    }
    const T in_stds = away / std[i];
    if (in_stds > d) d = in_stds;
  }
  return d;
}

namespace pair = format::input_pair_occupancy_section;

// The bin of x among pair::kBins equal bins over [min, max], clamped to the end bins (how far a row
// lies beyond the range is the distance's business, not the pair grid's).
template <class T>
inline uint32_t pair_bin(T x, T min, T max) {
  const T width = (max - min) * (T(1) / T(pair::kBins));
  if (!(width > T(0))) return 0u;
  const T t = (x - min) / width;
  if (!(t > T(0))) return 0u;  // at or below min
  return t < T(pair::kBins) ? static_cast<uint32_t>(t) : pair::kBins - 1u;
}

// The cell of the pair (a, b) in its grid's bits.
inline uint32_t pair_cell(uint32_t bin_a, uint32_t bin_b) {
  return bin_a * pair::kBins + bin_b;
}

// The row's novelty f: the fraction of its n(n - 1)/2 input pairs whose cell no training row
// occupies (0 on the training rows' combinations, up to 1). n in 2 .. pair::kMaxInputs; `grids`
// pair::kWordsPerPair words per pair, in pair order.
template <class T>
inline T pair_novelty(const T* x, const T* min, const T* max, const uint32_t* grids, uint32_t n) {
  uint8_t bins[pair::kMaxInputs];
  for (uint32_t i = 0; i < n; ++i) bins[i] = static_cast<uint8_t>(pair_bin(x[i], min[i], max[i]));
  uint32_t unseen = 0;
  const uint32_t* grid = grids;
  for (uint32_t a = 0; a + 1u < n; ++a) {
    for (uint32_t b = a + 1u; b < n; ++b, grid += pair::kWordsPerPair) {
      if (!occupied(grid, pair_cell(bins[a], bins[b]))) ++unseen;
    }
  }
  return static_cast<T>(unseen) / static_cast<T>(pair::pair_count(n));
}

// The variance the distance adds to a prediction, in target units: (A target_std d)^2; likewise
// the pair novelty's, (A2 target_std f)^2.
template <class T>
inline T distance_variance(T scale, T distance, T target_std) {
  const T s = scale * target_std * distance;
  return s * s;
}

}  // namespace pbp::distance
