// SPDX-License-Identifier: Apache-2.0
// `train --curve`: a model's figures after every epoch, on the training rows and optionally a
// test set, as an SVG. Each epoch's model goes through its blob and the runtime, exactly as
// `pbp eval` would score it, so the last point equals `pbp eval` on the written model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "host_names.hpp"
#include "pbp/host/evaluation.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::cli {

class TrainingCurve {
 public:
  explicit TrainingCurve(trainer::Task task) : task_(task) {}

  // A data set to score after every epoch, named `label` in the plot's legend.
  void add_data_set(std::string label, ModelRows rows);
  // Scores `model` on every data set (reads it only: training is unaffected).
  void record(uint32_t epoch, const trainer::Model& model);
  // Two panels: RMSE (regression), accuracy (classification) or MAD (count), and the mean
  // log-likelihood. Written atomically.
  void write(const std::string& path, const std::string& title) const;

  struct DataSet {
    std::string label;
    ModelRows rows;
    std::vector<std::vector<Metric>> epochs;  // the figures after each recorded epoch
  };
  const std::vector<DataSet>& data_sets() const { return data_sets_; }
  // Time spent in record(), so a report of the training time can leave it out.
  double seconds() const { return seconds_; }

 private:
  trainer::Task task_;
  double seconds_ = 0.0;
  std::vector<double> epochs_;
  std::vector<DataSet> data_sets_;
};

}  // namespace pbp::cli
