# BBC micro:bit (nRF51822, Cortex-M0) under QEMU. Memory map and stack size: memory.ld beside this file.
set(PBP_QEMU_MACHINE microbit)
