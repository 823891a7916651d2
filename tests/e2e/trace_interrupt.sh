#!/usr/bin/env bash
# An export interrupted by Ctrl-C or SIGTERM is closed properly: valid JSON, equal to the report
# printed at the same stop. A live session's trace reaches the file as it goes (flushed every
# second), so even kill -9 leaves a file that ends after a whole event and that "]}" completes.
# Each signal goes once the trace holds a slice, not after a guessed time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
TOP=${AIOPROF_TOP:-${AIOPROF_BUILD:-build}/host/aioprof-top}
SIM=${AIOPROF_SIM:-${AIOPROF_BUILD:-build}/device/sim/aioprof-sim}
export AIOPROF_SIM="$SIM" # --demo runs it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# traced_slices FILE: how many whole slices the trace file being written holds (0 while it holds
# none or cannot be completed with "]}").
traced_slices() {
    python3 - "$1" <<'PY'
import json, sys
try:
    doc = json.loads(open(sys.argv[1]).read() + "]}")
except (OSError, ValueError):
    print(0)
else:
    print(sum(e.get("ph") == "X" for e in doc["traceEvents"]))
PY
}

# stop_when_traced NAME SIGNAL ARGS...: runs aioprof-top ARGS, whose --export-trace must be
# $tmp/NAME.trace.json; once that file holds a whole slice (the export flushes every second), sends
# SIGNAL, waits, and prints the exit code. The slices seen before the signal are in $tmp/NAME.seen.
stop_when_traced() {
    local name=$1 sig=$2 end=$((SECONDS + 60)) n=0 rc=0
    shift 2
    "$TOP" "$@" > "$tmp/$name.json" 2> "$tmp/$name.err" &
    local pid=$!
    while kill -0 "$pid" 2> /dev/null && [ $SECONDS -lt $end ]; do
        n=$(traced_slices "$tmp/$name.trace.json")
        [ "$n" -gt 0 ] && break
        sleep 0.1
    done
    echo "$n" > "$tmp/$name.seen"
    kill "-$sig" "$pid"
    wait "$pid" || rc=$?
    echo $rc
}
# a recording with receive times, for a paced replay
"$TOP" --demo --workload busy --duration 4 -w "$tmp/rec.aiop" --json > "$tmp/full.json" 2> "$tmp/rec.err" ||
    { echo "FAIL recording the demo: $(cat "$tmp/rec.err")"; exit 1; }

for sig in INT TERM; do
    name=replay-$sig
    # half speed: the 4 s recording takes 8 s, long after the first flush
    rc=$(stop_when_traced "$name" "$sig" -r "$tmp/rec.aiop" --speed 0.5 --json --export-trace "$tmp/$name.trace.json")
    if [ "$rc" != 0 ]; then
        echo "FAIL $name: exit $rc"; status=1; continue
    fi
    if python3 "$here/trace_check.py" "$tmp/$name.trace.json" "$tmp/$name.json" &&
        python3 - "$tmp/$name.json" "$tmp/full.json" <<'PY'
import json, sys
part, full = (json.load(open(p)) for p in sys.argv[1:])
n = lambda r: sum(t["count"] for t in r["tasks"])
# stopped on the way: something, not everything
sys.exit(0 if 0 < n(part) < n(full) else 1)
PY
    then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi

    name=demo-$sig
    rc=$(stop_when_traced "$name" "$sig" --demo --workload nested --json --export-trace "$tmp/$name.trace.json")
    if [ "$rc" != 0 ]; then
        echo "FAIL $name: exit $rc: $(head -c 300 "$tmp/$name.err")"; status=1; continue
    fi
    if python3 "$here/trace_check.py" "$tmp/$name.trace.json" "$tmp/$name.json"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; status=1
    fi
done

# kill -9: nothing closes the file; what was flushed ends after a whole event, and keeps every
# slice that was there before the kill
name=killed
rc=$(stop_when_traced "$name" KILL -r "$tmp/rec.aiop" --speed 0.5 --json --export-trace "$tmp/$name.trace.json")
seen=$(cat "$tmp/$name.seen")
if [ "$rc" != 137 ]; then
    echo "FAIL $name: exit $rc (expected 137)"; status=1
elif [ "$seen" -eq 0 ]; then
    echo "FAIL $name: the trace held no slice before the kill"; status=1
elif python3 "$here/trace_check.py" "$tmp/$name.trace.json" --repair &&
    [ "$(traced_slices "$tmp/$name.trace.json")" -ge "$seen" ]; then
    echo "ok   $name (completed with \"]}\", $seen slices flushed before the kill)"
else
    echo "FAIL $name: $(traced_slices "$tmp/$name.trace.json") slices after the kill, $seen before"; status=1
fi

# a write error (a 64 KiB file size limit) stops the export, said once; the session still reports
name=write-error
"$SIM" -w busy --clock virtual --duration 30 -o "$tmp/busy.bin" 2> /dev/null
rc=0
bash -c 'ulimit -f 64; exec "$@"' limit "$TOP" -r "$tmp/busy.bin" --export-trace "$tmp/$name.trace.json" --report \
    > "$tmp/$name.out" 2> "$tmp/$name.err" || rc=$?
if [ "$rc" = 1 ] && [ "$(grep -c "trace export to $tmp/$name.trace.json stopped" "$tmp/$name.err")" = 1 ] &&
    grep -q "aioprof-top" "$tmp/$name.out"; then
    echo "ok   $name (reported once, exit 1, the report still printed)"
else
    echo "FAIL $name: exit $rc, $(cat "$tmp/$name.err")"; status=1
fi
exit $status
