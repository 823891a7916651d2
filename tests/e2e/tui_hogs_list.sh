#!/usr/bin/env bash
# The live table's list of captured hogs (H) and a capture opened from it (Enter), on the demo's
# hog workload live (ota.check hogs the loop for 100 to 200 ms every 3 s): the list shows each
# capture written (its file there, its slice length the one its replay counts), newest first, and
# the missed ones past --hog-max; Enter on a row shows that capture's timeline: the hog's task
# first, its slow slices (--slow at the hog threshold: the hog, unless the loaded machine made
# another) the runs of slow cells in its lane, the hog's marked on the axis above it,
# the other lanes tasks the capture has; the live session goes on meanwhile (the header's device
# time and the table's counts grow), and Esc, q or H come back without ending it. Without
# --capture-hogs, H says how to get the list.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

caps=$TUI_WORK/caps
mkdir "$caps"
# (on a loaded machine the simulator's other tasks may run past 90 ms too: a hog of theirs is a hog)
tui_start 200 40 C.UTF-8 --demo --workload hog --capture-hogs "$caps" --hog-ms 90 --slow 90 --hog-window 0.5 \
    --hog-max 2
tui_wait 'hogs 2 captured' || fail "the header does not count two captures"

# header_time: the device time the header shows (seconds) on the last capture.
header_time() {
    grep -oE '· time [0-9.]+ s' "$TUI_SHOT" | head -1 | awk '{print $3}'
}
# time_past T: the header's device time is past T.
time_past() {
    local now
    now=$(header_time)
    [ -n "$now" ] && python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "$now" "$1"
}

tui_key H
tui_has '^time UTC +at s +task +slice ms file'
tui_until "the list does not show two captures" grep -qE '^2 captured' "$TUI_SHOT"
# the rows: time, at s, task, slice ms, file; newest (latest at s) first
grep -E '^[0-9]{2}:[0-9]{2}:[0-9]{2} ' "$TUI_SHOT" > "$TUI_WORK/rows"
[ "$(wc -l < "$TUI_WORK/rows")" -eq 2 ] || fail "the list has $(wc -l < "$TUI_WORK/rows") rows, not 2"
python3 - "$TUI_WORK/rows" "$caps" "$AIOPROF_TOP" << 'PY' || fail "the list's rows are not the captures"
import json, os, subprocess, sys
rows = [l.split() for l in open(sys.argv[1])]
ats = [float(r[1]) for r in rows]
assert ats == sorted(ats, reverse=True) and ats[0] > ats[1], ("not newest first", ats)
for when, at, task, ms, f in rows:
    path = os.path.join(sys.argv[2], f)
    assert os.path.exists(path), ("no such capture", path)
    assert f.endswith("-%s-%ss.aiop" % (task, at)), (task, at, f)
    j = json.loads(subprocess.run([sys.argv[3], "-r", path, "--json"], capture_output=True, check=True).stdout)
    o = {r["name"]: r for r in j["tasks"]}[task]
    assert "%.3f" % (o["max_us"] / 1e3) == ms, ("the list says", ms, "its replay", o["max_us"])
print("the list: %d captures, newest first, each its file's hog" % len(rows))
PY
newest=$(awk 'NR == 1 {print $5, $3}' "$TUI_WORK/rows")
older=$(awk 'NR == 2 {print $5, $3}' "$TUI_WORK/rows")

# capture_check FILE TASK: the capture's timeline on the screen is FILE's: the info line names it
# and its hog of TASK (the length its replay counts), TASK's lane comes first with a run of slow
# cells per slow slice its replay counts, the mark on the axis above the first cell of one of them
# and over no tick's label; every lane is a task the capture has.
capture_check() {
    "$AIOPROF_TOP" -r "$caps/$1" --json --slow 90 > "$TUI_WORK/cap.json"
    python3 - "$TUI_SHOT" "$TUI_WORK/cap.json" "$1" "$2" << 'PY'
import json, re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
j = json.load(open(sys.argv[2]))
names = {r["name"]: r for r in j["tasks"]}
task = sys.argv[4]
o = names[task]
at = [i for i, l in enumerate(lines) if l.startswith("capture: lanes")]
if not at:
    sys.exit("no capture timeline")
axis, info = lines[at[0]].rstrip(), lines[at[0] + 1]
if not axis.endswith("end"):
    sys.exit("the axis does not end with its edge: %r" % axis)
want = "hog %s %.3f ms at " % (task, o["max_us"] / 1e3)
if not info.startswith(want) or sys.argv[3] not in info or "marked" not in info:
    sys.exit("the info line %r is not %r ... %s" % (info, want, sys.argv[3]))
lanes = []
for l in lines[at[0] + 2:]:
    if l.startswith("(outside tasks)") or l.startswith("\u2500\u2500"):
        break
    if l.strip():
        lanes.append(l)
if not lanes or not lanes[0].startswith(task + " "):
    sys.exit("the hog's task is not the first lane: %r" % lanes[:1])
slow = [m.start() for m in re.finditer("\u2593+", lanes[0])]
if not slow or len(slow) != o["slow"]:
    sys.exit("%s's lane has %d runs of slow cells, the capture %d slow slices: %r" % (task, len(slow), o["slow"], lanes[0]))
mark = axis.find("\u25bc")
if mark not in slow:
    sys.exit("the mark is at column %d, the slow slices' first cells at %s" % (mark, slow))
# the mark stands beside the ticks, never over one's bar or label
if not re.fullmatch("capture: lanes +(\u2502-[0-9.]+m?s +)*end", axis.replace("\u25bc", " ")):
    sys.exit("the mark covers a tick of the axis: %r" % axis)
for l in lanes:
    name = re.split(r" {2,}", l.strip())[0].split(" ")[0]
    if name not in names:
        sys.exit("a lane %r that the capture does not have" % name)
print("the capture's timeline: %d lanes, the hog marked at column %d" % (len(lanes), mark))
PY
}

tui_key Enter
tui_has '^capture: lanes'
tui_settle_lanes() { capture_check $newest > /dev/null 2> "$TUI_WORK/why" || { cat "$TUI_WORK/why" >&2; false; }; }
tui_until "Enter did not open the newest capture: $(cat "$TUI_WORK/why" 2>/dev/null)" tui_settle_lanes
t0=$(header_time)
# the live session goes on behind it
tui_until "the header's time does not grow while the capture is shown" time_past "$t0"
tui_shows_not '^EXIT=' || fail "the session ended"

# Esc: the live table again, the session still going
tui_key Escape
tui_has '^name +inst +count'
t1=$(header_time)
tui_until "the table's figures do not grow after the capture" time_past "$t1"
tui_until "sensor.read's count does not grow after the capture" tui_number_above sensor.read 3 "$(tui_field sensor.read 3)"

# H, Down, Enter: the older capture; H back to the list, q back to the table (not quitting)
tui_key H
tui_has '^time UTC'
tui_key Down
tui_key Enter
tui_has '^capture: lanes'
tui_until "Down, Enter did not open the older capture: $(cat "$TUI_WORK/why" 2>/dev/null)" \
    eval 'capture_check $older > /dev/null 2> "$TUI_WORK/why"'
tui_key H
tui_has '^time UTC'
# past --hog-max 2: the third hog is counted as missed, in the header and under the list
tui_until "the list does not count the missed hogs" grep -qE '^2 captured, [1-9][0-9]* missed \(past --hog-max' "$TUI_SHOT"
tui_has 'hogs 2 captured, [1-9][0-9]* missed'
tui_key q
tui_has '^name +inst +count'
tui_shows_not '^EXIT=' || fail "q in the list ended the session"
tui_key q
tui_has '^EXIT=0'

# without --capture-hogs: H says how to have the list
tui_start 120 30 C.UTF-8 --demo
tui_has '^name +inst'
tui_key H
tui_has 'start aioprof-top with --capture-hogs DIR'
tui_key q # puts the message away and quits (a key does its job too)
tui_has '^EXIT=0'
echo "the hogs' list and a capture's timeline: ok"
