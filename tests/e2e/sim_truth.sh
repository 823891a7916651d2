#!/usr/bin/env bash
# The ground truth is consistent with itself, with the output and with what each workload is
# defined to do (slice lengths from device/sim/sim_workloads.c, exclusive time when nested).
set -euo pipefail
: "${AIOPROF_SIM:?AIOPROF_SIM must name the aioprof-sim binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for w in seed instances busy nested; do
    "$AIOPROF_SIM" -w "$w" --duration 20 --seed 5 -o "$tmp/$w.bin" --truth "$tmp/$w.json" -q
done

python3 - "$tmp" <<'PY'
import json, os, sys
d = sys.argv[1]
fail = []
def check(cond, what):
    if not cond:
        fail.append(what)

for w in ["seed", "instances", "busy", "nested"]:
    t = json.load(open(os.path.join(d, w + ".json")))
    size = os.path.getsize(os.path.join(d, w + ".bin"))
    insts, tasks = t["instances"], t["tasks"]
    check(t["workload"] == w, f"{w}: workload field")
    check(t["bytes"] == size, f"{w}: bytes {t['bytes']} but the file has {size}")
    check(t["bytes"] == t["frame_bytes"] + t["text_bytes"], f"{w}: byte split")
    check(t["dropped_events"] == 0, f"{w}: drops with the default ring")
    check(19_000_000 <= t["duration_us"] <= 21_000_000, f"{w}: duration {t['duration_us']}")
    # every slice is one enter and one exit: the run stops between slices
    check(t["events"] == 2 * sum(i["count"] for i in insts), f"{w}: events vs slices")
    check(len({i["id"] for i in insts}) == len(insts), f"{w}: duplicate ids")
    check([i["id"] for i in insts] == sorted(i["id"] for i in insts), f"{w}: ids not in creation order")
    ids = {i["id"]: i for i in insts}
    for i in insts:
        check(i["parent"] == 0 or ids[i["parent"]]["name"] == i["parent_name"], f"{w}: parent name of {i['id']}")
        check(i["count"] == 0 or i["min_us"] <= i["total_us"] / i["count"] <= i["max_us"], f"{w}: mean of {i['id']}")
        check(i["slow"] == 0 or i["max_us"] > t["slow_us"], f"{w}: slow without a long slice")
    for name in {i["name"] for i in insts}:
        mine = [i for i in insts if i["name"] == name]
        row = [r for r in tasks if r["name"] == name]
        check(len(row) == 1, f"{w}: one task row for {name}")
        r = row[0]
        check(r["count"] == sum(i["count"] for i in mine), f"{w}: {name} count")
        check(r["total_us"] == sum(i["total_us"] for i in mine), f"{w}: {name} total")
        check(r["max_us"] == max(i["max_us"] for i in mine), f"{w}: {name} max")
        check(r["instances"] == len(mine), f"{w}: {name} instances")
        check(r["slow"] == sum(i["slow"] for i in mine), f"{w}: {name} slow")
        check(r["errors"] == sum(i["end"] in ("raise", "cancel") for i in mine), f"{w}: {name} errors")
    by = {r["name"]: r for r in tasks}
    if w == "seed":
        s, q = by["slow"], by["quicker"]
        check(s["min_us"] == s["max_us"] == 80000, "seed: slow slices are 80 ms")
        check(q["min_us"] == q["max_us"] == 1000, "seed: quicker slices are 1 ms")
        check(s["slow"] == s["count"] and q["slow"] == 0, "seed: slow counts")
        check(by["main"]["count"] == 1, "seed: main runs once")
        # 80 ms + 20 ms sleep: about ten slices a second each
        check(190 <= s["count"] <= 201, f"seed: {s['count']} slow slices in 20 s")
    if w == "instances":
        g = [i for i in insts if i["name"] == "Sensor._go"]
        ends = {e: sum(i["end"] == e for i in g) for e in ("return", "raise", "cancel", "running")}
        check(all(ends[e] > 0 for e in ends), f"instances: endings {ends}")
        check({i["parent_name"] for i in g} == {"main", "Manager.spawn"}, "instances: two creators")
        check(any(i["label"] for i in g) and any(not i["label"] for i in g), "instances: some labels")
        check(any(i["label"].startswith("late") for i in g), "instances: labels given later")
        check(any(i["end"] == "cancel" and i["count"] == 1 for i in g), "instances: cancelled before running")
        check(by["Sensor._go"]["slow"] > 0, "instances: a hog's slow slices")
    if w == "busy":
        check(len(insts) == 41, "busy: main and 40 tasks")
        check(t["events"] > 20 * 2000, "busy: a high event rate")
        check(max(r["max_us"] for r in tasks if r["name"] != "main") <= 600, "busy: short slices")
    if w == "nested":
        o, i, ii = by["outer"], by["inner"], by["innermost"]
        # outer computes 150..250 + 100 us around inner: only that is its time
        check(250 <= o["min_us"] and o["max_us"] <= 350, f"nested: outer {o['min_us']}..{o['max_us']}")
        check(300 <= i["min_us"] and i["max_us"] <= 400, f"nested: inner {i['min_us']}..{i['max_us']}")
        check(i["count"] == o["count"] and ii["count"] == i["count"] // 3, "nested: counts")
        check(all(x["parent_name"] == "inner" for x in insts if x["name"] == "innermost"), "nested: innermost's creator")
        check(all(x["parent_name"] == "outer" for x in insts if x["name"] == "inner"), "nested: inner's creator")
    print(f"{w}: {len(insts)} instances, {t['events']} events, {t['bytes_per_event']:.3f} bytes/event")

if fail:
    print("\n".join("FAIL " + f for f in fail))
    sys.exit(1)
PY
