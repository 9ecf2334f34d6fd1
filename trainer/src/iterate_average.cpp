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
    const uint32_t row = layers[l].row_length();
    for (uint32_t j = 0; j < w.outputs; ++j) {
      for (uint32_t k = 0; k < row; ++k) {
        const size_t i = w.index(j, k);
        layers[l].variance[size_t{j} * row + k] = count / sum_precision_[l][i];
        layers[l].mean[size_t{j} * row + k] =
            sum_mean_times_precision_[l][i] / sum_precision_[l][i];
      }
    }
  }
}

size_t updates_per_averaged_iterate(size_t rows) {
  return rows < 128 ? 1 : rows / 64 < 16 ? rows / 64 : 16;
}

}  // namespace pbp::trainer
