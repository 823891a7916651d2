#!/usr/bin/env bash
# What aioprof says on a board where a file it needs is missing (tests/micropython/missing.py):
# without aioprof_fallback.py, aioprof_frames.py or aioprof_wrapper.py, enable() names the file;
# without asyncio, its own sentence. In MicroPython's unix port, with each build named:
#   AIOPROF_MICROPYTHON_STOCK   a unix-port binary without the C module (impl=None and "python")
#   AIOPROF_MICROPYTHON         one with it (impl="python"; impl=None takes the C module there)
# Skips (exit 77) when neither is named. mpy_wasm.sh runs the same cases in CI.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
builds=()
[ -n "${AIOPROF_MICROPYTHON_STOCK:-}" ] && builds+=("$AIOPROF_MICROPYTHON_STOCK")
[ -n "${AIOPROF_MICROPYTHON:-}" ] && builds+=("$AIOPROF_MICROPYTHON")
if [ ${#builds[@]} -eq 0 ]; then
    echo "mpy_missing: SKIPPED: set AIOPROF_MICROPYTHON_STOCK or AIOPROF_MICROPYTHON to unix-port builds (docs/micropython.md)"
    exit 77
fi
out="${AIOPROF_BUILD:-/tmp}/mpy-missing"
fail=0
for mp in "${builds[@]}"; do
    echo "=== $mp"
    rm -rf "$out"
    mkdir -p "$out"
    # the port's own path only (.frozen: asyncio); missing.py puts aioprof's files where it wants
    MICROPYPATH=.frozen "$mp" "$src/tests/micropython/missing.py" "$src/device/micropython" "$out" || fail=1
done
exit $fail
