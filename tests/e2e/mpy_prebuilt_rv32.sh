#!/usr/bin/env bash
# The prebuilt rv32imc module on MicroPython's qemu port, VIRT_RV32, stock firmware
# (tests/e2e/mpy_prebuilt_qemu.bash). The virt machine has one UART: in MicroPython's asyncio
# tests the hook's frames are made and thrown away (the seed example's session reads them).
#   AIOPROF_QEMU_RV32_STOCK   its firmware.elf; AIOPROF_MPY_SRC adds MicroPython's asyncio tests
name=mpy_prebuilt_rv32 fw_var=AIOPROF_QEMU_RV32_STOCK qemu=qemu-system-riscv32 machine=virt
qemu_args="-bios none" arches="rv32imc" frames=none
source "$(dirname "$0")/mpy_prebuilt_qemu.bash"
