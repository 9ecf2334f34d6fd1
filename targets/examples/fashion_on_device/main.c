/* SPDX-License-Identifier: Apache-2.0 */
/* fashion_on_device: a 784-400-400-10 Bayesian network classifying clothes, with int8 weights.
 *
 * The model (PBP, 10 epochs on the 60 000 Fashion-MNIST training images, then `pbp quantize
 * --storage int8`: 973 016 bytes, 2.03 bytes per weight; float32 would be 3.8 MB) stays in flash
 * (fashion_model.c). For each of the first Fashion-MNIST test images the device prints the class
 * probabilities of one deterministic pass (each with its float's bits, so that a comparison is
 * exact), the predicted class, its confidence and the predictive entropy. No heap: the model view
 * and the workspace (PBP_WORKSPACE_BYTES(784, 400) = 9 536 bytes) are static.
 *
 * It is also a test: CTest `example_fashion_on_device` runs it on the host and on every target
 * with the flash for it (under QEMU; not the 256 KiB micro:bit) and compares its output with
 * expected_output.txt, exactly: the same bits everywhere. */
#include <stdio.h>
#include <string.h>

#include "fashion_images.h"
#include "fashion_model.h"
#include "pbp/pbp.h"

static const char* const kClasses[10] = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                         "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                         "Bag",         "Ankle boot"};

static pbp_model model;
static float workspace[PBP_WORKSPACE_FLOATS(FASHION_PIXELS, 400)];
static float pixels[FASHION_PIXELS];

static unsigned long bits_of(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return (unsigned long)bits;
}

int main(void) {
  const size_t size = (size_t)(fashion_int8_end - fashion_int8);
  pbp_status status = pbp_open(&model, fashion_int8, size);
  if (status != PBP_OK) {
    printf("pbp_open: %s\n", pbp_status_string(status));
    return 1;
  }
  printf("model: %u inputs, %u layers, %u weights in %u bytes of flash, storage %s\n",
         (unsigned)model.input_count, (unsigned)model.layer_count, (unsigned)model.weight_count,
         (unsigned)model.blob_size,
         model.layers[0].storage == PBP_STORAGE_INT8 ? "int8" : "not int8");
  for (unsigned i = 0; i < FASHION_IMAGES; ++i) {
    for (unsigned k = 0; k < FASHION_PIXELS; ++k) pixels[k] = (float)fashion_images[i][k];
    float p[10];
    pbp_class_result result;
    status = pbp_predict_classes(&model, pixels, FASHION_PIXELS, workspace, sizeof workspace, p, 10,
                                 &result);
    if (status != PBP_OK) {
      printf("pbp_predict_classes: %s\n", pbp_status_string(status));
      return 1;
    }
    printf("image %u (a %s): %s, confidence %.4f, entropy %.4f nats\n", i,
           kClasses[fashion_labels[i]], kClasses[result.predicted_class], (double)result.confidence,
           (double)result.entropy);
    for (unsigned c = 0; c < 10; ++c) {
      printf("  %-12s %9.3e  0x%08lx\n", kClasses[c], (double)p[c], bits_of(p[c]));
    }
  }
  return 0;
}
