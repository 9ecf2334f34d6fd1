// SPDX-License-Identifier: Apache-2.0
// pbp_edge's partial_fit: the runtime's learner (pbp_learn.h), one update per row in float, the
// bits a device computes in the field and `pbp learn` computes on a workstation.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "runtime_model.hpp"

namespace pbp::python {

namespace py = pybind11;

// Runs pbp_learn_update on every row of x (inputs, float64 rounded to float32 as `pbp learn`
// does) with y (targets in target units; binary: 0 or 1) in order, from `model`'s blob. Returns a
// dict: blob (the learnt model, bytes), applied (rows), skipped_weights (over all rows), rejected
// (a list of (row, status text) for rows the runtime refused; their updates are not applied).
py::dict learn(const RuntimeModel& model, const py::array& x, const py::array_t<double>& y);

}  // namespace pbp::python
