// SPDX-License-Identifier: Apache-2.0
// learn_reference: the host trainer's one-pass ADF (double, prior fixed) from a model blob over
// new rows: what `pbp learn` (the device's float update) is compared with in
// tools/bench/learn_accuracy.sh.
//   learn_reference <model.pbp> <rows.csv> <out.pbp>    (the CSV's last column is the target)
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <vector>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/likelihood.hpp"

int main(int argc, char** argv) {
  using namespace pbp::trainer;
  if (argc != 4) {
    std::fprintf(stderr, "usage: learn_reference <model.pbp> <rows.csv> <out.pbp>\n");
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    Model model = read_blob(bytes);
    const CsvTable table = read_csv(argv[2]);
    const Dataset data = to_dataset(table, table.columns() - 1);
    TrainOptions options;
    options.task = model.task;
    std::unique_ptr<Likelihood> likelihood = make_likelihood(options, 0, &model.noise, 1);
    AdfWorkspace ws(model.layers);
    const Standardisation& s = model.standardisation;
    std::vector<double> x(data.inputs);
    for (size_t r = 0; r < data.rows; ++r) {
      for (size_t k = 0; k < data.inputs; ++k) {
        x[k] = (data.row(r)[k] - s.input_mean[k]) / s.input_std[k];
      }
      const double y =
          model.task == Task::regression ? (data.y[r] - s.target_mean) / s.target_std : data.y[r];
      adf_update(model.layers, *likelihood, x.data(), y, ws);
    }
    write_blob_file(model, argv[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "learn_reference: %s\n", e.what());
    return 1;
  }
}
