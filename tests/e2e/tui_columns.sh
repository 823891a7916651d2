#!/usr/bin/env bash
# The live table's column sets (f) on a recording of the seed workload: the main set, the slices'
# percentiles, lateness in full, and back; the header names the set; the main set's columns are
# the table's own; the last second (w) shows "-" in the cumulative-only columns rather than a
# number it does not have.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed --clock virtual --duration 20 -q -o "$TUI_WORK/x.bin" --truth "$TUI_WORK/truth.json"
truth=$TUI_WORK/truth.json

tui_start 160 40 C.UTF-8 -r "$TUI_WORK/x.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^slow ' || fail "no row for slow"
tui_lacks 'columns:'
tui_has '^name +inst +count +▼total ms'

# ---- f: the slices' percentiles
tui_key f
tui_has 'columns: slices'
tui_has '^name +count +▼total ms +% +mean ms +p50 ms +p95 ms +p99 ms +max ms +slow'
# ---- f: lateness in full
tui_key f
tui_has 'columns: lateness'
tui_has '^name +count +late mean +late p50 +late p95 +late p99 +late max +blocked by'
# ---- f: the main set again
tui_key f
tui_lacks 'columns:'
tui_has '^name +inst +count +▼total ms'
want_count=$(json "$truth" "[t['count'] for t in j['tasks'] if t['name']=='slow'][0]")
tui_until "slow's count is not the truth's $want_count" tui_field_is slow 3 "$want_count"
# ---- the last second (w) has no percentiles: "-"
tui_key f w
tui_has 'columns: slices'
tui_has 'last [0-9.]+ s'
no_pct() { [ "$(tui_field slow 6)" = - ] && [ "$(tui_field slow 7)" = - ] && [ "$(tui_field slow 8)" = - ]; }
tui_until "the last second shows percentiles it cannot have" no_pct
tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
echo "ok: tui_columns"
