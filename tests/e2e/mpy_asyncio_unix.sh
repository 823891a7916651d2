#!/usr/bin/env bash
# MicroPython's own asyncio tests (tests/extmod/asyncio_*.py) through its own runner
# (tests/run-tests.py) in the unix port, without the hook and with each engine
# (tests/micropython/asyncio_suite.py says how the hook is put on). Every test that passes without
# the hook must pass with it, and each test's frames must read clean.
#   AIOPROF_MPY_SRC             the MicroPython source tree the binaries were built from
#   AIOPROF_MICROPYTHON         a unix-port build with the C module (firmware engine)
#   AIOPROF_MICROPYTHON_STOCK   a unix-port build without it (native and python engines)
#   AIOPROF_NATIVE_DIR          the directory of an x64 _aioprof_native.mpy (native engine)
# Skips (exit 77) without the source tree or without any binary.
set -u -o pipefail
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
mpy=${AIOPROF_MPY_SRC:-}
fw=${AIOPROF_MICROPYTHON:-}
stock=${AIOPROF_MICROPYTHON_STOCK:-}
if [ -z "$mpy" ] || { [ -z "$fw" ] && [ -z "$stock" ]; }; then
    echo "mpy_asyncio_unix: SKIPPED: set AIOPROF_MPY_SRC and AIOPROF_MICROPYTHON and/or AIOPROF_MICROPYTHON_STOCK"
    exit 77
fi
out="${AIOPROF_BUILD:-/tmp}/mpy-asyncio-unix"
fail=0
if [ -n "$fw" ]; then
    python3 "$src/tests/micropython/asyncio_suite.py" --src "$mpy" --top "$top" --out "$out/firmware" \
        --micropython "$fw" firmware | grep -v '^pass ' || fail=1
fi
if [ -n "$stock" ]; then
    engines=(python)
    [ -n "${AIOPROF_NATIVE_DIR:-}" ] && engines=(native python)
    python3 "$src/tests/micropython/asyncio_suite.py" --src "$mpy" --top "$top" --out "$out/stock" \
        --micropython "$stock" --native-dir "${AIOPROF_NATIVE_DIR:-}" "${engines[@]}" | grep -v '^pass ' || fail=1
fi
exit $fail
