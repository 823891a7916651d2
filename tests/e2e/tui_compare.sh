#!/usr/bin/env bash
# The live table's set of changes against --compare's base (f, after the lateness set): a replay
# of the seed after quicker's wait was halved (aioprof-sim -w seed-half) against a recording of
# the seed shows quicker's late max about half (-51 %, significant) and ~ for every other change
# of every task; without --compare the key's cycle has no such set. A --budget broken in the table
# says each breach after the table closes, and exits 3.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w seed --duration 20 -q -o "$TUI_WORK/before.bin"
"$AIOPROF_SIM" -w seed-half --duration 20 -q -o "$TUI_WORK/after.bin"

tui_start 160 40 C.UTF-8 -r "$TUI_WORK/after.bin" --speed 0 --compare "$TUI_WORK/before.bin"
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_key f
tui_wait 'columns: slices' || fail "no slices set"
tui_key f
tui_wait 'columns: lateness' || fail "no lateness set"
tui_key f
tui_wait 'columns: against the base' || fail "no set of changes after lateness"
tui_has '^name +count +d rate +▼?% +d % +max ms +d max +d p99 +late max +d late'
tui_wait '^quicker +[0-9]+ +~ +1\.0 +~ +1\.000 +~ +~ +80\.000 +-51 %' || fail "quicker's change is not shown"
tui_wait '^slow +[0-9]+ +~ +80\.[0-9] +~ +80\.000 +~ +~ +0\.000 +~' || fail "slow is not ~ everywhere"
tui_key f
tui_wait '^name +inst +count' || fail "f after the changes is not the main set"
tui_stop

# without --compare: lateness, then the main set; and a budget, whose breaches are said once the
# table has given the terminal back (exit 3)
echo '{"budgets": [{"task": "slow", "max_slice_ms": 50}, {"task": "quicker", "late_max_ms": 10}]}' > "$TUI_WORK/b.json"
tui_start 160 40 C.UTF-8 -r "$TUI_WORK/after.bin" --speed 0 --budget "$TUI_WORK/b.json"
tui_wait 'end of recording' || fail "the replay did not reach its end (no --compare)"
tui_key f
tui_wait 'columns: slices' || fail "no slices set (no --compare)"
tui_key f
tui_wait 'columns: lateness' || fail "no lateness set (no --compare)"
tui_key f
tui_wait '^name +inst +count' || fail "f after lateness is not the main set without --compare"
tui_lacks 'against the base'
tui_key q
tui_wait '^EXIT=3' || fail "a broken budget in the table did not exit 3"
grep -q '^aioprof-top: budget broken (line 1: slow): slow: max slice 80.000 ms > 50.000 ms' "$TUI_WORK/stderr.txt" \
    || fail "the slow breach was not said after the table: $(cat "$TUI_WORK/stderr.txt")"
grep -q '^aioprof-top: budget broken (line 2: quicker): quicker: late max 80.000 ms > 10.000 ms' "$TUI_WORK/stderr.txt" \
    || fail "the late breach was not said after the table"
echo "tui_compare: all checks passed"
