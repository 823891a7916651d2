#!/usr/bin/env bash
# aioprof's Python side in a real MicroPython VM: the WebAssembly port from npm
# (@micropython/micropython-webassembly-pyscript, the version pinned in
# tests/micropython/package-lock.json) under Node.js. Runs the golden vectors through the
# fallback, then every asyncio test script without the hook and with it; aioprof-top reads each
# capture and check_report.py compares its report with what the script measured itself, and
# late_check.py the lateness of each resume with the bounds the script gave it. Then the
# scenarios of a board's life (tests/micropython/life.py) with the Python engine.
#
# Skips (exit 0) only when node or npm is missing and CI is not set.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
build=${AIOPROF_BUILD:-$src/build}
here="$src/tests/micropython"

if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
    if [ -n "${CI:-}" ]; then
        echo "mpy_wasm: FAIL: node and npm are needed in CI"
        exit 1
    fi
    echo "mpy_wasm: SKIPPED: node/npm not installed (apt-get install nodejs npm)"
    exit 77
fi

# the package goes under the build tree, never into the repository
cache="$build/mpy-wasm"
mkdir -p "$cache"
cp "$here/package.json" "$here/package-lock.json" "$cache/"
if [ ! -d "$cache/node_modules/@micropython/micropython-webassembly-pyscript" ] ||
    ! cmp -s "$here/package-lock.json" "$cache/node_modules/.package-lock.json.aioprof"; then
    if ! (cd "$cache" && npm ci --no-audit --no-fund --loglevel=error); then
        echo "mpy_wasm: FAIL: npm ci could not install the pinned MicroPython package"
        exit 1
    fi
    cp "$here/package-lock.json" "$cache/node_modules/.package-lock.json.aioprof"
fi
export AIOPROF_NODE_MODULES="$cache"
out="$cache/out"
rm -rf "$out"
mkdir -p "$out"

fail=0
echo "== golden vectors through the fallback, in MicroPython"
if ! node "$here/run_wasm.mjs" golden "$src/tests/golden/vectors.txt" "$out/golden.txt"; then
    fail=1
fi
cat "$out/golden.txt"
grep -q "^golden: \([0-9]*\) of \1 vectors equal" "$out/golden.txt" || fail=1

echo "== a file of the python engine or asyncio missing: enable() names it"
node "$here/run_wasm.mjs" missing "$out/missing.txt" || fail=1
cat "$out/missing.txt"
grep -q "^missing: \([1-9][0-9]*\) of \1 cases ok" "$out/missing.txt" || fail=1

for script in "$here"/aio_*.py; do
    name=$(basename "$script" .py)
    if grep -q "^def entry" "$script"; then
        echo "== $name: skipped (needs run_until_complete, which this port's loop lacks)"
        continue
    fi
    echo "== $name"
    if ! node "$here/run_wasm.mjs" script none "$script" "$out/$name.baseline.txt"; then
        echo "FAIL $name: fails without the hook"; fail=1; continue
    fi
    if ! node "$here/run_wasm.mjs" script python "$script" "$out/$name.bin"; then
        echo "FAIL $name: fails with the hook"; fail=1; continue
    fi
    if ! "$top" -r "$out/$name.bin" --json > "$out/$name.json" 2> "$out/$name.device"; then
        echo "FAIL $name: aioprof-top could not read the capture"; cat "$out/$name.device"; fail=1; continue
    fi
    # this port's ticks_us counts milliseconds: a slice may look a tick longer or shorter
    python3 "$here/check_report.py" "$out/$name.json" "$out/$name.device" "$out/$name.baseline.txt" 1000 1000 || fail=1
    # each resume's lateness, within what the script bounded (aio_seed: quicker about 80 ms late)
    python3 "$here/late_check.py" "$out/$name.bin" "$out/$name.device" "$out/$name.json" || fail=1
done
# A board's life (tests/micropython/life.py; life_check.py says what each scenario guarantees).
# Not here: traceback (this port has no native code emitter, so the Python wrapper's frames stay
# in tracebacks), end_exit (no sys.atexit) and reimport (its asyncio has no run()).
for s in write_none write_partial burst end_return empty label; do
    echo "== life: $s"
    node "$here/run_wasm.mjs" life none "$s" "$out/life.$s.none.out" "$out/life.$s.none.err" || {
        echo "FAIL life $s: fails without the hook"; fail=1; continue; }
    if ! node "$here/run_wasm.mjs" life python "$s" "$out/life.$s.python.out" "$out/life.$s.python.err"; then
        echo "FAIL life $s: fails with the hook"; cat "$out/life.$s.python.err"; fail=1; continue
    fi
    python3 "$here/life_check.py" "$s" "$top" "$out/life.$s.python.out" "$out/life.$s.python.err" \
        "$out/life.$s.none.out" "$out/life.$s.none.err" 1000 || fail=1
done
[ $fail -eq 0 ] && echo "mpy_wasm: ok" || echo "mpy_wasm: FAILED (files in $out)"
exit $fail
