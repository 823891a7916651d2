#!/usr/bin/env bash
# Runs the asyncio test scripts of this directory in MicroPython's unix port, without the hook and
# with each engine asked for, and checks aioprof-top's report of every capture against what the
# script measured itself (check_report.py), and the lateness the engine sent with each resume
# against the bounds the script gave it (late_check.py).
#
# usage: run_unix.sh MICROPYTHON AIOPROF_TOP [ENGINE...]
#   MICROPYTHON  a unix-port binary; for "firmware" one built with
#                USER_C_MODULES=<this repo>/device/micropython (docs/micropython.md)
#   ENGINE       firmware, native, python (default: all three)
# Environment: AIOPROF_NATIVE_DIR, the directory holding _aioprof_native.mpy (for "native");
#              OUT, where captures go (default: a temporary directory).
set -u
mp=${1:?usage: run_unix.sh MICROPYTHON AIOPROF_TOP [ENGINE...]}
top=${2:?usage: run_unix.sh MICROPYTHON AIOPROF_TOP [ENGINE...]}
shift 2
engines=("$@")
[ ${#engines[@]} -eq 0 ] && engines=(firmware native python)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
export MICROPYPATH="$repo/device/micropython:$here:${AIOPROF_NATIVE_DIR:-$here}:.frozen"

fail=0
for script in "$here"/aio_*.py; do
    name=$(basename "$script" .py)
    if ! "$mp" "$here/with_aioprof.py" none "$script" > "$out/$name.baseline.txt" 2> "$out/$name.baseline.err"; then
        echo "FAIL $name: the script fails without the hook:"; cat "$out/$name.baseline.err"; fail=1; continue
    fi
    for engine in "${engines[@]}"; do
        # the C engines add a few microseconds to a slice, the Python one some tens
        allowance=200; [ "$engine" = python ] && allowance=600
        cap="$out/$name.$engine.bin"
        echo "== $name with the $engine engine"
        if ! "$mp" "$here/with_aioprof.py" "$engine" "$script" > "$cap" 2> "$out/$name.$engine.err"; then
            echo "FAIL $name ($engine): the script fails with the hook:"; cat "$out/$name.$engine.err"; fail=1; continue
        fi
        if ! "$top" -r "$cap" --json > "$out/$name.$engine.json" 2> "$out/$name.$engine.device"; then
            echo "FAIL $name ($engine): aioprof-top could not read the capture"; cat "$out/$name.$engine.device"; fail=1; continue
        fi
        python3 "$here/check_report.py" "$out/$name.$engine.json" "$out/$name.$engine.device" \
            "$out/$name.baseline.txt" "$allowance" || fail=1
        python3 "$here/late_check.py" "$cap" "$out/$name.$engine.device" "$out/$name.$engine.json" || fail=1
    done
done
[ $fail -eq 0 ] && echo "run_unix: all scripts match with: ${engines[*]}" || echo "run_unix: FAILED (captures in $out)"
exit $fail
