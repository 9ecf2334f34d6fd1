// SPDX-License-Identifier: Apache-2.0
// A failing check must give a non-zero exit status.
#include "harness.hpp"

PBP_TEST(deliberately_failing) {
  volatile int one = 1;
  PBP_CHECK_EQ(one, 2);
}
