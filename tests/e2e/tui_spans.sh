#!/usr/bin/env bash
# The live table's spans of a task (S; docs/live-table.md, "Spans"): on the spans workload's
# replay, S on the sensors row shows its spans read and i2c with the truth's count, own, inclusive
# and wall time (summed over its instances); Esc goes back to the tasks; per instance (g), S on ui's
# instance shows its hog, draw, with the truth's max; the timeline (T) marks sensors' lane.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

"$AIOPROF_SIM" -w spans --clock virtual --duration 6 -q -o "$TUI_WORK/spans.bin" --truth "$TUI_WORK/truth.json"
# the truth summed per (task, span): count own incl wall max, as the table prints them
want() { # TASK SPAN
    python3 - "$TUI_WORK/truth.json" "$1" "$2" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
rows = [e for e in t["spans"] if e["task"] == sys.argv[2] and e["span"] == sys.argv[3]]
ms = lambda us: "%d.%03d" % divmod(us, 1000)
print(sum(e["count"] for e in rows), ms(sum(e["own_us"] for e in rows)), ms(sum(e["inclusive_us"] for e in rows)),
      ms(sum(e["wall_us"] for e in rows)), ms(max(e["max_us"] for e in rows)))
PY
}
shown() { # SPAN: its count own incl wall max on the screen
    grep -E "^ ?$1 " "$TUI_SHOT" | head -1 | awk '{print $2, $3, $4, $5, $6}'
}
span_is() { [ "$(shown "$1")" = "$2" ]; }

tui_start 110 30 C.UTF-8 -r "$TUI_WORK/spans.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_key / sensors Enter
tui_has '^sensors '
tui_key S
tui_has 'spans of sensors'
read_want=$(want sensors read)
i2c_want=$(want sensors i2c)
tui_until "sensors' span read is not $read_want" span_is read "$read_want"
tui_until "sensors' span i2c is not $i2c_want" span_is i2c "$i2c_want"
tui_key Escape
tui_lacks 'spans of sensors'
tui_has '^sensors '

# per instance: ui's one instance, its hog
tui_key Escape
tui_key g
tui_has 'by instance'
tui_key / ui Enter
tui_has '^ui #'
tui_key S
tui_has 'spans of ui #'
draw_want=$(want ui draw)
tui_until "ui's span draw is not $draw_want" span_is draw "$draw_want"
tui_key S
tui_lacks 'spans of ui'

# the timeline marks where a task ran inside a span: sensors' lane (its slices are all spans but
# 0.15 ms), not main's (no span)
tui_key Escape
tui_key g
tui_has 'by name'
tui_key T
tui_has 'timeline'
tui_until "sensors' lane shows no span mark" grep -qE '^sensors .*▄' "$TUI_SHOT"
grep -qE '^main .*▄' "$TUI_SHOT" && fail "main's lane shows a span mark, main has no span"
tui_key q
tui_wait '^EXIT=0' || fail "q did not end aioprof-top with exit code 0"
echo "ok: tui_spans (sensors: read $read_want, i2c $i2c_want; ui #: draw $draw_want)"
