#!/usr/bin/env bash
# Bytes on the wire per enter/exit event (frames, announcements, HELLO and heartbeats included),
# from the simulator's own count of bytes written, checked against the output file's size.
#
# The protocol's target is 3.0: `busy` (the high-rate case) and `seed` (40 events a second) must
# meet it. `instances` (a new task every 40 ms, each announced by name, most labelled, ids past
# 127) cannot with version 1's records (docs/protocol.md, "Size"): its limit guards against
# regressions, the measured figure plus about 3 %. Before a running task's name went only every
# sixteen periods, seed took 3.43 and instances 4.19 here.
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
declare -A limit=([seed]=3.0 [instances]=3.95 [busy]=3.0)
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
