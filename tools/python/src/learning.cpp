// SPDX-License-Identifier: Apache-2.0
#include "learning.hpp"

#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.hpp"

namespace pbp::python {

py::dict learn(const RuntimeModel& model, const py::array& x, const py::array_t<double>& y) {
  const Matrix m(x, "X");
  if (m.columns() != model.view().input_count) {
    throw std::invalid_argument("X has " + std::to_string(m.columns()) +
                                " columns, the model takes " +
                                std::to_string(model.view().input_count) + " inputs");
  }
  if (y.ndim() != 1 || static_cast<size_t>(y.shape(0)) != m.rows()) {
    throw std::invalid_argument("y must be 1-D with one value per row of X");
  }
  pbp::Learner learner;
  std::vector<float> state(pbp::learn_state_bytes(model.view().weight_count) / 4);
  const pbp::Status init = learner.init(model.runtime(), state.data(), state.size() * 4);
  if (init == PBP_ERR_WRONG_TASK) {
    throw std::invalid_argument("the device learns regression and binary models only, not a " +
                                model.task() + " model");
  }
  if (init != PBP_OK) {
    throw std::invalid_argument(std::string("the runtime's learner refused the model: ") +
                                pbp::status_string(init));
  }
  std::vector<float> workspace((learner.workspace_bytes() + 3) / 4);
  const auto targets = y.unchecked<1>();
  uint64_t applied = 0, skipped = 0;
  std::vector<std::pair<size_t, std::string>> rejected;
  {
    py::gil_scoped_release release;
    std::vector<float> row(m.columns());
    for (size_t i = 0; i < m.rows(); ++i) {
      pbp_learn_outcome outcome{};
      const float target = static_cast<float>(targets(static_cast<py::ssize_t>(i)));
      const pbp::Status status =
          learner.update(m.float_row(i, row.data()), static_cast<uint32_t>(m.columns()), target,
                         workspace.data(), workspace.size() * 4, &outcome);
      if (status != PBP_OK) {
        rejected.emplace_back(i, pbp::status_string(status));
        continue;
      }
      ++applied;
      skipped += outcome.skipped_weights;
    }
  }
  std::vector<uint32_t> written((learner.blob_bytes() + 3) / 4);
  size_t size = 0;
  const pbp::Status write = learner.write_blob(written.data(), written.size() * 4, &size);
  if (write != PBP_OK) {
    throw std::runtime_error(std::string("the learner's blob: ") + pbp::status_string(write));
  }
  py::dict out;
  out["blob"] = py::bytes(reinterpret_cast<const char*>(written.data()), size);
  out["applied"] = applied;
  out["skipped_weights"] = skipped;
  out["rejected"] = rejected;
  return out;
}

}  // namespace pbp::python
