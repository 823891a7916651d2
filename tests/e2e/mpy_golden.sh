#!/usr/bin/env bash
# The pure-Python recorder of the MicroPython binding (device/micropython/aioprof_fallback.py)
# makes the same bytes as the C device library for every golden vector (tests/golden/vectors.txt),
# through its enter()/exit() and through the wrapper asyncio resumes (whose generator writes an
# event's common case itself), run here under CPython; tests/e2e/mpy_wasm.sh runs the same check
# in MicroPython's WebAssembly VM (bytecode). When AIOPROF_MICROPYTHON_STOCK (or
# AIOPROF_MICROPYTHON) names a unix-port build, also there: the wrapper as machine code and the
# frame's CRC as viper code, as on a board with a native code emitter.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
checker="$src/tests/micropython/golden_fallback.py"
vectors="$src/tests/golden/vectors.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 > /dev/null; then
    echo "mpy_golden: python3 is needed"
    exit 1
fi
if ! python3 "$checker" "$vectors" "$src/device/micropython"; then
    echo "mpy_golden: FAIL: the fallback's bytes differ from the golden vectors"
    exit 1
fi
mp=${AIOPROF_MICROPYTHON_STOCK:-${AIOPROF_MICROPYTHON:-}}
if [ -n "$mp" ]; then
    if ! "$mp" "$checker" "$vectors" "$src/device/micropython" > "$tmp/unix.txt" 2>&1; then
        cat "$tmp/unix.txt"
        echo "mpy_golden: FAIL: in the unix port ($mp) the fallback's bytes differ from the golden vectors"
        exit 1
    fi
    tail -1 "$tmp/unix.txt" | sed 's/^/unix port: /'
fi
# the check can fail: one changed byte in a vector must be seen
sed '0,/^00 01 04 3f e8 03/s//00 01 04 3f e8 04/' "$vectors" > "$tmp/tampered.txt"
if cmp -s "$vectors" "$tmp/tampered.txt"; then
    echo "mpy_golden: FAIL: could not make the tampered copy (did the seed-like vector change?)"
    exit 1
fi
if python3 "$checker" "$tmp/tampered.txt" "$src/device/micropython" > "$tmp/out.txt"; then
    echo "mpy_golden: FAIL: a tampered vector was not noticed"
    exit 1
fi
grep -q "^FAIL seed-like" "$tmp/out.txt" || { echo "mpy_golden: FAIL: wrong vector blamed"; cat "$tmp/out.txt"; exit 1; }
echo "mpy_golden: ok (and a tampered vector is caught)"
