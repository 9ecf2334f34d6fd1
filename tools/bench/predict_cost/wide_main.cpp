// SPDX-License-Identifier: Apache-2.0
// predict_cost for the wide shape on a bare-metal target: the Fashion-MNIST model
// (784-400-400-10, targets/examples/fashion_on_device: its int8 blob, or the same model decoded to
// float32; wide_blob.c) over the example's four test images, PREDICT_COST_ITERATIONS predictions
// of one kind: pbp_predict_classes (PREDICT_COST_MODE_pbp) or the plain int8 MLP of kernels.hpp
// on the same mean codes (PREDICT_COST_MODE_mlp8, int8 blob only). predict_cost_targets.sh counts
// the 1- and the N-iteration ELF and divides the difference by N - 1.
#include <stdio.h>

#include "fashion_images.h"
#include "kernels.hpp"
#include "pbp/pbp.h"

extern "C" const uint8_t wide_blob[];      // wide_blob.c: the blob's first byte
extern "C" const uint8_t wide_blob_end[];  // one past its last

namespace {

volatile uint32_t g_iterations = PREDICT_COST_ITERATIONS;
volatile float g_sink;

constexpr uint32_t kMaxWidth = 400;
pbp_model g_model;
float g_pixels[FASHION_IMAGES][FASHION_PIXELS];
#if defined(PREDICT_COST_MODE_pbp)
float g_workspace[PBP_WORKSPACE_FLOATS(FASHION_PIXELS, kMaxWidth)];
#else
constexpr uint32_t kMaxRows = 2 * kMaxWidth + 10;
pbp_bench::Int8MlpRow g_int8_rows[kMaxRows];
float g_calibration[FASHION_PIXELS + 2 * kMaxWidth];
int8_t g_int8_workspace[FASHION_PIXELS + 2 * kMaxWidth];
#endif

}  // namespace

int main() {
  const pbp_status status =
      pbp_open(&g_model, wide_blob, static_cast<size_t>(wide_blob_end - wide_blob));
  if (status != PBP_OK || g_model.max_width > kMaxWidth) {
    printf("predict_cost: cannot open the model (%s)\n", pbp_status_name(status));
    return 1;
  }
  for (uint32_t i = 0; i < FASHION_IMAGES; ++i) {
    for (uint32_t k = 0; k < FASHION_PIXELS; ++k) g_pixels[i][k] = fashion_images[i][k];
  }
#if defined(PREDICT_COST_MODE_mlp8)
  pbp_bench::Int8Mlp mlp;
  if (!pbp_bench::prepare_int8_mlp(g_model, g_pixels[0], g_int8_rows, kMaxRows, g_calibration,
                                   mlp)) {
    printf("predict_cost: the int8 MLP needs an int8 blob\n");
    return 1;
  }
#endif
  const uint32_t iterations = g_iterations;
  float acc = 0.0f;
  for (uint32_t i = 0; i < iterations; ++i) {
    const float* x = g_pixels[i % FASHION_IMAGES];
#if defined(PREDICT_COST_MODE_pbp)
    float p[10];
    pbp_class_result result;
    if (pbp_predict_classes(&g_model, x, FASHION_PIXELS, g_workspace, sizeof g_workspace, p, 10,
                            &result) != PBP_OK) {
      return 1;
    }
    acc += result.confidence;
#else
    acc += pbp_bench::int8_mlp_forward(mlp, x, g_int8_workspace);
#endif
  }
  g_sink = acc;
  printf("predict_cost: %u iterations\n", static_cast<unsigned>(iterations));
  return 0;
}
