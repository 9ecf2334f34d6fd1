# Arm MPS2 AN500 (Cortex-M7) under QEMU. Memory map and stack size: memory.ld beside this file.
set(PBP_QEMU_MACHINE mps2-an500)
