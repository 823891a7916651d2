#!/usr/bin/env bash
# Exactly 256 or 512 consecutive frames lost: the sequence number (modulo 256) shows nothing, only
# the silence does. The device sends a frame at least once a period, so a frame's base further than
# four periods past the previous frame's last event is a loss (docs/protocol.md section 4): counted,
# the silence cut out of the elapsed time, the rows that lost slices marked, nothing above the truth.
# A silence within four periods is the blind spot docs/protocol.md states (256 frames of the busy
# workload go by in under 3 s): not counted, as documented.
source "$(dirname "$0")/truth_common.bash"
truth_capture seed -w seed --duration 700 || exit 1   # a frame a second: 256 frames are 256 s
truth_capture busy -w busy --duration 12 || exit 1    # about 96 frames a second
for w in seed busy; do
    "$TOP" -r "$tmp/$w.aiop" --json > "$tmp/$w.json" || { echo "FAIL $w: the clean capture"; exit 1; }
done
period_us=1000000

# drop W N FROM: the capture without its frames FROM .. FROM+N-1; prints the silence they leave,
# in ticks, from the last event before them to the next frame's base (tests/e2e/wire.py's decode)
drop() {
    python3 - "$tmp/$1.aiop" "$tmp/$1-$2.aiop" "$3" "$2" <<PY
import sys
sys.path.insert(0, "$here")
from wire import frame_body, records
src, dst, first, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
segs = open(src, "rb").read().split(b"\0")
frames = [i for i, s in enumerate(segs) if s and frame_body(s) is not None]
def span(i):
    body = frame_body(segs[i])
    base = t = int.from_bytes(body[2:6], "little")
    for _, _, _, dt, _, payload in records(body):
        t += dt if payload is None else 0
    return base, t, (body[1] & 31) + 1
_, last, bits = span(frames[first - 1])
base, _, _ = span(frames[first + n])
gone = set(frames[first:first + n])
open(dst, "wb").write(b"\0".join(s for i, s in enumerate(segs) if i not in gone))
print((base - last) % (1 << bits))
PY
}

for w in seed busy; do
    for n in 256 512; do
        name=$w-$n
        silence=$(drop "$w" "$n" 100) || { echo "FAIL $name: could not cut the capture"; status=1; continue; }
        "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" || { echo "FAIL $name: aioprof-top failed"; status=1; continue; }
        if python3 - "$tmp/$name.json" "$tmp/$w.json" "$tmp/$w.truth.json" "$silence" "$period_us" <<'PY'
import json, sys
rep, clean, tru = (json.load(open(p)) for p in sys.argv[1:4])
silence, period = int(sys.argv[4]), int(sys.argv[5])
name = sys.argv[1]
bad = []
lost = rep["stream"]["lost_frames"]
truth = {t["name"]: t for t in tru["tasks"]}
for r in rep["tasks"]:
    t = truth.get(r["name"])
    for k in ("count", "total_us", "max_us", "slow", "errors"):
        if t is not None and r[k] > t[k]:
            bad.append(f"{r['name']}: {k} {r[k]} above the truth {t[k]}")
if silence > 4 * period:
    if lost != 256:
        bad.append(f"a silence of {silence} us: {lost} lost frames counted, not 256 (at least that many)")
    if rep["elapsed_us"] != clean["elapsed_us"] - silence:
        bad.append(f"elapsed {rep['elapsed_us']}, not the clean {clean['elapsed_us']} less the silence {silence}")
    for r in rep["tasks"]:
        t = truth.get(r["name"])
        if t is not None and r["count"] < t["count"] and not r["lower_bound"]:
            bad.append(f"{r['name']}: {r['count']} of {t['count']} slices, not marked")
    what = "counted"
else:
    # the documented blind spot: a silence the heartbeat rule allows
    if lost != 0:
        bad.append(f"a silence of {silence} us within four periods counted as {lost} lost frames")
    what = "within four periods: the documented blind spot"
for b in bad:
    print(f"{name}: {b}")
print(f"{name}: silence {silence / 1e6:.3f} s, {what}")
sys.exit(1 if bad else 0)
PY
        then echo "ok   $name"; else echo "FAIL $name"; status=1; fi
    done
done
exit $status
