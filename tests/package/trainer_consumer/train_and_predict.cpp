// SPDX-License-Identifier: Apache-2.0
// Trains the PBP paper's toy problem with the installed trainer, writes the blob, opens it with
// the installed runtime's C++ API and predicts inside and outside the data. Exit 0 when the
// model is less sure outside the data than inside, as it must be.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/toy_problem.hpp"
#include "pbp/trainer/train.hpp"

int main() {
  pbp::trainer::TrainOptions options;
  options.hidden = {20};
  options.epochs = 10;
  const pbp::trainer::Model trained =
      pbp::trainer::train(pbp::trainer::toy_problem(20, 1), options);
  const std::vector<uint8_t> bytes = pbp::trainer::write_blob(trained);
  std::vector<uint32_t> blob((bytes.size() + 3) / 4);  // pbp_open needs 4-byte alignment
  std::memcpy(blob.data(), bytes.data(), bytes.size());

  pbp::Model model;
  if (const pbp::Status status = model.open(blob.data(), bytes.size()); status != PBP_OK) {
    std::printf("open: %s\n", pbp::status_string(status));
    return 1;
  }
  static pbp::Workspace<1, 20> workspace;
  double epistemic_std[2] = {0.0, 0.0};
  const float inputs[2] = {0.0f, 6.0f};  // the data lie in [-4, 4]
  for (int i = 0; i < 2; ++i) {
    pbp::Prediction p;
    if (const pbp::Status status = model.predict(&inputs[i], 1, 0.95f, workspace, &p);
        status != PBP_OK) {
      std::printf("predict: %s\n", pbp::status_string(status));
      return 1;
    }
    epistemic_std[i] = std::sqrt(static_cast<double>(p.epistemic_variance));
    std::printf("x = %.1f: mean %.2f, 95%% [%.2f, %.2f], epistemic std %.2f\n",
                static_cast<double>(inputs[i]), static_cast<double>(p.mean),
                static_cast<double>(p.lower), static_cast<double>(p.upper), epistemic_std[i]);
  }
  return epistemic_std[1] > epistemic_std[0] ? 0 : 1;
}
