#!/usr/bin/env bash
# The live table on the simulated device (--demo, seed workload): the hog is at the top, device
# time moves on, freezing stops the table (not the link), the last-second window shows about a
# second of slices, reset starts again, keys are answered, q gives the terminal back.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

# ground truth for the rates: what the seed workload does in 20 device seconds
"$AIOPROF_SIM" -w seed --clock virtual --duration 20 -q -o /dev/null --truth "$TUI_WORK/truth.json"
truth=$TUI_WORK/truth.json
per_s=$(json "$truth" "[t['count'] for t in j['tasks'] if t['name']=='slow'][0] * 1e6 / j['duration_us']")
share=$(json "$truth" "100.0 * [t['total_us'] for t in j['tasks'] if t['name']=='slow'][0] / j['duration_us']")

tui_start 120 40 C.UTF-8 --demo
tui_wait '^slow .* [0-9]+\.[0-9]+ ' 20 || fail "no row for slow from the simulator"
tui_wait '^quicker ' 5 || fail "no row for quicker"
tui_above slow quicker
tui_has 'connected'
tui_has 'aioprof-sim seed, protocol 1'

device_time() { grep -oE 'time [0-9]+\.[0-9]+ s' "$TUI_SHOT" | head -1 | awk '{print $2}'; }
t1=$(device_time)
sleep 2.5
tui_capture
t2=$(device_time)
python3 -c "import sys; sys.exit(0 if $t2 > $t1 else 1)" || fail "device time did not move on ($t1 -> $t2)"

# ---- freeze: the table stays as it was while the simulator keeps running
tui_key p
tui_has 'FROZEN'
c1=$(tui_field slow 3)
t1=$(device_time)
sleep 2.5
tui_capture
[ "$(tui_field slow 3)" = "$c1" ] || fail "frozen, but slow went from $c1 to $(tui_field slow 3) slices"
[ "$(device_time)" = "$t1" ] || fail "frozen, but device time moved"
tui_key p
tui_lacks 'FROZEN'
sleep 1.5
tui_capture
[ "$(tui_field slow 3)" -gt "$c1" ] || fail "unfrozen, but slow still shows $c1 slices (the link was not drained?)"

# ---- the last second: about per_s slices of slow, about its share of the time
tui_key w
sleep 1.5
tui_capture
tui_has 'last [0-9]+\.[0-9] s'
span=$(grep -oE 'last [0-9]+\.[0-9] s' "$TUI_SHOT" | awk '{print $2}')
n=$(tui_field slow 3)
pct=$(tui_field slow 5)
python3 - "$n" "$span" "$per_s" "$pct" "$share" <<'PY' || fail "the window shows $n slices of slow in $span s ($pct %); truth: $per_s per second, $share %"
import sys
n, span, per_s, pct, share = (float(x) for x in sys.argv[1:])
ok = 0.5 * per_s * span <= n <= 1.5 * per_s * span + 1 and abs(pct - share) <= 10
sys.exit(0 if ok else 1)
PY
tui_key w
tui_has 'cumulative'

# ---- a key is answered at once: help appears well within a second
start=$(date +%s%N)
tmux -L "$TUI_SOCK" send-keys '?'
tui_wait 'aioprof-top help' 2 || fail "? did not show the help"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 1000 ] || fail "the help took $ms ms to appear"
tui_key Escape

# ---- reset: device time counts again from zero
tui_key r
t=$(device_time)
python3 -c "import sys; sys.exit(0 if $t < 2.0 else 1)" || fail "after r the device time is $t s"

tui_key q
tui_wait 'EXIT=0' 5 || fail "q did not end the program with 0"
echo "ok: tui_demo (help answered in $ms ms)"
