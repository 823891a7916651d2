#!/usr/bin/env bash
# The live table's screen in small and plain terminals, its help and its device text pane:
#  - the help explains the columns too, and scrolls when the terminal is small (40x10);
#  - at 30x8 the too-small message is whole;
#  - in ASCII the sort mark stands apart from the heading ("v total ms"); the header shows the
#    slow threshold;
#  - a note (-v) is shown whole, and Ctrl-L puts it away;
#  - the device text pane keeps a scrollback: Tab gives it the scroll keys, o enlarges and hides it;
#  - -d sets the refresh period;
#  - the demo prints device text into it.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

until_screen() { # WHAT PATTERN: waits for the screen to match, else fails with WHAT
    tui_wait "$2" || fail "$1"
}
until_gone() { # WHAT PATTERN: waits for the screen not to match, else fails with WHAT
    tui_until "$1" tui_shows_not "$2"
}
quit() {
    tui_key q
    until_screen "q did not end aioprof-top with exit code 0" '^EXIT=0'
}

"$AIOPROF_SIM" -w seed --clock virtual --duration 40 --text 5 -q -o "$TUI_WORK/text.bin" --truth "$TUI_WORK/truth.json"
# the simulator numbers its lines from 0; every third (n % 3 == 2) is "[net] rssi ... line n"
last_net=$(json "$TUI_WORK/truth.json" "max(n for n in range(j['text_lines']) if n % 3 == 2)")

# ---- 40x10: the help explains the columns, and scrolls to its end
tui_start 40 10 C.UTF-8 -r "$TUI_WORK/text.bin" --speed 0
until_screen "the replay did not reach its end at 40x10" "· end"
tui_key '?'
until_screen "no help at 40x10" 'aioprof-top help'
tui_settle
seen=$TUI_WORK/help.txt
cp "$TUI_SHOT" "$seen"
# page_turned: the screen is no longer the page before (saved in help.page), or shows the last line
page_turned() { ! cmp -s "$TUI_SHOT" "$seen.page" || grep -q 'inside the window' "$TUI_SHOT"; }
for _ in $(seq 40); do # every page of it, down to its end, each read once it is drawn whole
    grep -q 'inside the window' "$TUI_SHOT" && break
    cp "$TUI_SHOT" "$seen.page"
    tui_key NPage
    tui_until "PgDn did not turn the help's page at 40x10" page_turned
    tui_settle
    cat "$TUI_SHOT" >>"$seen"
done
grep -q 'inside the window' "$seen" || fail "the help did not scroll to its last line at 40x10"
tr '\n' ' ' <"$seen" | tr -s ' ' >"$seen.flat"
grep -q 'exclusive of the tasks it' "$seen.flat" || fail "the help does not say total is exclusive"
grep -q 'cancellations included' "$seen.flat" || fail "the help does not say errors include cancellations"
grep -qE 'slices: each time the task was' "$seen.flat" || fail "the help does not say count is slices"
grep -qE 'the slow threshold now: slices over 20 ms' "$seen.flat" || fail "the help does not give the slow threshold"
tui_key Escape
until_gone "a key other than a scroll key did not close the help" 'aioprof-top help'
quit

# ---- 30x8: the too-small message is whole
tui_start 30 8 C.UTF-8 -r "$TUI_WORK/text.bin" --speed 0
until_screen "at 30x8 the too-small message is not whole" 'needs 40x10'
quit

# ---- ASCII: the mark apart from the heading; the slow threshold in the header
tui_start 120 30 C -r "$TUI_WORK/text.bin" --speed 0 --slow 5
until_screen "the replay did not reach its end (C locale)" 'end of recording'
until_screen "the ASCII sort mark is not apart from its heading" 'v total ms'
tui_has 'slow > 5 ms'
quit

# ---- a note is whole, and Ctrl-L puts it away
tui_start 80 30 C.UTF-8 -r "$TUI_WORK/text.bin" --speed 0 -v
until_screen "the -v note is not shown whole" "reading $TUI_WORK/text.bin as a raw capture"
tui_key C-l
until_gone "Ctrl-L did not put the note away" 'as a raw capture'
quit

# ---- the pane: scrollback with Tab, o enlarges and hides it
pane_lines() { # the lines between the pane's rule and the footer
    awk '/device output/ { on = 1; n = 0; next } /^F1Help/ { if (on) print n; exit } on { n++ }' "$TUI_SHOT"
}
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/text.bin" --speed 0
until_screen "the replay did not reach its end" 'end of recording'
until_screen "the pane does not show the device's last lines" "line $last_net\$"
normal=$(pane_lines)
tui_key Tab
until_screen "Tab did not give the pane the scroll keys" 'Tab back to the table'
tui_key Home
until_screen "Home in the pane did not show the first lines kept" '\[net\] rssi -[0-9]+ dBm, line 2$'
until_screen "the pane does not say newer lines are below" '[0-9]+ newer lines below'
tui_key End
until_screen "End in the pane did not go back to the newest line" "line $last_net\$"
until_gone "back at the newest line, the pane still says newer lines are below" 'newer lines below'
tui_key Tab
until_gone "Tab did not give the scroll keys back to the table" 'Tab back to the table'
tui_key o
pane_larger() { [ "$(pane_lines)" -gt "$normal" ]; }
tui_until "o did not enlarge the pane ($normal lines before)" pane_larger
tui_key o
until_gone "o did not hide the pane" 'device output'
tui_key o
until_screen "o did not bring the pane back" 'device output'
quit

# ---- -d 2: the screen is drawn at most every 2 s (a replay at 1x moves on every 0.1 s)
python3 "$(dirname "$0")/frame_recording.py" "$TUI_WORK/text.bin" "$TUI_WORK/rec.aiop" >/dev/null
tui_start 120 30 C.UTF-8 -r "$TUI_WORK/rec.aiop" -d 2
until_screen "the replay did not start" '1x, [0-9]+\.[0-9] / '
: >"$TUI_WORK/positions"
for _ in $(seq 30); do
    tui_capture
    grep -oE '1x, [0-9]+\.[0-9] /' "$TUI_SHOT" >>"$TUI_WORK/positions" || true
    sleep 0.15 # sampling what is drawn over 4.5 s, not waiting for anything
done
drawn=$(sort -u "$TUI_WORK/positions" | wc -l)
[ "$drawn" -ge 2 ] && [ "$drawn" -le 4 ] ||
    fail "with -d 2 the position was drawn $drawn different ways in 4.5 s: $(sort -u "$TUI_WORK/positions" | tr '\n' ' ')"
quit

# ---- the demo prints device text into the pane
tui_start 120 30 C.UTF-8 --demo
until_screen "the demo prints no device text into the pane" '^(sensor [0-9]+: temp=|free mem: |\[net\] rssi)'
quit
echo "ok: tui_screen"
