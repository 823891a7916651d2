#!/usr/bin/env bash
# The tick counter wraps (at 2^30 and at 2^32), starting just before a wrap and, for long runs,
# several times: every figure must still equal the truth.
source "$(dirname "$0")/truth_common.bash"

check() {
    local name=$1
    shift
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

w30=$((1 << 30))
w32=$((1 << 32))
# busy traffic across one wrap, starting 2 s before it
check busy-30 -w busy --tick-bits 30 --start-tick $((w30 - 2000000)) --duration 6
check busy-32 -w busy --tick-bits 32 --start-tick $((w32 - 2000000)) --duration 6
check nested-30 -w nested --tick-bits 30 --start-tick $((w30 - 1000)) --duration 5
check instances-32 -w instances --tick-bits 32 --start-tick $((w32 - 1)) --duration 5
# slow 80 ms slices across three 30-bit wraps (54 minutes of device time)
check seed-30-long -w seed --tick-bits 30 --start-tick $((w30 - 5000000)) --duration 3300
# and two 32-bit wraps (2.4 hours)
check seed-32-long -w seed --tick-bits 32 --start-tick $((w32 - 5000000)) --duration 8700
exit $status
