#!/usr/bin/env bash
# Memory in MicroPython's unix port (tests/micropython/mem_tasks.py, mem_check.py): with the
# firmware engine, a task that allocates 16 KB a slice and one that allocates nothing, the
# collector off (hog's bytes as its own code counted them, within a slack per slice) and on (its
# collections seen, the figures marked as lower bounds, no time); the python engine with
# memory="walk" the same (its figures lower bounds, no collection seen); with the python engine's
# default and the native engine no memory figure at all. Needs a unix build with this branch's C module:
#   AIOPROF_MICROPYTHON        (firmware engine), AIOPROF_MICROPYTHON_STOCK (python engine)
#   AIOPROF_NATIVE_DIR         optional: the native engine too
# Skips (exit 77) without them.
set -u
src=${AIOPROF_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
top=${AIOPROF_TOP:?AIOPROF_TOP must name the aioprof-top binary}
fw=${AIOPROF_MICROPYTHON:-}
stock=${AIOPROF_MICROPYTHON_STOCK:-}
if [ -z "$fw" ] && [ -z "$stock" ]; then
    echo "mpy_mem_unix: SKIPPED: set AIOPROF_MICROPYTHON (a unix build with the C module) and/or AIOPROF_MICROPYTHON_STOCK"
    exit 77
fi
here="$src/tests/micropython"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MICROPYPATH="$src/device/micropython:$here:${AIOPROF_NATIVE_DIR:-$here}:.frozen"
fail=0
run() { # run BINARY ENGINE [gc]
    local mp=$1 engine=$2 gc=${3:-}
    local name=$engine${gc:+-gc}
    if ! "$mp" "$here/with_aioprof.py" "$engine" "$here/mem_tasks.py" $gc > "$tmp/$name.bin" 2> "$tmp/$name.err"; then
        echo "FAIL mpy_mem_unix $name: the script failed:"; cat "$tmp/$name.err"; fail=1; return
    fi
    if ! "$top" -r "$tmp/$name.bin" --json > "$tmp/$name.json" 2> "$tmp/$name.out"; then
        echo "FAIL mpy_mem_unix $name: aioprof-top could not read the capture"; cat "$tmp/$name.out"; fail=1; return
    fi
    python3 "$here/mem_check.py" "$engine" "$tmp/$name.json" "$tmp/$name.out" $gc || fail=1
}
if [ -n "$fw" ]; then
    run "$fw" firmware
    run "$fw" firmware gc
fi
if [ -n "$stock" ]; then
    run "$stock" python
    run "$stock" python-walk
    run "$stock" python-walk gc
    [ -n "${AIOPROF_NATIVE_DIR:-}" ] && run "$stock" native
fi
exit $fail
