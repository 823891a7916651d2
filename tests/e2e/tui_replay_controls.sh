#!/usr/bin/env bash
# Replay controls in the live table, on a recording with receive times: it plays at the recorded
# pace (1x), space pauses it (the position stops moving), + and - double and halve the speed, and
# the table stays at the end of the recording until q.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

# a recording of 4 s of the simulated device in real time
"$AIOPROF_TOP" --demo --duration 4 --report -w "$TUI_WORK/rec.aiop" >/dev/null 2>"$TUI_WORK/rec.err" ||
    fail "could not record the demo: $(cat "$TUI_WORK/rec.err")"

# the device time the table has taken in (the header's "time N s"): it moves only when data does
device_time() { grep -oE 'time [0-9.]+ s' "$TUI_SHOT" | head -1 | cut -d' ' -f2; }

tui_start 120 30 C.UTF-8 -r "$TUI_WORK/rec.aiop"
tui_wait 'replaying' || fail "the replay did not start"
tui_has '1x, '

tui_key Space
tui_wait 'PAUSED' || fail "space did not pause the replay"
tui_settle
p1=$(device_time)
# A negative check needs time to pass, not a condition: frames come once a second at 1x, so in two
# and a half seconds of wall time an unpaused replay would bring two of them. (A loaded machine
# only makes this check weaker, never wrong.)
sleep 2.5
tui_capture
p2=$(device_time)
[ "$p1" = "$p2" ] || fail "paused, yet the device time moved from $p1 to $p2"

tui_key Space
tui_lacks 'PAUSED'
tui_key +
tui_has '2x, '
tui_key - -
tui_has '0.5x, '
tui_key + +
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^slow ' || fail "no row for slow at the end of the recording"
# the table stays at the end of the recording until q: a second later it is still there
sleep 1
tui_has 'end of recording'
tui_lacks '^EXIT='
tui_key q
tui_wait '^EXIT=0' || fail "q did not end aioprof-top with exit code 0"
echo "ok: tui_replay_controls (paused at $p1 s of device time)"
