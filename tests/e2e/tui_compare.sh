#!/usr/bin/env bash
# The live table's set of changes against --compare's base (f, after the lateness set): a replay
# of the seed after quicker's wait was halved (aioprof-sim -w seed-half) against a recording of
# the seed shows quicker's late max about half (-51 %, significant) and ~ for every other change
# of every task; without --compare the key's cycle has no such set.
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

# without --compare: lateness, then the main set
tui_start 160 40 C.UTF-8 -r "$TUI_WORK/after.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end (no --compare)"
tui_key f
tui_wait 'columns: slices' || fail "no slices set (no --compare)"
tui_key f
tui_wait 'columns: lateness' || fail "no lateness set (no --compare)"
tui_key f
tui_wait '^name +inst +count' || fail "f after lateness is not the main set without --compare"
tui_lacks 'against the base'
echo "tui_compare: all checks passed"
