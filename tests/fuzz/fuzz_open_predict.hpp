// SPDX-License-Identifier: Apache-2.0
// The one fuzz entry point, shared by the libFuzzer target and the corpus replay test.
#pragma once
#include <stddef.h>
#include <stdint.h>

// Opens `data` as a blob and, if it opens, predicts with it; aborts on a broken invariant.
// Each input is tried twice: as given, and with total_size and the CRC patched to match, so
// that mutations reach the checks behind the CRC.
void pbp_fuzz_open_predict(const uint8_t* data, size_t size);
