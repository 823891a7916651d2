#!/usr/bin/env bash
# A paced replay in the live table quit with q before its end: the trace it exported is valid,
# and says it was cut short by q, in its metadata and on stderr once the table is gone.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

# 20 s of the seed workload as a recording a chunk every 250 ms (long whatever the machine's load)
"$AIOPROF_SIM" -w seed --duration 20 -q -o "$TUI_WORK/seed.bin"
python3 "$(dirname "$0")/make_recording.py" "$TUI_WORK/seed.bin" "$TUI_WORK/rec.aiop" 64 250000
tui_start 120 40 C.UTF-8 -r "$TUI_WORK/rec.aiop" --speed 1 --export-trace "$TUI_WORK/t.json"
tui_wait '^slow ' 20 || fail "no row for slow"
tui_key q
tui_wait 'EXIT=0' 10 || fail "q did not end the program with 0"
[ "$(json "$TUI_WORK/t.json" 'j["otherData"]["complete"]')" = False ] || fail "the trace says it is complete"
[ "$(json "$TUI_WORK/t.json" 'j["otherData"]["ended_by"]')" = q ] || fail "the trace does not say q ended it"
grep -q "the trace $TUI_WORK/t.json is cut short: q stopped the replay at" "$TUI_WORK/stderr.txt" \
    || fail "no word of the cut on stderr: $(cat "$TUI_WORK/stderr.txt")"
echo "ok: tui_trace_quit"
