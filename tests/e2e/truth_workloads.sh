#!/usr/bin/env bash
# Every simulator workload, several seeds: aioprof-top's JSON must equal the simulator's truth
# exactly (counts, totals, maxima per name and per instance), and the text report must run.
source "$(dirname "$0")/truth_common.bash"

check() { # name, sim args...
    local name=$1
    shift
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    if ! "$TOP" -r "$tmp/$name.aiop" --report --instances > "$tmp/$name.txt"; then
        echo "FAIL $name: aioprof-top --report exited with $?"; status=1; return
    fi
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

for seed in 1 2 3; do
    check "seed-$seed" -w seed --clock virtual --duration 12 --seed "$seed"
    check "instances-$seed" -w instances --clock virtual --duration 30 --seed "$seed"
    check "busy-$seed" -w busy --clock virtual --duration 10 --seed "$seed"
    check "nested-$seed" -w nested --clock virtual --duration 20 --seed "$seed"
done
# a bigger ring and a 32-bit counter change the framing, not the figures
check "busy-ring8k-32" -w busy --clock virtual --duration 10 --ring 8192 --tick-bits 32
exit $status
