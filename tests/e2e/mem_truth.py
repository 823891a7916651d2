#!/usr/bin/env python3
"""aioprof-top's memory figures (docs/usage.md, "Memory") against the simulator's truth: per name
and per instance the bytes allocated, the collections inside its slices and their time, the
scheduler's between slices (outside_tasks), and the culprit "(gc)" of lateness, all exactly.

Usage: mem_truth.py REPORT.json TRUTH.json"""
import json
import sys


def main():
    report = json.load(open(sys.argv[1]))
    truth = json.load(open(sys.argv[2]))
    bad = []

    def same(what, got, want):
        if got != want:
            bad.append("%s: aioprof-top %r, truth %r" % (what, got, want))

    if truth.get("mem", 0) == 0:
        bad.append("the truth says the workload reports no memory")
    same("device mem", report["device"].get("mem"), truth.get("mem"))

    def mem_of(where, m, t):
        if m is None:
            bad.append("%s: no mem in the report" % where)
            return
        same(where + " alloc_bytes", m["alloc_bytes"], t["alloc_bytes"])
        same(where + " gc_count", m["gc_count"], t["gc_count"])
        same(where + " gc_us", m["gc_us"], t["gc_us"])
        same(where + " alloc_lower_bound", m["alloc_lower_bound"], False)

    mem_of("outside tasks", report.get("outside_tasks", {}).get("mem"), truth["outside_tasks"])
    rows = {r["name"]: r for r in report["tasks"]}
    for t in truth["tasks"]:
        r = rows.get(t["name"])
        if r is None:
            bad.append("task %s: not in the report" % t["name"])
            continue
        mem_of("task " + t["name"], r.get("mem"), t)
        if "blocked_by" in t and r.get("late"):
            same("task %s blocked_by" % t["name"], r["late"]["blocked_by"], t["blocked_by"])
            same("task %s blocked_us" % t["name"], r["late"]["blocked_us"], t["blocked_us"])
    insts = {r["id"]: r for r in report["instances"]}
    for t in truth["instances"]:
        r = insts.get(t["id"])
        if r is None:
            bad.append("instance %d: not in the report" % t["id"])
            continue
        mem_of("instance %d" % t["id"], r.get("mem"), t)
    # the workload must be one where the figures mean something: a task that allocates heavily,
    # one that does not, collections inside slices and between them, and (gc) blamed somewhere
    heavy = max(truth["tasks"], key=lambda t: t["alloc_bytes"])
    if heavy["alloc_bytes"] < 100 * max(1, min(t["alloc_bytes"] for t in truth["tasks"])) or \
            truth["outside_tasks"]["gc_count"] == 0 or heavy["gc_count"] == 0:
        bad.append("the workload does not exercise memory: %r" % truth["tasks"])
    if truth.get("late_unit") and not any(t.get("blocked_by") == "(gc)" or t.get("blocked_us", 0) for t in truth["tasks"]):
        bad.append("no lateness to blame")
    for b in bad:
        print("FAIL " + b)
    if not bad:
        print("mem_truth: %d tasks, %d instances equal to the truth" % (len(truth["tasks"]), len(truth["instances"])))
    sys.exit(1 if bad else 0)


main()
