#!/usr/bin/env bash
# board_install_qemu's checks on a RISC-V board: MicroPython's qemu port VIRT_RV32 (a stock
# firmware), which gets the prebuilt rv32imc module from --install (issue 23's "at least the
# Cortex-M3 and the RISC-V one").
#   AIOPROF_MPY_QEMU_RV32_STOCK_FIRMWARE  its firmware.elf: built as the Cortex-M3's stock board
#       (docs/micropython.md, "A stock qemu board"), BOARD=VIRT_RV32 with a heap of 512 KB, nothing
#       of aioprof frozen; the port's default heap (200 KB) cannot hold the RAM filesystem and
#       compile aioprof.py from it
# Skips (exit 77) without it or without qemu-system-riscv32.
BOARD_TEST=board_install_rv32 BOARD_FIRMWARE_VAR=AIOPROF_MPY_QEMU_RV32_STOCK_FIRMWARE BOARD_QEMU=qemu-system-riscv32 \
    BOARD_MACHINE=virt BOARD_QEMU_ARGS="-bios none" BOARD_ARCH=rv32imc \
    exec bash "$(dirname "$0")/board_install_qemu.sh"
