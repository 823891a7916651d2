#!/usr/bin/env bash
# The MicroPython binding in MicroPython's unix port: every asyncio test script with the C module,
# the native .mpy and the fallback (tests/micropython/run_unix.sh). MicroPython is built outside
# this repository (docs/micropython.md); point the test at the results:
#   AIOPROF_MICROPYTHON   a unix-port binary built with USER_C_MODULES=<repo>/device/micropython
#   AIOPROF_NATIVE_DIR    the directory holding _aioprof_native.mpy (x64), optional
# Skips (exit 0) when AIOPROF_MICROPYTHON is not set.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
if [ -z "${AIOPROF_MICROPYTHON:-}" ]; then
    echo "mpy_unix: SKIPPED: set AIOPROF_MICROPYTHON to a unix-port build with the C module (docs/micropython.md)"
    exit 77
fi
engines=(firmware python)
[ -n "${AIOPROF_NATIVE_DIR:-}" ] && engines=(firmware native python)
OUT="${AIOPROF_BUILD:-/tmp}/mpy-unix" exec bash "$src/tests/micropython/run_unix.sh" "$AIOPROF_MICROPYTHON" "$top" "${engines[@]}"
