// SPDX-License-Identifier: Apache-2.0
// How far an input row lies from the training rows, in training stds: per input, beyond its
// training range the range report's distance, inside it the distance to the nearest bin of the
// input's occupancy bitmap holding a training value (format.hpp, input_occupancy_section); the
// row's distance d is the largest over its inputs. A regression predictive adds (A target_std d)^2
// to its epistemic variance. The one copy the runtime (float), the range report and the trainer
// (double) run.
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

// The variance the distance adds to a prediction, in target units: (A target_std d)^2.
template <class T>
inline T distance_variance(T scale, T distance, T target_std) {
  const T s = scale * target_std * distance;
  return s * s;
}

}  // namespace pbp::distance
