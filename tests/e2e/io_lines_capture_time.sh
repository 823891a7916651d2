#!/usr/bin/env bash
# --json-lines on a raw capture follows the capture's own time, the device time its frames carry,
# not the wall clock of the replay: the same capture gives the same lines at --speed 0, 20 and 100
# (it gave 1, 7 or 2), each interval ends where the device time says, and the intervals add up to
# the totals, against the simulator's truth.
set -euo pipefail
work=$(mktemp -d /tmp/aioprof-lines-time.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$AIOPROF_SIM" -w seed --clock virtual --duration 6 -q -o "$work/seed.bin" --truth "$work/truth.json"
for speed in 0 20 100; do
    "$AIOPROF_TOP" -r "$work/seed.bin" --speed "$speed" --json-lines --interval 0.5 >"$work/lines.$speed" \
        2>"$work/err.$speed" || fail "--json-lines at --speed $speed failed: $(cat "$work/err.$speed")"
done
python3 - "$work/truth.json" "$work"/lines.0 "$work"/lines.20 "$work"/lines.100 <<'PY' || fail "the lines differ from the capture's time"
import json, sys
truth = json.load(open(sys.argv[1]))
runs = [[json.loads(x) for x in open(f)] for f in sys.argv[2:]]
def shape(lines):
    return [(l["seq"], l["t_s"], l["interval"]["elapsed_us"], sorted((t["name"], t["count"]) for t in l["interval"]["tasks"]))
            for l in lines]
base = shape(runs[0])
for r, speed in zip(runs[1:], (20, 100)):
    if shape(r) != base:
        sys.exit("--speed %d gives %d lines, --speed 0 %d (or other figures)" % (speed, len(r), len(base)))
lines = runs[0]
dur_s = truth["duration_us"] / 1e6
# a line per half second of device time, and the last one
if not (2 * dur_s - 2 <= len(lines) <= 2 * dur_s + 2):
    sys.exit("%d lines for %.1f s of device time at 0.5 s" % (len(lines), dur_s))
for l in lines[:-1]:
    if abs(l["t_s"] * 2 - round(l["t_s"] * 2)) > 1e-6 or l["final"]:
        sys.exit("an interval ends at %s s, not on the 0.5 s grid of device time" % l["t_s"])
# every slice in one interval: the intervals add up to the truth's counts
for t in truth["tasks"]:
    got = sum(x["count"] for l in lines for x in l["interval"]["tasks"] if x["name"] == t["name"])
    if got != t["count"]:
        sys.exit("%s: %d slices in the intervals, the truth %d" % (t["name"], got, t["count"]))
PY
echo "ok: io_lines_capture_time ($(wc -l <"$work/lines.0") lines at every speed)"
