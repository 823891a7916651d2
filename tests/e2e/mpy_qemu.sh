#!/usr/bin/env bash
# MicroPython's qemu port (mps2-an385, Cortex-M3) built with the C module and aioprof.py frozen
# (docs/micropython.md, "The qemu port"), end to end as a board: its UART on QEMU's -serial pty,
# read live by aioprof-top, programs sent through the raw REPL with soft resets between them
# (tests/micropython/qemu_session.py): the firmware engine left enabled at a soft reset, the
# firmware engine again, and the native engine when its .mpy is given.
#   AIOPROF_MPY_QEMU_FIRMWARE   the firmware (firmware.elf of ports/qemu, BOARD=MPS2_AN385)
#   AIOPROF_MPY_QEMU_NATIVE     an armv7m _aioprof_native.mpy (optional)
# Skips (exit 77) when the firmware is not named or qemu-system-arm is missing.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
fw=${AIOPROF_MPY_QEMU_FIRMWARE:-}
if [ -z "$fw" ]; then
    echo "mpy_qemu: SKIPPED: set AIOPROF_MPY_QEMU_FIRMWARE to a qemu-port firmware with the C module (docs/micropython.md)"
    exit 77
fi
[ -f "$fw" ] || { echo "mpy_qemu: FAIL: no firmware at $fw"; exit 1; }
command -v qemu-system-arm > /dev/null || { echo "mpy_qemu: SKIPPED: qemu-system-arm not installed"; exit 77; }
source "$(dirname "$0")/poll_common.bash"
qemu_out_dir mpy-qemu
qemu_pty_start "$out/qemu.out" qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting -serial pty \
    -kernel "$fw" || { echo "mpy_qemu: FAIL: QEMU did not say which pty it made"; exit 1; }
echo "the board's UART is $pty"

runs=(firmware:keep firmware)
[ -n "${AIOPROF_MPY_QEMU_NATIVE:-}" ] && runs+=(native)
python3 "$src/tests/micropython/qemu_session.py" "$pty" "$top" "$out" "${runs[@]}"
