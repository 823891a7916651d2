#!/usr/bin/env python3
"""aioprof-top's spans of a MicroPython capture (its --json) against what the program measured of
each span itself (spans_prog.py's stderr line: per span name, how many ran, the sum of what their
bodies measured and the sum of what was measured around them, on the hook's own clock): every
span name counted exactly as many times, its inclusive time within those two bounds; inner's
inclusive is part of outer's (outer's own is the rest); fetch's wall holds its awaits.

usage: spans_check.py REPORT.json MEASURED.txt ENGINE"""
import json
import sys


def main():
    rep, engine = json.load(open(sys.argv[1])), sys.argv[3]
    measured = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
    spans = {}
    for t in rep["tasks"]:
        for x in t.get("spans", []):
            spans[x["name"]] = x
    problems = []
    for name, (runs, lo, hi) in measured.items():
        x = spans.get(name)
        if x is None:
            problems.append(f"{name}: not in the report")
            continue
        if x["count"] != runs:
            problems.append(f"{name}: count {x['count']}, the program ran it {runs} times")
        if not lo <= x["inclusive_us"] <= hi:
            problems.append(f"{name}: inclusive {x['inclusive_us']} us, the program measured {lo} us inside "
                            f"and {hi} us around")
    if "outer" in spans and "inner" in spans:
        o, i = spans["outer"], spans["inner"]
        if o["own_us"] != o["inclusive_us"] - i["inclusive_us"]:
            problems.append(f"outer own {o['own_us']} != its inclusive {o['inclusive_us']} - inner's {i['inclusive_us']}")
    if "fetch" in spans and spans["fetch"]["wall_us"] < spans["fetch"]["inclusive_us"] + 4 * 10000:
        problems.append(f"fetch's wall {spans['fetch']['wall_us']} us does not hold its four 10 ms awaits")
    counts = rep.get("span_counts", {})
    if counts.get("unmatched") or counts.get("refused"):
        problems.append(f"span records not matched or refused: {counts}")
    for p in problems:
        print(f"FAIL spans ({engine}): {p}")
    if not problems:
        print(f"ok   spans ({engine}): " + ", ".join(f"{n} {spans[n]['count']}x {spans[n]['inclusive_us']} us"
                                              for n in sorted(measured)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
