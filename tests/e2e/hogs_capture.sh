#!/usr/bin/env bash
# --capture-hogs: the simulator's hog workload (ota.check hogs the loop for 100 to 200 ms every
# three seconds) read by aioprof-top leaves one recording per hog, and each replays (-r) to exactly
# that hog, named, with no lost frame and nothing marked as possibly low: the hogs of all captures
# are the truth's slow slices of ota.check, their lengths summed to its time. --hog-max bounds
# them (the rest counted and said), the live table's header counts them as they come, and a
# directory that is not there is refused before anything is opened.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"

"$SIM" -w hog --duration 20 -o "$WORK/hog.cap" --truth "$WORK/truth.json" 2> /dev/null
mkdir "$WORK/caps"
"$TOP" -r "$WORK/hog.cap" --json --capture-hogs "$WORK/caps" --hog-ms 90 > "$WORK/live.json" 2> "$WORK/live.err" ||
    fail "the session failed: $(cat "$WORK/live.err")"
grep -q "hogs of 90.000 ms or more captured in $WORK/caps" "$WORK/live.err" || fail "no word of the captures: $(cat "$WORK/live.err")"
n=0
for f in "$WORK"/caps/hog-*-ota.check-*.aiop; do
    "$TOP" -r "$f" --json > "$WORK/cap$n.json" 2> "$WORK/cap.err" || fail "-r $f: $(cat "$WORK/cap.err")"
    n=$((n + 1))
done
[ "$(ls "$WORK/caps" | wc -l)" -eq "$n" ] || fail "captures not of ota.check: $(ls "$WORK/caps")"
python3 - "$WORK" "$n" << 'PY' || fail "the captures are not the truth's hogs"
import json, sys
w, n = sys.argv[1], int(sys.argv[2])
truth = [t for t in json.load(open(w + "/truth.json"))["tasks"] if t["name"] == "ota.check"]
assert len(truth) == 1, truth
t = truth[0]
hogs = []
for i in range(n):
    j = json.load(open("%s/cap%d.json" % (w, i)))
    s = j["stream"]
    assert s["lost_frames"] == 0 and s["crc_errors"] == 0 and s["resets"] == 0, (i, s)
    rows = {r["name"]: r for r in j["tasks"]}
    assert not any(r["name"].startswith("task #") for r in j["tasks"]), ("unnamed tasks", i, list(rows))
    assert not any(r["lower_bound"] for r in j["tasks"]), ("marked as possibly low", i)
    o = rows["ota.check"]
    assert o["count"] == 1 and o["slow"] == 1, (i, o)  # exactly the one hog: the next is 3 s away
    assert {"sensor.read", "net.poll", "ui.draw"} <= set(rows), (i, list(rows))
    hogs.append(o["max_us"])
# every slow slice of ota.check is a hog (100 to 200 ms); its other one is the first, of 50 us
assert n == t["slow"] == t["count"] - 1, (n, t)
assert sum(hogs) == t["total_us"] - t["min_us"], (hogs, t)
assert max(hogs) == t["max_us"], (hogs, t)
print("%d captures, each exactly one of the truth's hogs" % n)
PY

# --hog-max: two, the rest counted
mkdir "$WORK/two"
"$TOP" -r "$WORK/hog.cap" --report --capture-hogs "$WORK/two" --hog-ms 90 --hog-max 2 > /dev/null 2> "$WORK/two.err"
[ "$(ls "$WORK/two" | wc -l)" -eq 2 ] || fail "--hog-max 2 wrote $(ls "$WORK/two" | wc -l) captures"
grep -q "2 hogs of 90.000 ms or more captured in $WORK/two; $((n - 2)) not (past --hog-max 2" "$WORK/two.err" ||
    fail "--hog-max: $(cat "$WORK/two.err")"

# no such directory: refused with a sentence, exit 2, before the input is read
rc=0
"$TOP" -r "$WORK/hog.cap" --report --capture-hogs "$WORK/none" > "$WORK/none.out" 2> "$WORK/none.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "no such directory" "$WORK/none.err" && [ ! -s "$WORK/none.out" ] ||
    fail "a missing directory: rc $rc, $(cat "$WORK/none.err")"

# the live table counts them in its header as they come (the demo runs on the real clock)
if command -v tmux > /dev/null; then
    mkdir "$WORK/live"
    source "$(dirname "$0")/tui_common.bash"
    tui_start 200 30 C.UTF-8 --demo --workload hog --capture-hogs "$WORK/live" --hog-ms 90 --hog-window 0.5
    tui_wait 'hogs [1-9][0-9]* captured' || fail "the header does not count the captures"
    shown=$(grep -oE 'hogs [0-9]+ captured' "$TUI_SHOT" | awk '{print $2}')
    [ "$(ls "$WORK/live" | wc -l)" -ge "$shown" ] || fail "the header counts $shown captures, $WORK/live has fewer"
fi
