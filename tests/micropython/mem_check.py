#!/usr/bin/env python3
"""aioprof-top's memory figures of a run of mem_tasks.py (docs/micropython.md, "Memory").

Usage: mem_check.py ENGINE REPORT.json SCRIPT_OUTPUT [gc]

firmware: hog's bytes are at least what its code measured it allocated (the slice holds more:
asyncio's own work in it) and at most that plus 512 bytes a slice; still's at most 512 a slice,
far below hog's; with gc, hog shows collections, the figures are marked as lower bounds, untimed
unless the firmware times them (--wrap=gc_collect).
python-walk (the python engine with memory="walk", gc.mem_alloc() at every event): the same bounds,
every figure marked as a lower bound (the heap's growth between two reads), and no collection
figure at all (it sees none): with gc, hog's figure is still far above still's. Other engines: no
memory figure at all (they do not measure it)."""
import json
import re
import sys

engine, report_path, out_path = sys.argv[1:4]
with_gc = len(sys.argv) > 4 and sys.argv[4] == "gc"
report = json.load(open(report_path))
m = re.search(r"mem: hog (\d+) still (\d+) slices (\d+) drops (\d+)", open(out_path).read())
bad = []
if m is None:
    bad.append("the script printed no totals")
else:
    hog_b, still_b, slices, drops = map(int, m.groups())
    rows = {t["name"]: t for t in report["tasks"]}
    if engine not in ("firmware", "python-walk"):
        if any("mem" in t for t in report["tasks"]) or "outside_tasks" in report:
            bad.append("the %s engine does not measure memory, yet the report shows some" % engine)
    else:
        slack = 512 * (slices + 1)
        if engine == "python-walk":
            # tighter: between its reads only the task runs and the engine's paths write in place;
            # the 64-bit unix port's blocks are 32 B: asyncio's own work in hog's slices measured
            # 64 B in all; still's end makes one StopIteration (send() raises it), 32 B
            slack = 64 * (slices + 1)
        mh, ms = rows["hog"].get("mem"), rows["still"].get("mem")
        if mh is None or ms is None:
            bad.append("no mem figures: %r" % rows)
        else:
            if engine == "python-walk":
                for name, t in rows.items():
                    mt = t.get("mem")
                    if mt is None or not mt["alloc_lower_bound"]:
                        bad.append("%s's figure is not marked as a lower bound: %r" % (name, mt))
                    elif mt["gc_count"] is not None or mt["gc_us"] is not None:
                        bad.append("a collection figure the python engine cannot know, for %s: %r" % (name, mt))
            if with_gc and engine == "python-walk":
                if not mh["alloc_bytes"] > 10 * max(ms["alloc_bytes"], 1024):
                    bad.append("hog %d is not far above still %d" % (mh["alloc_bytes"], ms["alloc_bytes"]))
            elif with_gc:
                if not (mh["alloc_lower_bound"] and mh["gc_lower_bound"]):
                    bad.append("the firmware's figures are not marked as lower bounds: %r" % mh)
                if mh["gc_count"] < 1:
                    bad.append("hog's slices show no collection with the collector on: %r" % mh)
                # timed only by a firmware linked with --wrap=gc_collect (the HELLO's mem bit 4)
                if (report["device"].get("mem", 0) & 0x10) == 0 and mh["gc_us"] is not None:
                    bad.append("a collection time the firmware engine cannot know: %r" % mh)
                if (report["device"].get("mem", 0) & 0x10) != 0 and not mh["gc_us"]:
                    bad.append("no collection time from a firmware that times them: %r" % mh)
                # the collections hide part of it: what is left is still far more than still's
                if not mh["alloc_bytes"] > 10 * max(ms["alloc_bytes"], 1024):
                    bad.append("hog %d is not far above still %d" % (mh["alloc_bytes"], ms["alloc_bytes"]))
            else:
                if not hog_b <= mh["alloc_bytes"] <= hog_b + slack:
                    bad.append("hog allocated %d by its own count, aioprof-top says %d" % (hog_b, mh["alloc_bytes"]))
                if engine == "firmware" and mh["gc_count"] != 0:
                    bad.append("collections with the collector off: %r" % mh)
                if still_b != 0:
                    bad.append("still's code allocated %d" % still_b)
            if not ms["alloc_bytes"] <= (64 if engine == "python-walk" else slack):
                bad.append("still allocated %d by aioprof-top, its code nothing" % ms["alloc_bytes"])
            if not mh["alloc_bytes"] > 20 * ms["alloc_bytes"]:
                bad.append("hog %d does not stand out from still %d" % (mh["alloc_bytes"], ms["alloc_bytes"]))
for b in bad:
    print("FAIL mem (%s%s): %s" % (engine, ", gc" if with_gc else "", b))
if not bad:
    print("mem (%s%s): ok" % (engine, ", gc" if with_gc else ""))
sys.exit(1 if bad else 0)
