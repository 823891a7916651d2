#!/usr/bin/env bash
# A tiny ring behind a slow port: the device drops events. The report must stay at or below the
# truth, say how many were dropped, and mark the rows it cannot vouch for as lower bounds.
source "$(dirname "$0")/truth_common.bash"

check() {
    local name=$1
    shift
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    if ! "$TOP" -r "$tmp/$name.aiop" --report > "$tmp/$name.txt" || ! grep -q "≥\|>=" "$tmp/$name.txt"; then
        echo "FAIL $name: the text report does not mark lower bounds"; status=1; return
    fi
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" lower; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

check busy-256 -w busy --ring 256 --baud 115200 --duration 5
check busy-128 -w busy --ring 128 --baud 57600 --duration 5 --seed 4
check instances-256 -w instances --ring 256 --baud 9600 --duration 20
check nested-200 -w nested --ring 200 --baud 19200 --duration 10 --tick-bits 32
exit $status
