#!/usr/bin/env bash
# The device says when it stops (a last HELLO with the flag "stopped"; the simulator sends it at its
# end). A capture that ends without it may lack the events still in the device's ring: the report
# says so once, and the tasks live at the end are marked as lower bounds; finished ones are not.
# With the stop, nothing of the kind; and a live session its user ends says nothing either.
source "$(dirname "$0")/truth_common.bash"
truth_capture inst -w instances --duration 8 || exit 1

# the capture without its last frame (the one with the stop), found by tests/e2e/wire.py
python3 - "$tmp/inst.aiop" "$tmp/cut.aiop" <<PY || { echo "FAIL: could not cut the capture"; exit 1; }
import sys
sys.path.insert(0, "$here")
from wire import frame_body, records, varint
def flags(hello):  # docs/protocol.md section 3: version, tick_hz, tick_bits, ring_bytes, flags
    _, i = varint(hello, 0)
    _, i = varint(hello, i)
    _, i = varint(hello, i + 1)
    return hello[i]
data = open(sys.argv[1], "rb").read()
segs = data.split(b"\0")
last = max(i for i, s in enumerate(segs) if s and frame_body(s) is not None)
body = frame_body(segs[last])
hellos = [p for tag, _, _, _, _, p in records(body) if tag == 0x70]
assert hellos and flags(hellos[-1]) & 2, "the capture's last frame is not the stop"
open(sys.argv[2], "wb").write(b"\0".join(segs[:last]))
PY

for name in inst cut; do
    "$TOP" -r "$tmp/$name.aiop" --report > "$tmp/$name.txt" 2>&1 || { echo "FAIL $name: the report failed"; status=1; }
    "$TOP" -r "$tmp/$name.aiop" --json > "$tmp/$name.json" 2> /dev/null || { echo "FAIL $name: the JSON failed"; status=1; }
done
said=$(grep -c "ended before the device said it stopped" "$tmp/cut.txt")
[ "$said" = 1 ] || { echo "FAIL cut: said $said times"; status=1; }
grep -q "said it stopped" "$tmp/inst.txt" && { echo "FAIL inst: a capture with the stop says it ended before"; status=1; }
python3 - "$tmp/inst.json" "$tmp/cut.json" "$tmp/inst.truth.json" <<'PY' || status=1
import json, sys
full, cut, tru = (json.load(open(p)) for p in sys.argv[1:4])
bad = []
if full["stream"]["ended_before_stop"] or any(i["lower_bound"] for i in full["instances"]):
    bad.append("the full capture (with the stop) is marked")
if not cut["stream"]["ended_before_stop"]:
    bad.append("the cut capture does not say it ended before the stop")
live = [i for i in cut["instances"] if i["end"] == "live"]
done = [i for i in cut["instances"] if i["end"] != "live" and i["end"] != "unknown"]
if not live or not done:
    bad.append(f"{len(live)} live and {len(done)} finished instances: the test tests nothing")
bad += [f"instance #{i['id']} ({i['name']}) is live at the end but not marked" for i in live if not i["lower_bound"]]
bad += [f"instance #{i['id']} ({i['name']}) finished but is marked" for i in done if i["lower_bound"]]
truth = {t["name"]: t for t in tru["tasks"]}
for r in cut["tasks"]:
    t = truth.get(r["name"])
    if t and any(r[k] > t[k] for k in ("count", "total_us", "max_us")):
        bad.append(f"{r['name']} above the truth")
for b in bad:
    print("FAIL", b)
print(f"ok   {len(live)} live instances marked, {len(done)} finished ones not")
sys.exit(1 if bad else 0)
PY
exit $status
