// SPDX-License-Identifier: Apache-2.0
// Deliberately uses the heap and libm: the symbol check must reject this library.
#include <stdlib.h>

extern "C" float expf(float);

float pbp_symbols_canary(float x) {
  float* p = static_cast<float*>(malloc(sizeof(float)));
  *p = expf(x);
  const float value = *p;
  free(p);
  return value;
}
