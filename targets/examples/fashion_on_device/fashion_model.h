/* SPDX-License-Identifier: Apache-2.0 */
/* The int8 784-400-400-10 Fashion-MNIST model (fashion_model.c). */
#ifndef FASHION_MODEL_H
#define FASHION_MODEL_H
#include <stdint.h>

extern const uint8_t fashion_int8[];     /* the blob's first byte */
extern const uint8_t fashion_int8_end[]; /* one past its last */

#endif
