/* SPDX-License-Identifier: Apache-2.0 */
/* The Arduino API of the QEMU test platform (targets/arduino/qemu): what a sketch of the library
 * uses (setup/loop, Serial.print of text, integers and floats with digits), the console being
 * semihosting through newlib's stdio. Only for checking the library under arduino-builder and
 * qemu-system-arm -M mps2-an386; real boards bring their own core. */
#ifndef PBP_QEMU_ARDUINO_H
#define PBP_QEMU_ARDUINO_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif
void setup(void);
void loop(void);
void delay(unsigned long ms);
#ifdef __cplusplus
}

/* A subset of Arduino's Print: numbers as Arduino prints them (floats rounded to `digits`). */
class QemuSerial {
 public:
  void begin(unsigned long baud) { (void)baud; }
  void print(const char* text) { fputs(text, stdout); }
  size_t write(const char* data, size_t size) { return fwrite(data, 1, size, stdout); }
  void print(char c) { putchar(c); }
  void print(int value) { printf("%d", value); }
  void print(unsigned value) { printf("%u", value); }
  void print(long value) { printf("%ld", value); }
  void print(unsigned long value) { printf("%lu", value); }
  void print(double value, int digits = 2) { printf("%.*f", digits, value); }
  void println() { putchar('\n'); }
  template <typename T>
  void println(T value) {
    print(value);
    println();
  }
  void println(double value, int digits) {
    print(value, digits);
    println();
  }
};
extern QemuSerial Serial;
#endif

#endif /* PBP_QEMU_ARDUINO_H */
