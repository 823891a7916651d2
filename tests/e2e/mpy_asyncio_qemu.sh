#!/usr/bin/env bash
# MicroPython's own asyncio tests (tests/extmod/asyncio_*.py) through its own runner
# (tests/run-tests.py) on the qemu port's firmware (mps2-an385), a soft reset between tests, without
# the hook and with each engine (tests/micropython/asyncio_suite.py: the frames go out on the
# board's second UART). Every test that passes without the hook must pass with it, and the frames
# must read clean, each test's starting with a HELLO of a fresh start.
#   AIOPROF_MPY_SRC             the MicroPython source tree the firmware was built from
#   AIOPROF_MPY_QEMU_FIRMWARE   the firmware with the C module and aioprof.py frozen
#   AIOPROF_MPY_QEMU_NATIVE     an armv7m _aioprof_native.mpy (native engine, optional)
# Needs qemu-system-arm and pyserial (python3-serial), which run-tests.py uses to reach a board.
# Skips (exit 77) without the source tree, the firmware or QEMU.
set -u -o pipefail
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
mpy=${AIOPROF_MPY_SRC:-}
fw=${AIOPROF_MPY_QEMU_FIRMWARE:-}
if [ -z "$mpy" ] || [ -z "$fw" ]; then
    echo "mpy_asyncio_qemu: SKIPPED: set AIOPROF_MPY_SRC and AIOPROF_MPY_QEMU_FIRMWARE"
    exit 77
fi
command -v qemu-system-arm > /dev/null || { echo "mpy_asyncio_qemu: SKIPPED: qemu-system-arm not installed"; exit 77; }
engines=(firmware python)
native=()
if [ -n "${AIOPROF_MPY_QEMU_NATIVE:-}" ]; then
    engines+=(native)
    native=(--native-mpy "$AIOPROF_MPY_QEMU_NATIVE")
fi
python3 "$src/tests/micropython/asyncio_suite.py" --src "$mpy" --top "$top" \
    --out "${AIOPROF_BUILD:-/tmp}/mpy-asyncio-qemu" --qemu-firmware "$fw" "${native[@]}" "${engines[@]}" | grep -v '^pass '
