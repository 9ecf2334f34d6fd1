// SPDX-License-Identifier: Apache-2.0
// pbp_edge._core: the trainer and the runtime for pbp_edge's estimators (tools/python/pbp_edge).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iterator>

#include "learning.hpp"
#include "pbp/likelihoods.hpp"
#include "pbp/pbp_version.h"
#include "pbp/trainer/option_names.hpp"
#include "quantisation.hpp"
#include "runtime_model.hpp"
#include "training.hpp"

namespace py = pybind11;
using pbp::python::RuntimeModel;
using pbp::python::TrainRequest;

PYBIND11_MODULE(_core, m) {
  m.doc() = "pbp-edge's trainer and runtime; use the estimators in pbp_edge";
  m.attr("__version__") = PBP_VERSION_STRING;  // pbp_version.h, from project(VERSION)
  // Every option's values, from the tables the trainer and the CLI parse them with
  // (trainer/option_names.hpp; activations and storage types from the runtime's tables), so the
  // estimators validate their parameters against the same names.
  py::dict option_names;
  const auto add = [&option_names](const char* option, const auto& names) {
    py::tuple values(std::size(names));
    for (size_t i = 0; i < std::size(names); ++i) values[i] = py::str(names[i].name);
    option_names[option] = values;
  };
  add("activation", pbp::trainer::kActivationNames);
  add("algorithm", pbp::trainer::kAlgorithmNames);
  add("prior", pbp::trainer::kPriorNames);
  add("inference", pbp::trainer::kInferenceNames);
  add("averaging", pbp::trainer::kAveragingNames);
  add("likelihood", pbp::trainer::kLikelihoodNames);
  add("softmax", pbp::trainer::kSoftmaxNames);
  add("recipe", pbp::trainer::kRecipeNames);
  add("storage", pbp::trainer::kStorageNames);
  m.attr("option_names") = option_names;

  m.def(
      "train",
      [](const py::array& x, const py::array_t<double>& y, const std::string& task,
         uint32_t classes, const std::string& recipe,
         const std::optional<std::vector<uint32_t>>& hidden, const std::string& activation,
         const std::optional<uint32_t>& epochs, uint64_t seed, const std::string& algorithm,
         const std::string& prior, const std::string& likelihood, const std::string& softmax,
         uint32_t samples, const std::string& inference, const std::string& averaging,
         uint32_t threads, const std::vector<std::string>& feature_names,
         const std::string& target_name, const std::optional<bool>& distance_variance,
         const py::object& progress) {
        const TrainRequest request{
            task,      classes,   recipe,  hidden,        activation,  epochs,
            seed,      algorithm, prior,   likelihood,    softmax,     samples,
            inference, averaging, threads, feature_names, target_name, distance_variance};
        return pbp::python::train(x, y, request, progress);
      },
      py::arg("x"), py::arg("y"), py::kw_only(), py::arg("task"), py::arg("classes") = 0,
      py::arg("recipe") = "auto", py::arg("hidden") = py::none(), py::arg("activation") = "relu",
      py::arg("epochs") = py::none(), py::arg("seed") = 1, py::arg("algorithm") = "pbp",
      py::arg("prior") = "auto", py::arg("likelihood") = "auto", py::arg("softmax") = "mean-field",
      py::arg("samples") = 10, py::arg("inference") = "adf", py::arg("averaging") = "auto",
      py::arg("threads") = 1, py::arg("feature_names") = std::vector<std::string>{},
      py::arg("target_name") = "", py::arg("distance_variance") = py::none(),
      py::arg("progress") = py::none(),
      "Trains a model (TrainRequest in training.hpp); returns a dict with it.");
  py::class_<pbp::python::TrainedModel>(m, "TrainedModel", "A trained model, not yet a blob.");
  m.def("write_blob", &pbp::python::write_blob, py::arg("model"), py::arg("notes"),
        "The blob of a trained model, with its metadata notes.");

  py::class_<RuntimeModel>(m, "Model", "A blob opened by the runtime, as a device opens it.")
      .def(py::init<const py::bytes&>(), py::arg("blob"))
      .def_property_readonly("blob", &RuntimeModel::blob)
      .def_property_readonly("task", &RuntimeModel::task)
      .def_property_readonly("input_count",
                             [](const RuntimeModel& r) { return r.view().input_count; })
      .def_property_readonly("output_count",
                             [](const RuntimeModel& r) { return r.view().output_count; })
      .def_property_readonly("hidden", [](const RuntimeModel& r) { return r.description().hidden; })
      .def_property_readonly("feature_names",
                             [](const RuntimeModel& r) { return r.description().feature_names; })
      .def_property_readonly("target_name",
                             [](const RuntimeModel& r) { return r.description().target_name; })
      .def_property_readonly("notes", [](const RuntimeModel& r) { return r.description().notes; })
      .def_property_readonly("training_rows",
                             [](const RuntimeModel& r) { return r.view().training_rows; })
      .def_property_readonly(
          "likelihood",  // the blob's, by runtime/core/pbp/likelihoods.hpp's name
          [](const RuntimeModel& r) {
            const char* name = pbp::likelihood_name(r.view().likelihood);
            return std::string(name != nullptr ? name : "unknown");
          })
      .def_property_readonly("noise_std",
                             [](const RuntimeModel& r) { return r.handle().noise_std(); })
      .def_property_readonly("epistemic_scale",
                             [](const RuntimeModel& r) { return r.view().epistemic_scale; })
      .def_property_readonly(
          "distance_scale",  // A of the distance variance (FORMAT.md, section 7); 0: none
          [](const RuntimeModel& r) { return r.view().distance_scale; })
      .def_property_readonly(
          "pair_scale",  // A2 of the pair variance (FORMAT.md, section 8); 0: none
          [](const RuntimeModel& r) { return r.view().pair_scale; })
      .def_property_readonly("tail_dof",  // the Student-t predictive's degrees of freedom
                                          // (FORMAT.md, section 9); 0: none
                             [](const RuntimeModel& r) { return r.view().tail_dof; })
      .def("predict_regression", &RuntimeModel::predict_regression, py::arg("x"),
           py::arg("probability") = 0.95)
      .def("predict_classes", &RuntimeModel::predict_classes, py::arg("x"))
      .def("predict_count", &RuntimeModel::predict_count, py::arg("x"),
           py::arg("probability") = 0.95)
      .def("input_range", &RuntimeModel::input_range, py::arg("x"))
      .def("export_c", &RuntimeModel::export_c, py::arg("name"), py::arg("dir"))
      .def("save", &RuntimeModel::save, py::arg("path"))
      .def("learn", &pbp::python::learn, py::arg("x"), py::arg("y"),
           "The device's update (pbp_learn_update) over the rows; see learning.hpp.")
      .def("quantize", &pbp::python::quantize, py::arg("storage"), py::arg("x") = py::none(),
           py::arg("fallback") = "none", py::arg("progress") = py::none(),
           "The blob with its weights in another storage type; see quantisation.hpp.")
      .def_property_readonly("layer_storage", &pbp::python::layer_storage);
}
