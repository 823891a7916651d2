#!/usr/bin/env bash
# A board's life in MicroPython's unix port (tests/micropython/life.py through run_life.sh): what
# write= returns, a burst of task creations, a program that ends without disable(), enable() with
# no task, label() outside the profiled time and cut at a character boundary, tracebacks, a second
# start after the modules were imported again. MicroPython is built outside this repository
# (docs/micropython.md); point the test at the results:
#   AIOPROF_MICROPYTHON         a unix-port binary built with USER_C_MODULES=<repo>/device/micropython
#                               (the firmware engine; also the others when the next is not set)
#   AIOPROF_MICROPYTHON_STOCK   a unix-port binary without the module, for the native and python
#                               engines, as a user without their own firmware has it
#   AIOPROF_NATIVE_DIR          the directory holding an x64 _aioprof_native.mpy (native engine)
# Skips (exit 77) when neither binary is named.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
fw=${AIOPROF_MICROPYTHON:-}
stock=${AIOPROF_MICROPYTHON_STOCK:-$fw}
if [ -z "$fw" ] && [ -z "$stock" ]; then
    echo "mpy_life: SKIPPED: set AIOPROF_MICROPYTHON (and AIOPROF_MICROPYTHON_STOCK) to unix-port builds (docs/micropython.md)"
    exit 77
fi
out="${AIOPROF_BUILD:-/tmp}/mpy-life"
rm -rf "$out"
fail=0
if [ -n "$fw" ]; then
    echo "=== firmware engine: $fw"
    OUT="$out/firmware" bash "$src/tests/micropython/run_life.sh" "$fw" "$top" firmware || fail=1
fi
engines=(python)
[ -n "${AIOPROF_NATIVE_DIR:-}" ] && engines=(native python)
echo "=== ${engines[*]} engines: $stock"
OUT="$out/stock" bash "$src/tests/micropython/run_life.sh" "$stock" "$top" "${engines[@]}" || fail=1
exit $fail
