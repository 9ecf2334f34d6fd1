// SPDX-License-Identifier: Apache-2.0
// The distance and pair variances of a regression prediction in double, with their float bounds.
#include "distance_reference.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "pbp/data_distance.hpp"
#include "pbp/format.hpp"

namespace pbp_fuzz {

// The distance variance (data_distance.hpp) in double, and a bound on the float one's error. The
// float t = (x - min) / width is off by at most 3 kU of 64 bins, i.e. 3 kU of the range, and d
// is continuous and 1-Lipschitz in t; the subtractions, the product with the width and the division
// by the std round 4 more times: |d_float - d| <= 5 kU range / std + 6 kU d per input. The product
// A ts d and its square round 3 times.
Bounded distance_variance_reference(const pbp_model& model, const float* input) {
  const uint32_t n = model.input_count;
  std::vector<double> x(input, input + n), min(model.input_min, model.input_min + n),
      max(model.input_max, model.input_max + n), std_(model.input_std, model.input_std + n);
  const double d = pbp::distance::row_distance(x.data(), min.data(), max.data(), std_.data(),
                                               model.input_occupancy, n);
  double widest = 0.0, lost = 0.0;
  for (uint32_t i = 0; i < n; ++i) {
    const double range = max[i] - min[i];
    widest = std::max(widest, range / std_[i]);
    // A range beyond float's largest, or a bin width that underflows: float's gap distance is 0.
    if (!(range <= 0x1.fffffep127) || range < 0x1p-100) lost = std::max(lost, range / std_[i]);
  }
  const double e_d = 5.01 * kU * widest + 6.01 * kU * d + lost + kEta;
  const double a_ts = static_cast<double>(model.distance_scale) * model.target_std;
  const double value = pbp::distance::distance_variance(static_cast<double>(model.distance_scale),
                                                        d, static_cast<double>(model.target_std));
  const double high = a_ts * (d + e_d);
  return {value, a_ts * a_ts * (2 * d * e_d + e_d * e_d) + 3.01 * kU * high * high + 4 * kEta};
}

// The pair variance (data_distance.hpp): f from each input's bin in double, where the float
// t = (x - min) / width (3 roundings: 3 kU of t, plus an underflow) may fall in either bin of a
// boundary within that reach; a range float cannot subtract (overflow, or a width that
// underflows) may fall in any bin. f lies between the pairs surely unseen and those possibly
// unseen; fl(A2 ts) fl(f) and its square round 4 times more (9 kU of the square).
Bounded pair_variance_reference(const pbp_model& model, const float* input) {
  namespace pair = pbp::format::input_pair_occupancy_section;
  const uint32_t n = model.input_count;
  std::vector<uint32_t> low(n), high(n);
  const auto bin = [](double t) -> uint32_t {
    return t <= 0 ? 0u : t >= pair::kBins ? pair::kBins - 1u : static_cast<uint32_t>(t);
  };
  for (uint32_t i = 0; i < n; ++i) {
    const double min = model.input_min[i], range = model.input_max[i] - min;
    const double width = range / pair::kBins;
    if (!(range <= 0x1.fffffep127) || range < 0x1p-100) {
      low[i] = 0;
      high[i] = range > 0 ? pair::kBins - 1u : 0u;
      continue;
    }
    const double t = width > 0 ? (input[i] - min) / width : 0.0;
    const double reach = 3.01 * kU * std::fabs(t) + (width > 0 ? kEta / width : 0.0);
    low[i] = bin(t - reach);
    high[i] = bin(t + reach);
  }
  uint32_t surely = 0, possibly = 0;
  const uint32_t* grid = model.pair_occupancy;
  for (uint32_t a = 0; a + 1u < n; ++a) {
    for (uint32_t b = a + 1u; b < n; ++b, grid += pair::kWordsPerPair) {
      uint32_t seen = 0, cells = 0;
      for (uint32_t p = low[a]; p <= high[a]; ++p) {
        for (uint32_t q = low[b]; q <= high[b]; ++q, ++cells) {
          seen += pbp::distance::occupied(grid, pbp::distance::pair_cell(p, q));
        }
      }
      surely += seen == 0u;
      possibly += seen < cells;
    }
  }
  const double pairs = pair::pair_count(n), a_ts = double{model.pair_scale} * model.target_std;
  const double v_low = std::pow(a_ts * surely / pairs, 2),
               v_high = std::pow(a_ts * possibly / pairs, 2);
  return {0.5 * (v_low + v_high), 0.5 * (v_high - v_low) + 9.01 * kU * v_high + 4 * kEta};
}

}  // namespace pbp_fuzz
