/* SPDX-License-Identifier: Apache-2.0 */
/* The pbp-edge runtime as an Arduino library: `#include <pbp_edge.h>` gives the C API (pbp/pbp.h,
 * pbp/pbp_learn.h and pbp/pbp_store.h, the same headers as every other build;
 * targets/DEPLOYING.md); pbp_runtime.cpp beside it is the
 * whole runtime, amalgamated from runtime/src by tools/scripts/amalgamate.py. */
#ifndef PBP_EDGE_ARDUINO_H
#define PBP_EDGE_ARDUINO_H
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include "pbp/pbp_store.h"
#endif
