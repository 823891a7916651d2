#!/usr/bin/env bash
# --export-trace beside the live table (in a tmux terminal): a replay watched to its end, then a
# demo quit with q in the middle; both traces are valid JSON whose slices equal the truth (replay)
# or at least hold together (demo), with the truth's lateness (replay), and the table still runs as
# usual.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"
here=$(cd "$(dirname "$0")" && pwd)

"$AIOPROF_SIM" -w seed --clock virtual --duration 20 -q -o "$TUI_WORK/x.bin" --truth "$TUI_WORK/truth.json"
tui_start 120 40 C.UTF-8 -r "$TUI_WORK/x.bin" --speed 0 --export-trace "$TUI_WORK/replay.json"
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^slow ' || fail "no row for slow"
tui_key q
tui_wait 'EXIT=0' || fail "aioprof-top did not exit with 0"
python3 "$here/trace_check.py" "$TUI_WORK/replay.json" --truth "$TUI_WORK/truth.json" || fail "replay trace"
# the trace's lateness too (the table watches the same stream): quicker's waits are the truth's
python3 - "$TUI_WORK/replay.json" "$TUI_WORK/truth.json" <<'PY' || fail "the trace written beside the table lacks the truth's lateness"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"].split(" #")[0]
         for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
for t in json.load(open(sys.argv[2]))["tasks"]:
    waits = [e for e in events if e.get("cat") == "late" and names.get((e["pid"], e["tid"])) == t["name"]]
    got = (len(waits), sum(e["dur"] for e in waits))
    if got != (t["late_count"], t["late_total_us"]):
        sys.exit("%s: %d waits of %d us in all, the truth %d of %d" % ((t["name"],) + got + (t["late_count"], t["late_total_us"])))
PY

tui_start 120 40 C.UTF-8 --demo --workload nested --export-trace "$TUI_WORK/demo.json"
tui_wait '^outer ' || fail "no row for outer"
# q once the table counts more than 100 slices of outer alone: the trace must hold them all
tui_until "outer never reached 101 slices" tui_number_above outer 3 100
tui_key q
tui_wait 'EXIT=0' || fail "aioprof-top did not exit with 0"
python3 "$here/trace_check.py" "$TUI_WORK/demo.json" || fail "demo trace"
python3 -c 'import json,sys; sys.exit(0 if sum(e.get("ph")=="X" for e in json.load(open(sys.argv[1]))["traceEvents"]) > 100 else 1)' \
    "$TUI_WORK/demo.json" || fail "the demo trace holds too few slices"
echo "ok   live table + export"
