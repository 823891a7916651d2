#!/usr/bin/env bash
# A device clock that steps back now and then (MicroPython's qemu port reads its millisecond counter
# and SysTick apart, real boards' tick readers race with interrupts): the simulator stamps every
# Nth slice's end 1 ms early. Every figure must equal the truth, which times slices on the latest
# reading as docs/protocol.md section 4 says; the steps back are counted exactly; no slice is ever
# anything like the tick range (the 71-minute slice of a 32-bit wrap); 30- and 32-bit ticks, across
# a wrap too.
source "$(dirname "$0")/truth_common.bash"

check() {
    local name=$1
    shift
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> "$tmp/$name.err"; then
        echo "FAIL $name: aioprof-top exited with $?"; status=1; return
    fi
    steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["clock_steps_back"])' "$tmp/$name.truth.json")
    if [ "$steps" -lt 10 ]; then
        echo "FAIL $name: the clock stepped back only $steps times: the test tests nothing"; status=1; return
    fi
    "$TOP" -r "$tmp/$name.aiop" --report > "$tmp/$name.txt" 2>&1
    if ! grep -q " $steps clock steps back" "$tmp/$name.txt"; then
        echo "FAIL $name: the text report does not say $steps clock steps back"; grep health "$tmp/$name.txt"; status=1; return
    fi
    if python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name ($steps steps back)"
    else
        echo "FAIL $name"; status=1
    fi
}

w30=$((1 << 30))
w32=$((1 << 32))
check busy-30 -w busy --clock-back 7 --duration 5 --tick-bits 30
check busy-32 -w busy --clock-back 7 --duration 5 --tick-bits 32 --start-tick $((w32 - 2000000))
check nested-30 -w nested --clock-back 3 --duration 5 --tick-bits 30 --start-tick $((w30 - 1000000))
check instances-32 -w instances --clock-back 5 --duration 8 --tick-bits 32
exit $status
