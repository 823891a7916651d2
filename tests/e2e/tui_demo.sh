#!/usr/bin/env bash
# The live table on the simulated device (--demo, seed workload): the hog is at the top, device
# time moves on, freezing stops the table (not the link), the last-second window shows about a
# second of slices, reset starts again, keys are answered, q gives the terminal back.
#
# The simulator runs on the real clock here, so its figures depend on how busy the machine is:
# the checks compare the table with itself (the window with the cumulative view of the same run)
# and with the session's recording, never with numbers that assume an idle machine.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

rec=$TUI_WORK/rec.aiop
tui_start 120 40 C.UTF-8 --demo -w "$rec"
tui_wait '^slow .* [0-9]+\.[0-9]+ ' || fail "no row for slow from the simulator"
tui_wait '^quicker ' || fail "no row for quicker"
tui_above slow quicker
tui_has 'connected'
tui_has 'aioprof-sim seed, protocol 1'

device_time() { grep -oE 'time [0-9]+\.[0-9]+ s' "$TUI_SHOT" | head -1 | awk '{print $2}'; }
# time_cmp OP T: the device time on the last capture compares to T as OP (> or <)
time_cmp() { awk -v a="$(device_time)" -v b="$2" -v op="$1" 'BEGIN { if (a == "") exit 1; exit !(op == ">" ? a + 0 > b + 0 : a + 0 < b + 0) }'; }
# table: the rows of the table (from the column heads down) on the last capture
table() { sed -n '/^name /,$p' "$TUI_SHOT"; }
# rec_bytes: the size of the session's recording on disk (the recorder writes what the link brings)
rec_bytes() { stat -c %s "$rec"; }

tui_capture
t1=$(device_time)
tui_until "device time did not move on from $t1 s" time_cmp '>' "$t1"

# ---- freeze: the table stays as it was while the link keeps bringing data (the recording grows)
# table_steady: the table's rows are the same on two captures a moment apart (saved in frozen.txt)
table_steady() {
    table >"$TUI_WORK/frozen.txt"
    sleep 0.3
    tui_capture
    table | cmp -s - "$TUI_WORK/frozen.txt"
}
# rec_grew N: the recording holds more than N bytes
rec_grew() { [ "$(rec_bytes)" -gt "$1" ]; }
tui_key p
tui_has 'FROZEN'
tui_until "the frozen table kept changing" table_steady
c1=$(tui_field slow 3)
t1=$(device_time)
size=$(rec_bytes)
# more than a frame of link data (a frame a second, over 100 bytes) reaches the recording
tui_until "the link brought nothing while frozen" rec_grew $((size + 200))
table | cmp -s - "$TUI_WORK/frozen.txt" ||
    fail "frozen, but the table changed while the link brought $(($(rec_bytes) - size)) bytes"
[ "$(device_time)" = "$t1" ] || fail "frozen, but device time moved from $t1 to $(device_time)"
tui_key p
tui_lacks 'FROZEN'
tui_until "unfrozen, but slow still shows $c1 slices (the link was not drained?)" tui_number_above slow 3 "$c1"

# ---- the last second: as many slices of slow a second, and as large a share, as the cumulative
# view of the same run shows
tui_capture
count=$(tui_field slow 3)
pct=$(tui_field slow 5)
elapsed=$(device_time)
# window_span: the span the window header shows ("last 1.0 s")
window_span() { grep -oE 'last [0-9]+\.[0-9] s' "$TUI_SHOT" | awk '{print $2}'; }
window_full() { awk -v s="$(window_span)" 'BEGIN { exit !(s + 0 >= 1.0) }'; }
tui_key w
tui_until "the window never spanned a second" window_full
span=$(window_span)
n=$(tui_field slow 3)
wpct=$(tui_field slow 5)
if ! python3 - "$n" "$span" "$wpct" "$count" "$elapsed" "$pct" <<'PY'
import sys
n, span, wpct, count, elapsed, pct = (float(x) for x in sys.argv[1:])
rate = count / elapsed
sys.exit(0 if 0.5 * rate * span <= n <= 1.5 * rate * span + 1 and abs(wpct - pct) <= 10 else 1)
PY
then
    fail "the window shows $n slices of slow in $span s ($wpct %); cumulative: $count in $elapsed s ($pct %)"
fi
tui_key w
tui_has 'cumulative'

# ---- a key is answered while data streams in: help appears (the time it took is only reported;
# how fast a loaded machine answers is not something the program can promise)
start=$(date +%s%N)
tui_key '?'
tui_wait 'aioprof-top keys' || fail "? did not show the help"
ms=$((($(date +%s%N) - start) / 1000000))
tui_key Escape
tui_lacks 'aioprof-top keys'

# ---- reset: device time counts again from zero
tui_capture
before=$(device_time)
tui_key r
tui_until "after r the device time did not start again below $before s" time_cmp '<' "$before"

tui_key q
tui_wait 'EXIT=0' || fail "q did not end the program with 0"
echo "ok: tui_demo (help answered in $ms ms)"
