// SPDX-License-Identifier: Apache-2.0
// The QEMU platform's main (called by the board glue's pbp_board_run, targets/boards/board.h):
// setup() then loop() once, so that the run ends and the emulator exits with main's status (a
// board would call loop() forever).
#include "Arduino.h"

QemuSerial Serial;

extern "C" void delay(unsigned long ms) {
  (void)ms;
}

int main(void) {
  setup();
  loop();
  fflush(stdout);
  return 0;
}
