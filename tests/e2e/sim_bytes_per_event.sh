#!/usr/bin/env bash
# Bytes on the wire per enter/exit event (frames, announcements, HELLO and heartbeats included),
# from the simulator's own count of bytes written, checked against the output file's size.
#
# The protocol's target is 3.0. `busy` (the high-rate case) must meet it. `seed` (40 events a
# second) and `instances` (a new task every 40 ms, each announced by name) cannot while names are
# re-announced every second and a frame goes out every second: at 40 events a second those
# fixed costs alone are about 0.8 bytes per event (docs/protocol.md, "Size"). For them the limits
# below guard against regressions; they are the measured figures plus about 3 %.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
declare -A limit=([seed]=3.55 [instances]=4.30 [busy]=3.0)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
for w in seed instances busy; do
    "$AIOPROF_SIM" -w "$w" --clock virtual --duration 60 -o "$tmp/$w.bin" --truth "$tmp/$w.json" 2> "$tmp/$w.err"
    cat "$tmp/$w.err"
    grep -q 'bytes/event' "$tmp/$w.err" || { echo "$w: no bytes/event in the statistics"; status=1; }
    python3 - "$tmp/$w.json" "$tmp/$w.bin" "${limit[$w]}" <<'PY' || status=1
import json, os, sys
t = json.load(open(sys.argv[1]))
size, limit = os.path.getsize(sys.argv[2]), float(sys.argv[3])
bpe = size / t["events"]
print(f"{t['workload']}: {size} bytes / {t['events']} events = {bpe:.3f} bytes/event (limit {limit})")
assert abs(bpe - t["bytes_per_event"]) < 1e-9, "the truth's figure does not match the file"
sys.exit(0 if bpe <= limit else 1)
PY
done
exit $status
