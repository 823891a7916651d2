#!/usr/bin/env bash
# The prebuilt armv7m and armv6m modules (a Cortex-M3 runs Thumb-1 code) on MicroPython's qemu
# port, MPS2_AN385, stock firmware (tests/e2e/mpy_prebuilt_qemu.bash says what is checked).
#   AIOPROF_QEMU_AN385_STOCK   its firmware.elf; AIOPROF_MPY_SRC adds MicroPython's asyncio tests
name=mpy_prebuilt_an385 fw_var=AIOPROF_QEMU_AN385_STOCK qemu=qemu-system-arm machine=mps2-an385
qemu_args="" arches="armv7m armv6m" frames=uart1
source "$(dirname "$0")/mpy_prebuilt_qemu.bash"
