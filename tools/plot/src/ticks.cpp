// SPDX-License-Identifier: Apache-2.0
// "Nice" tick values and their labels.
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "pbp/plot/chart.hpp"

namespace pbp::plot {

Ticks nice_ticks(Range range, int target, bool integers_only) {
  if (!std::isfinite(range.low) || !std::isfinite(range.high) || !(range.low < range.high)) {
    throw std::invalid_argument("plot: ticks need a finite range with low < high");
  }
  target = std::max(target, 2);
  // Candidate steps 1, 2, 5 x 10^k from the one nearest span / target downwards, until at
  // least two ticks fit (integers: never below 1).
  const double raw = (range.high - range.low) / target;
  int exponent = static_cast<int>(std::floor(std::log10(raw)));
  const double normalised = raw / std::pow(10.0, exponent);
  int mantissa = normalised < 1.5 ? 1 : normalised < 3.5 ? 2 : normalised < 7.5 ? 5 : 10;
  if (mantissa == 10) {
    mantissa = 1;
    ++exponent;
  }
  Ticks ticks;
  for (int attempt = 0; attempt < 8; ++attempt) {
    double step = mantissa * std::pow(10.0, exponent);
    if (integers_only && step < 1.0) step = 1.0;
    const double first = std::ceil(range.low / step - 1e-9);
    const double last = std::floor(range.high / step + 1e-9);
    ticks.values.clear();
    for (double i = first; i <= last; i += 1.0) ticks.values.push_back(i == 0.0 ? 0.0 : i * step);
    ticks.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    if (ticks.values.size() >= 2 || (integers_only && step == 1.0)) break;
    if (mantissa == 1) {
      mantissa = 5;
      --exponent;
    } else {
      mantissa = mantissa == 5 ? 2 : 1;
    }
  }
  return ticks;
}

std::string tick_label(double value, int decimals) {
  char buffer[400];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals);
  if (result.ec != std::errc()) throw std::invalid_argument("plot: tick value out of range");
  std::string text(buffer, result.ptr);
  if (text.front() != '-') return text;
  if (text.find_first_not_of("-0.") == std::string::npos) return text.substr(1);  // "-0.0"
  return "\u2212" + text.substr(1);
}

}  // namespace pbp::plot
