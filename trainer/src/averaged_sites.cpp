// SPDX-License-Identifier: Apache-2.0
// SEP's removal of averaged likelihood sites (averaged_sites.hpp).
#include "pbp/trainer/averaged_sites.hpp"

#include <cstddef>

namespace pbp::trainer {

PaddedPriorSites pad_prior_sites(const AdfWorkspace& ws, const PriorFactors& factors) {
  PaddedPriorSites sites;
  sites.mean_times_precision.resize(ws.weights.size());
  sites.precision.resize(ws.weights.size());
  for (size_t l = 0; l < ws.weights.size(); ++l) {
    const PaddedLayer& w = ws.weights[l];
    sites.mean_times_precision[l].assign(w.mean.size(), 0.0);  // pads: mean 0,
    sites.precision[l].assign(w.mean.size(), 1.0);             // variance 1
    w.for_each_weight([&](size_t padded, size_t i) {
      sites.mean_times_precision[l][padded] = factors[l][i].mean_times_precision;
      sites.precision[l][padded] = factors[l][i].precision;
    });
  }
  return sites;
}

void remove_averaged_sites(AdfWorkspace& ws, const PaddedPriorSites& prior, double fraction) {
  const double keep = 1.0 - fraction;
  for (size_t l = 0; l < ws.weights.size(); ++l) {
    double* m = ws.weights[l].mean.data();
    double* v = ws.weights[l].variance.data();
    const double* prior_mp = prior.mean_times_precision[l].data();
    const double* prior_p = prior.precision[l].data();
    const size_t count = ws.weights[l].mean.size();
    PBP_LOOP_ARRAYS_DISJOINT  // weights and prior sites never overlap
        for (size_t i = 0; i < count; ++i) {
      const double precision = 1.0 / v[i];
      const double kept_precision = keep * precision + fraction * prior_p[i];
      const double kept_mp = keep * (m[i] * precision) + fraction * prior_mp[i];
      v[i] = 1.0 / kept_precision;
      m[i] = kept_mp * v[i];
    }
  }
}

size_t updates_per_site_removal(size_t rows) {
  return rows < 1024 ? 1 : rows / 1024 < 16 ? rows / 1024 : 16;
}

void remove_averaged_sites(Gamma& posterior, const Gamma& prior, double fraction) {
  posterior.a = (1.0 - fraction) * posterior.a + fraction * prior.a;
  posterior.b = (1.0 - fraction) * posterior.b + fraction * prior.b;
}

}  // namespace pbp::trainer
