// SPDX-License-Identifier: Apache-2.0
// IterateAverage (iterate_average.hpp).
#include "pbp/trainer/iterate_average.hpp"

namespace pbp::trainer {

IterateAverage::IterateAverage(const AdfWorkspace& ws) {
  for (const PaddedLayer& w : ws.weights) {
    sum_mean_times_precision_.emplace_back(w.mean.size(), 0.0);
    sum_precision_.emplace_back(w.mean.size(), 0.0);
  }
}

void IterateAverage::add(const AdfWorkspace& ws) {
  for (size_t l = 0; l < ws.weights.size(); ++l) {
    const double* m = ws.weights[l].mean.data();
    const double* v = ws.weights[l].variance.data();
    double* sum_mp = sum_mean_times_precision_[l].data();
    double* sum_p = sum_precision_[l].data();
    const size_t count = ws.weights[l].mean.size();
    PBP_LOOP_ARRAYS_DISJOINT  // weights and sums never overlap
        for (size_t i = 0; i < count; ++i) {
      const double precision = 1.0 / v[i];
      sum_p[i] += precision;
      sum_mp[i] += m[i] * precision;
    }
  }
  ++count_;
}

void IterateAverage::clear() {
  for (auto* sums : {&sum_mean_times_precision_, &sum_precision_}) {
    for (LineAlignedDoubles& s : *sums) s.assign(s.size(), 0.0);
  }
  count_ = 0;
}

void IterateAverage::store(const AdfWorkspace& ws, std::vector<Layer>& layers) const {
  const double count = static_cast<double>(count_);
  for (size_t l = 0; l < ws.weights.size(); ++l) {
    const PaddedLayer& w = ws.weights[l];
    w.for_each_weight([&](size_t padded, size_t i) {
      layers[l].variance[i] = count / sum_precision_[l][padded];
      layers[l].mean[i] = sum_mean_times_precision_[l][padded] / sum_precision_[l][padded];
    });
  }
}

size_t updates_per_averaged_iterate(size_t rows) {
  return rows < 128 ? 1 : rows / 64 < 16 ? rows / 64 : 16;
}

}  // namespace pbp::trainer
