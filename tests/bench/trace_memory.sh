#!/usr/bin/env bash
# Benchmark (not a test): exporting a recording of at least 10 million slices to a trace. Prints
# the export's speed (MB of JSON per second, slices per second) and its peak memory against the
# same replay without the export, and against an export of half the recording: the export must
# not grow with the recording (streamed, one event at a time).
#
# Usage: tests/bench/trace_memory.sh [BUILD_DIR]
# Knobs (environment): TRACE_SLICES (default 10000000), TRACE_KEEP=1 keeps the JSON.
# Files go to BUILD_DIR/bench (the recording, ~50 MB, is kept for the next run; the JSON, ~1.3 GB,
# is removed).
set -uo pipefail

build=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "trace bench: no build directory '${1:-build}'" >&2; exit 1; }
want=${TRACE_SLICES:-10000000}
sim=$build/device/sim/aioprof-sim
top=$build/host/aioprof-top
work=$build/bench
mkdir -p "$work"
for p in "$sim" "$top" /usr/bin/time; do
    [ -x "$p" ] || { echo "trace bench: skipped: $p is missing"; exit 0; }
done

# busy makes about 4300 slices per device second
duration=$(( (want / 4300) + 60 ))
rec=$work/trace-busy-$duration.aiop
truth=$work/trace-busy-$duration.truth.json
if [ ! -s "$rec" ] || [ ! -s "$truth" ]; then
    echo "recording $duration s of the busy workload to $rec ..."
    "$sim" -w busy --clock virtual --duration "$duration" -q -o "$rec" --truth "$truth" || exit 1
fi
slices=$(python3 -c 'import json,sys; print(sum(t["count"] for t in json.load(open(sys.argv[1]))["tasks"]))' "$truth")
if [ "$slices" -lt "$want" ]; then
    echo "trace bench: the recording holds $slices slices, fewer than $want; remove $rec and retry"
    exit 1
fi
rec_mb=$(awk -v b="$(stat -c %s "$rec")" 'BEGIN { printf "%.1f", b / 1e6 }')

# wall seconds and peak RSS (kB) of one run, from /usr/bin/time -v
measure() {
    local out=$work/trace-time.txt
    /usr/bin/time -v "$@" > /dev/null 2> "$out"
    local rc=$?
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out")
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out")
    echo "$wall $rss $rc"
}

json=$work/trace-busy.json
half=$work/trace-busy-half.aiop
head -c $(( $(stat -c %s "$rec") / 2 )) "$rec" > "$half"

read -r plain_s plain_kb _ < <(measure "$top" -r "$rec" --json)
read -r exp_s exp_kb exp_rc < <(measure "$top" -r "$rec" --json --force --export-trace "$json")
json_bytes=$(stat -c %s "$json" 2>/dev/null || echo 0)
written=$(python3 - "$json" <<'PY'
import sys
# the closing carries the count; reading 1 GB of JSON back is not what is measured here
with open(sys.argv[1], "rb") as f:
    f.seek(max(0, f.seek(0, 2) - 4096))
    tail = f.read().decode("utf-8", "replace")
import re
m = re.search(r'"slices":(\d+)', tail)
print(m.group(1) if m else 0)
PY
)
read -r half_s half_kb _ < <(measure "$top" -r "$half" --json --force --export-trace "$json")
[ "${TRACE_KEEP:-0}" = 1 ] || rm -f "$json"
rm -f "$half"

awk -v slices="$written" -v truth="$slices" -v rec_mb="$rec_mb" -v bytes="$json_bytes" \
    -v ps="$plain_s" -v pk="$plain_kb" -v es="$exp_s" -v ek="$exp_kb" -v hs="$half_s" -v hk="$half_kb" -v rc="$exp_rc" 'BEGIN {
    printf "recording:            %s MB, %d slices (simulator truth %d)\n", rec_mb, slices, truth
    printf "replay, no export:    %.2f s, peak RSS %.1f MB\n", ps, pk / 1024
    printf "replay + export:      %.2f s, peak RSS %.1f MB, exit %d, %.0f MB of JSON\n", es, ek / 1024, rc, bytes / 1e6
    printf "export speed:         %.0f MB/s, %.2f million slices/s (replay alone: %.1f million slices/s)\n",
        bytes / 1e6 / es, slices / es / 1e6, truth / ps / 1e6
    printf "half the recording:   %.2f s, peak RSS %.1f MB\n", hs, hk / 1024
    flat = (ek - hk < 1024 && ek - pk < 4096)
    printf "memory flat:          %s (export adds %.1f MB over the plain replay; full vs half: %+.1f MB)\n",
        flat ? "yes" : "NO", (ek - pk) / 1024, (ek - hk) / 1024
}'
