// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/prediction_csv.hpp"

#include <charconv>
#include <cmath>

namespace pbp::host {

std::string float_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value));
  return std::string(buffer, result.ptr);
}

std::string prediction_csv_header(const ModelDescription& model) {
  if (model.task == trainer::Task::count) return "mean,variance,mode,lower,upper\n";
  if (model.classes() == 0) return "mean,std,epistemic_std,aleatoric_std\n";
  std::string header;
  for (size_t c = 0; c < model.classes(); ++c) header.append("p").append(std::to_string(c)) += ',';
  return header + "entropy\n";
}

std::string prediction_csv_row(const RegressionPrediction& p) {
  std::string row = float_text(p.moments.mean);
  row.append(",").append(float_text(p.std));
  row.append(",").append(float_text(std::sqrt(p.moments.epistemic_variance)));
  row.append(",").append(float_text(std::sqrt(p.moments.aleatoric_variance)));
  return row + "\n";
}

std::string prediction_csv_row(const ClassPrediction& p) {
  std::string row;
  for (const double probability : p.probabilities) row.append(float_text(probability)) += ',';
  return row.append(float_text(p.entropy)) + "\n";
}

std::string prediction_csv_row(const CountPrediction& p) {
  std::string row = float_text(p.mean);
  row.append(",").append(float_text(p.variance));
  row.append(",").append(float_text(p.mode));
  row.append(",").append(float_text(p.lower));
  row.append(",").append(float_text(p.upper));
  return row + "\n";
}

std::string range_csv_header() {
  return "range,range_distance,range_input";
}

std::string range_csv_fields(const pbp_range_report& report, const ModelDescription& model) {
  if (report.status == PBP_RANGE_UNKNOWN) return "unknown,,";
  if (report.status == PBP_RANGE_INSIDE) return "inside,0,";
  const size_t input = report.farthest_input;
  const std::string name =
      input < model.feature_names.size() ? model.feature_names[input] : std::to_string(input);
  return "outside," + float_text(report.distance) + "," + name;
}

}  // namespace pbp::host
