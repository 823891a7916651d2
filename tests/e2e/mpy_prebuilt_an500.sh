#!/usr/bin/env bash
# The prebuilt armv7emdp, armv7emsp and armv6m modules on MicroPython's qemu port, MPS2_AN500 (a
# Cortex-M7 with a double-precision FPU), stock firmware (tests/e2e/mpy_prebuilt_qemu.bash).
#   AIOPROF_QEMU_AN500_STOCK   its firmware.elf; AIOPROF_MPY_SRC adds MicroPython's asyncio tests
name=mpy_prebuilt_an500 fw_var=AIOPROF_QEMU_AN500_STOCK qemu=qemu-system-arm machine=mps2-an500
qemu_args="" arches="armv7emdp armv7emsp armv6m" frames=uart1
source "$(dirname "$0")/mpy_prebuilt_qemu.bash"
