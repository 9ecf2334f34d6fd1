/* SPDX-License-Identifier: Apache-2.0 */
// main's return value must become the emulator's exit status; printf must format floats.
#include <stdio.h>

int main(void) {
  volatile double x = 1.5;
  volatile float y = -2.5f;
  volatile long long big = 1234567890123ll;
  printf("printf %f %.1e %lld\n", x, (double)y, big);
  return 42;
}
