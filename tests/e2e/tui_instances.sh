#!/usr/bin/env bash
# Many instances of one bound task (the instances workload) in the live table's instance view on
# a narrow terminal: every row must still show which instance it is, its id and label, while the
# shared function name gives way.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w instances --clock virtual --duration 10 -q -o "$TUI_WORK/inst.bin"

tui_start 80 30 C.UTF-8 -r "$TUI_WORK/inst.bin" --instances
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^Sens' || fail "no Sensor._go rows"
# at least 10 instance rows, each with its #id (read once the screen is whole)
tui_settle
rows=$(grep -cE '^Sens' "$TUI_SHOT")
ided=$(grep -cE '^Sens[^ ]* #[0-9]+' "$TUI_SHOT")
[ "$rows" -ge 10 ] || fail "only $rows Sensor._go rows on a 30-line screen"
[ "$ided" -eq "$rows" ] || fail "$((rows - ided)) of $rows instance rows lost their #id"
grep -qE '^Sens[^ ]* #[0-9]+ \[' "$TUI_SHOT" || fail "no instance row shows its label"
tui_key q
tui_wait '^EXIT=0' || fail "q did not end aioprof-top with exit code 0"
echo "ok: tui_instances ($rows rows, each with its #id)"
