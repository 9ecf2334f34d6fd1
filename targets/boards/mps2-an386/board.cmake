# Arm MPS2 AN386 (Cortex-M4F) under QEMU. Memory map and stack size: memory.ld beside this file.
set(PBP_QEMU_MACHINE mps2-an386)
