// SPDX-License-Identifier: Apache-2.0
// Reference moments of the Laplace tilted distributions by brute-force numerical integration
// (composite Gauss-Legendre in long double), independent of the closed forms under test.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

namespace pbp::laplace_test {

struct Reference {
  long double log_z;
  long double mean;
  long double variance;
};

// 5-point Gauss-Legendre on [-1, 1].
inline constexpr long double kNodes[5] = {0.0L, -0.538469310105683091036L, 0.538469310105683091036L,
                                          -0.906179845938663992798L, 0.906179845938663992798L};
inline constexpr long double kWeights[5] = {0.568888888888888888889L, 0.478628670499366468041L,
                                            0.478628670499366468041L, 0.236926885056189087514L,
                                            0.236926885056189087514L};

// Integrates exp(log_f(w) - shift) * {1, w - c, (w - c)^2} over the pieces between `cuts`
// (sorted), each split into `panels` panels.
template <typename LogF>
void integrate_pieces(const std::vector<long double>& cuts, int panels, LogF log_f,
                      long double shift, long double c, long double sums[3]) {
  for (size_t p = 0; p + 1 < cuts.size(); ++p) {
    const long double a = cuts[p], b = cuts[p + 1];
    if (!(b > a)) continue;
    const long double h = (b - a) / panels;
    for (int k = 0; k < panels; ++k) {
      const long double mid = a + (k + 0.5L) * h;
      for (int j = 0; j < 5; ++j) {
        const long double w = mid + 0.5L * h * kNodes[j];
        const long double f = 0.5L * h * kWeights[j] * std::exp(log_f(w) - shift);
        sums[0] += f;
        sums[1] += f * (w - c);
        sums[2] += f * (w - c) * (w - c);
      }
    }
  }
}

// log N(w | m, v) + log L(w | 0, b). The two logarithms that do not depend on w are taken once
// (the same values in the same operations, so the same bits): long double is binary128 in
// software under qemu-aarch64, where three logarithms per node made this test a minute long.
struct LogLaplaceIntegrand {
  long double m, v, b;
  long double half_log_2pi_v = 0.5L * std::log(2.0L * M_PIl * v);
  long double log_2b = std::log(2.0L * b);

  long double operator()(long double w) const {
    const long double d = w - m;
    return -0.5L * d * d / v - half_log_2pi_v - std::fabs(w) / b - log_2b;
  }
};

// N(w | m, v) L(w | 0, b) integrated over the pieces cut at 0, m +- 40 sd, +-60 b and the
// shifted means m -+ v/b +- 40 sd, keeping only pieces where the integrand can have mass.
inline Reference laplace_reference(long double m, long double v, long double b, int panels = 400) {
  const long double s = std::sqrt(v);
  std::vector<long double> cuts{0.0L, -60.0L * b, 60.0L * b};
  for (const long double centre : {m, m - v / b, m + v / b}) {
    cuts.push_back(centre - 40.0L * s);
    cuts.push_back(centre + 40.0L * s);
  }
  std::sort(cuts.begin(), cuts.end());
  // The log integrand's largest value over the nodes we visit, then the sums.
  long double top = -INFINITY;
  const LogLaplaceIntegrand log_f{m, v, b};
  for (const long double w : cuts) top = std::max(top, log_f(w));
  for (const long double centre : {m, m - v / b, m + v / b, 0.0L}) {
    top = std::max(top, log_f(centre));
  }
  long double first[3] = {0, 0, 0};
  integrate_pieces(cuts, panels, log_f, top, 0.0L, first);
  const long double mean = first[1] / first[0];
  long double second[3] = {0, 0, 0};
  integrate_pieces(cuts, panels, log_f, top, mean, second);
  return {std::log(second[0]) + top, mean + second[1] / second[0],
          second[2] / second[0] - (second[1] / second[0]) * (second[1] / second[0])};
}

}  // namespace pbp::laplace_test
