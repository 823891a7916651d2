#!/usr/bin/env bash
# --export-trace on every simulator workload: the trace parses, and its slices per task equal the
# statistics (aioprof-top --json of the same run) and the simulator's truth exactly: counts, total
# exclusive time, maxima; per track in time order; every wall span = own time + nested slices.
# The spans workload: every span piece inside a slice of its task, the spans closed as in the report.
# The export must not change the statistics, and works beside --report and --json alike.
source "$(dirname "$0")/truth_common.bash"

check() { # name, sim args...
    local name=$1
    shift
    truth_capture "$name" "$@" || return
    if ! "$TOP" -r "$tmp/$name.aiop" --json --export-trace "$tmp/$name.trace.json" > "$tmp/$name.json"; then
        echo "FAIL $name: aioprof-top --json --export-trace exited with $?"; status=1; return
    fi
    # the same statistics without the export
    "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.plain.json"
    if ! python3 - "$tmp/$name.json" "$tmp/$name.plain.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop("source", None)
sys.exit(0 if a == b else 1)
PY
    then
        echo "FAIL $name: --export-trace changed the statistics"; status=1; return
    fi
    # beside the text report: the same trace, byte for byte
    if ! "$TOP" -r "$tmp/$name.aiop" --report --export-trace "$tmp/$name.trace2.json" > /dev/null ||
        ! cmp -s "$tmp/$name.trace.json" "$tmp/$name.trace2.json"; then
        echo "FAIL $name: the trace written beside --report differs"; status=1; return
    fi
    if python3 "$here/trace_check.py" "$tmp/$name.trace.json" "$tmp/$name.json" --truth "$tmp/$name.truth.json" &&
        python3 "$here/truth_compare.py" "$tmp/$name.json" "$tmp/$name.truth.json" exact "$tmp/$name.aiop"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
}

for seed in 1 2; do
    check "seed-$seed" -w seed --clock virtual --duration 20 --seed "$seed"
    check "instances-$seed" -w instances --clock virtual --duration 30 --seed "$seed"
    check "busy-$seed" -w busy --clock virtual --duration 10 --seed "$seed"
    check "nested-$seed" -w nested --clock virtual --duration 20 --seed "$seed"
done
check "nested-32" -w nested --clock virtual --duration 10 --tick-bits 32 --ring 8192
check "spans" -w spans --clock virtual --duration 10
check "seed-spans" -w seed-spans --clock virtual --duration 10

# an existing file is kept unless --force; the recording itself never (a usage error: exit 2)
"$SIM" -w seed --duration 2 -q -o "$tmp/keep.aiop"
echo precious > "$tmp/keep.json"
"$TOP" -r "$tmp/keep.aiop" --json --export-trace "$tmp/keep.json" > /dev/null 2> "$tmp/keep.err"
rc=$?
if [ $rc -ne 1 ] || [ "$(cat "$tmp/keep.json")" != precious ] || ! grep -q -- "--force" "$tmp/keep.err"; then
    echo "FAIL keep: exit $rc, $(cat "$tmp/keep.err")"; status=1
else
    echo "ok   keep: $(cat "$tmp/keep.err")"
fi
cp "$tmp/keep.aiop" "$tmp/keep2.aiop"
"$TOP" -r "$tmp/keep.aiop" --json --force --export-trace "$tmp/keep.aiop" > /dev/null 2> "$tmp/keep.err"
rc=$?
if [ $rc -ne 2 ] || ! cmp -s "$tmp/keep.aiop" "$tmp/keep2.aiop"; then
    echo "FAIL keep-input: exit $rc, $(cat "$tmp/keep.err")"; status=1
else
    echo "ok   keep-input: $(cat "$tmp/keep.err")"
fi
# a recording that cannot be read leaves no trace file behind
"$TOP" -r "$tmp/missing.aiop" --json --export-trace "$tmp/missing.json" > /dev/null 2>&1
if [ $? -ne 1 ] || [ -e "$tmp/missing.json" ]; then
    echo "FAIL missing: exit code or a trace file left"; status=1
else
    echo "ok   missing"
fi
exit $status
