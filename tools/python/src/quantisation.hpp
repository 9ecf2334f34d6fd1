// SPDX-License-Identifier: Apache-2.0
// pbp_edge's quantize: a model's weights in another storage type, as `pbp quantize` writes them.
#pragma once
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "runtime_model.hpp"

namespace pbp::python {

namespace py = pybind11;

// The blob of `model` with its weights stored as `storage` ("float32", "float16", "int8",
// "int8-logvar") by the host library's quantise_blob: each weight to the nearest code, as
// `pbp quantize --storage S`; with `x` (not None; int8 storages only; the training rows, in the
// model's input order) the means rounded to make up for each other's rounding over those rows and,
// from a float32 blob, the int8 fallback `fallback` ("none", "auto" or "float16"), as `pbp quantize
// --storage S --data F --fallback FALLBACK`. `progress(done, total)` (may be None) counts the
// fallback's blobs measured. Throws std::invalid_argument for a bad storage, fallback or x.
py::bytes quantize(const RuntimeModel& model, const std::string& storage, const py::object& x,
                   const std::string& fallback, const py::object& progress);

// The storage type of every layer's weights ("float32", ...), input side first.
std::vector<std::string> layer_storage(const RuntimeModel& model);

}  // namespace pbp::python
