#!/usr/bin/env python3
"""aioprof-top's collections of a run of gc_timed.py (docs/micropython.md, "Collections timed").

Usage: gc_check.py timed|untimed REPORT.json SCRIPT_STDERR

timed (a firmware linked with --wrap=gc_collect): the HELLO says collections are timed; inside's
slices hold every collection its code ran, and the time outside tasks every one outside's code
ran, each count exact (the script turns the automatic ones off), each total at most what the
script's own clock measured around gc.collect() (the hook's window is inside that one) and at
least half of it; waiter, made late by them, is blocked by "(gc)" most. untimed (a firmware
without the wrapper): no collection time anywhere and never "(gc)" as a culprit."""
import json
import re
import sys

mode, report_path, err_path = sys.argv[1:4]
report = json.load(open(report_path))
m = re.search(r"gc: inside (\d+) (\d+) outside (\d+) (\d+)", open(err_path).read())
bad = []
if m is None:
    bad.append("the script printed no counts")
else:
    own = {"inside": (int(m.group(1)), int(m.group(2))), "outside": (int(m.group(3)), int(m.group(4)))}
    rows = {t["name"]: t for t in report["tasks"]}
    mem = report["device"].get("mem") or 0
    got = {"inside": rows.get("inside", {}).get("mem"), "outside": (report.get("outside_tasks") or {}).get("mem")}
    waiter = rows.get("waiter", {}).get("late") or {}
    if mode == "timed":
        if not mem & 0x10:
            bad.append("the HELLO's mem %#x does not say collections are timed" % mem)
        for who, (n, us) in own.items():
            g = got[who]
            if g is None:
                bad.append("no memory figures for %s" % who)
                continue
            if g["gc_count"] != n:
                bad.append("%s ran %d collections, aioprof-top counts %d" % (who, n, g["gc_count"]))
            # the report's microseconds are whole: one of rounding per collection
            if g["gc_us"] is None or not us / 2 <= g["gc_us"] <= us + n:
                bad.append("%s's collections took %d us by its own clock, aioprof-top says %r" % (who, us, g["gc_us"]))
        if waiter.get("blocked_by") != "(gc)" or not waiter.get("blocked_us"):
            bad.append("waiter is not blocked by (gc) most: %r" % waiter)
    else:
        for who, g in got.items():
            if g is not None and g["gc_us"] is not None:
                bad.append("a collection time (%s: %r) from a firmware that cannot know it" % (who, g))
        if any((t.get("late") or {}).get("blocked_by") == "(gc)" for t in report["tasks"]):
            bad.append("(gc) named as a culprit without collection times")
for b in bad:
    print("FAIL gc (%s): %s" % (mode, b))
if not bad:
    print("gc (%s): ok" % mode)
sys.exit(1 if bad else 0)
