#!/usr/bin/env bash
# The trace's time line across tick counter wraps (30 and 32 bits, once and several times): on
# every track the slices stay in time order, the last ones lie past the wrap, and the figures
# still equal the statistics and the truth.
source "$(dirname "$0")/truth_common.bash"

check() { # name, device us before the (last) wrap the trace must pass, sim args...
    local name=$1 past=$2
    shift 2
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json --export-trace "$tmp/$name.trace.json" > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    if python3 "$here/trace_check.py" "$tmp/$name.trace.json" "$tmp/$name.json" --truth "$tmp/$name.truth.json" \
            --past-us "$past"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

w30=$((1 << 30))
w32=$((1 << 32))
check seed-30 $((w30 - 1073000000)) -w seed --tick-bits 30 --start-tick 1073000000 --duration 20
check busy-30 $((w30 - 1073000000)) -w busy --tick-bits 30 --start-tick 1073000000 --duration 6
check nested-30 1000 -w nested --tick-bits 30 --start-tick $((w30 - 1000)) --duration 5
check instances-32 1 -w instances --tick-bits 32 --start-tick $((w32 - 1)) --duration 5
# slow 80 ms slices across three 30-bit wraps: the last slices lie past the third
check seed-30-long $((5000000 + 2 * w30)) -w seed --tick-bits 30 --start-tick $((w30 - 5000000)) --duration 3300
exit $status
