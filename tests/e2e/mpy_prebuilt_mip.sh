#!/usr/bin/env bash
# The mip packages installed by mpremote itself onto the stock MPS2_AN385 board (QEMU's -serial
# pty), into a file system in RAM: tests/micropython/mip_install.py (the installed files must be
# the repository's, and aioprof from there must load the native engine).
#   AIOPROF_QEMU_AN385_STOCK   the stock firmware (docs/micropython.md, "What was built")
#   AIOPROF_MPREMOTE           how to run mpremote (default: mpremote on PATH), e.g.
#                              "python3 /path/to/micropython/tools/mpremote/mpremote.py"
# Skips (exit 77) without the firmware, QEMU or mpremote. Slow: mpremote sends 256 bytes a
# command: 75 s for the 52 KB, measured beside other QEMUs and builds.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
fw=${AIOPROF_QEMU_AN385_STOCK:-}
if [ -z "$fw" ]; then
    echo "mpy_prebuilt_mip: SKIPPED: set AIOPROF_QEMU_AN385_STOCK to a stock qemu-port firmware for mps2-an385 (docs/micropython.md, \"What was built\")"
    exit 77
fi
command -v qemu-system-arm > /dev/null || { echo "mpy_prebuilt_mip: SKIPPED: qemu-system-arm is not installed"; exit 77; }
mpremote=${AIOPROF_MPREMOTE:-mpremote}
# shellcheck disable=SC2086
$mpremote --help > /dev/null 2>&1 || { echo "mpy_prebuilt_mip: SKIPPED: no mpremote ('$mpremote'): set AIOPROF_MPREMOTE"; exit 77; }
source "$(dirname "$0")/poll_common.bash"
qemu_out_dir mpy_prebuilt_mip
qemu_pty_start "$out/qemu.out" qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting -serial pty \
    -kernel "$fw" || { echo "mpy_prebuilt_mip: FAIL: QEMU did not say which pty it made"; exit 1; }
python3 "$src/tests/micropython/mip_install.py" "$pty" "$mpremote" armv7m "${AIOPROF_QEMU_MPY_VERSION:-6.3}"
