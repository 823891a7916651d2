#!/usr/bin/env python3
"""aioprof-top's span figures (its --json) against the simulator's truth (docs/usage.md, "Spans"):
every span name under every task instance exactly (count, own, inclusive, wall, max, unwound, and
from a workload that allocates its memory: bytes, collections and their time, inclusive and own,
"Memory per span"), their sums per task name exactly, and a span the truth has still open (count 0)
cut, not counted.

usage: truth_spans.py REPORT.json TRUTH.json     prints one line per problem, exit 1 on any"""
import json
import sys

KEYS = ("count", "own_us", "inclusive_us", "wall_us", "max_us", "unwound")
MEM = ("alloc_bytes", "gc_count", "gc_us", "own_alloc_bytes", "own_gc_count", "own_gc_us")


def figures(x, mem):
    """A report span's figures, its memory's (in its "mem") flattened beside them."""
    f = {k: x[k] for k in KEYS}
    if mem:
        f.update({k: x.get("mem", {}).get(k) for k in MEM})
    return f


def main():
    rep, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    problems = []
    mem = truth.get("mem", 0) != 0
    keys = KEYS + MEM if mem else KEYS
    want_inst, want_name, still_open = {}, {}, set()
    for e in truth.get("spans", []):
        if e["count"] == 0:
            still_open.add((e["instance"], e["span"]))
            continue
        want_inst[(e["instance"], e["span"])] = {k: e[k] for k in keys}
        n = want_name.setdefault((e["task"], e["span"]), dict.fromkeys(keys, 0))
        for k in keys:
            n[k] = max(n[k], e[k]) if k == "max_us" else n[k] + e[k]
    got_inst, got_name, cut = {}, {}, {}
    for r in rep["instances"]:
        for x in r.get("spans", []):
            if x["count"]:
                got_inst[(r["id"], x["name"])] = figures(x, mem)
            cut[(r["id"], x["name"])] = x["cut"]
    for r in rep["tasks"]:
        for x in r.get("spans", []):
            if x["count"]:
                got_name[(r["name"], x["name"])] = figures(x, mem)
    for what, got, want in (("instance", got_inst, want_inst), ("task", got_name, want_name)):
        for key in sorted(set(got) | set(want), key=str):
            if got.get(key) != want.get(key):
                problems.append(f"{what} {key[0]} span {key[1]}: aioprof-top says {got.get(key)}, "
                                f"the truth {want.get(key)}")
    for key in sorted(still_open):
        if key not in want_inst and cut.get(key, 0) < 1:
            problems.append(f"instance {key[0]} span {key[1]}: open at the end in the truth, not cut in the report")
    if not want_inst:
        problems.append("the truth has no span: nothing was compared")
    if mem and not any(w["own_alloc_bytes"] and w["alloc_bytes"] > w["own_alloc_bytes"] and w["gc_count"]
                       for w in want_inst.values()):
        problems.append("the workload has no span that allocates inside nested spans with collections: "
                        "memory per span is not exercised")
    for p in problems:
        print("truth_spans: " + p)
    print(f"truth_spans: {len(want_inst)} (instance, span) and {len(want_name)} (task, span) rows"
          f"{' with their memory' if mem else ''}, "
          f"{len(still_open)} open at the end, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
