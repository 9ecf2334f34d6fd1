#include "pbp/trainer/dataset.hpp"

namespace pbp::trainer {

Dataset Dataset::subset(const std::vector<size_t>& indices) const {
  Dataset part;
  part.source = source;
  part.feature_names = feature_names;
  part.target_name = target_name;
  part.inputs = inputs;
  part.rows = indices.size();
  part.x.reserve(indices.size() * inputs);
  part.y.reserve(indices.size());
  for (const size_t i : indices) {
    part.x.insert(part.x.end(), row(i), row(i) + inputs);
    part.y.push_back(y[i]);
  }
  return part;
}

}  // namespace pbp::trainer
