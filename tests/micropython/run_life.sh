#!/usr/bin/env bash
# Runs every scenario of life.py in MicroPython's unix port, without the hook (the baseline) and
# with each engine asked for, and checks each run with life_check.py.
#
# usage: run_life.sh MICROPYTHON AIOPROF_TOP [ENGINE...]
#   MICROPYTHON  a unix-port binary; for "firmware" one built with
#                USER_C_MODULES=<this repo>/device/micropython (docs/micropython.md)
#   ENGINE       firmware, native, python (default: all three)
# Environment: AIOPROF_NATIVE_DIR, the directory holding _aioprof_native.mpy (for "native");
#              OUT, where the runs' output goes (default: a temporary directory);
#              LIFE_SCENARIOS, the scenarios to run (default: all).
set -u
mp=${1:?usage: run_life.sh MICROPYTHON AIOPROF_TOP [ENGINE...]}
top=${2:?usage: run_life.sh MICROPYTHON AIOPROF_TOP [ENGINE...]}
shift 2
engines=("$@")
[ ${#engines[@]} -eq 0 ] && engines=(firmware native python)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
export MICROPYPATH="$repo/device/micropython:$here:${AIOPROF_NATIVE_DIR:-$here}:.frozen"
scenarios=${LIFE_SCENARIOS:-write_none write_partial burst end_return end_exit run_twice empty label traceback reimport}

fail=0
for s in $scenarios; do
    # the baseline: the scenario without the hook (exit status as the program's own)
    "$mp" "$here/life.py" none "$s" > "$out/$s.none.out" 2> "$out/$s.none.err"
    for engine in "${engines[@]}"; do
        echo "== $s with the $engine engine"
        rc=0
        "$mp" "$here/life.py" "$engine" "$s" > "$out/$s.$engine.out" 2> "$out/$s.$engine.err" || rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL $s ($engine): MicroPython exited with $rc"; cat "$out/$s.$engine.err"; fail=1; continue
        fi
        python3 "$here/life_check.py" "$s" "$top" "$out/$s.$engine.out" "$out/$s.$engine.err" \
            "$out/$s.none.out" "$out/$s.none.err" || fail=1
    done
done
[ $fail -eq 0 ] && echo "run_life: every scenario holds with: ${engines[*]}" || echo "run_life: FAILED (runs in $out)"
exit $fail
