#!/usr/bin/env python3
# Compares aioprof-top's report of a capture with what the script measured itself, and the
# program's text with the same script's text without the hook.
#
# usage: check_report.py REPORT.json DEVICE_LINES.txt BASELINE.txt SLICE_US [TICK_US]
#   REPORT.json       aioprof-top -r CAPTURE --json
#   DEVICE_LINES.txt  aioprof-top's stderr: the device's text as "device: ..." lines
#   BASELINE.txt      the script's stdout when run without the hook
#   SLICE_US          what the hook's slice may exceed, per slice, the span the script saw free
#                     around it (bound_us, see truth.py): a margin for the clock's rounding
#   TICK_US           the resolution of the device's time.ticks_us (default 1; 1000 in the
#                     WebAssembly port, whose clock counts milliseconds)
# Exits 0 when everything matches, 1 otherwise; says what differed.
import json
import sys


def truth_rows(lines):
    rows = {}
    for line in lines:
        if line.startswith("truth "):
            words = line.split()
            # the numbers (blocked_by, a name, is late_check.py's)
            rows[words[1]] = {k: int(v) for k, v in (w.split("=") for w in words[2:]) if k != "blocked_by"}
    return rows


def main():
    report = json.load(open(sys.argv[1]))
    device = [l[len("device: ") :].rstrip("\n") for l in open(sys.argv[2]) if l.startswith("device: ")]
    baseline = [l.rstrip("\n") for l in open(sys.argv[3])]
    slice_us = int(sys.argv[4])
    tick_us = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    failures = []

    # 1. the program prints the same with the hook as without (timings aside)
    want = [l for l in baseline if not l.startswith("truth ")]
    got = [l for l in device if not l.startswith("truth ")]
    if want != got:
        failures.append("text differs:\n  without the hook: %r\n  with the hook:    %r" % (want, got))

    # 2. the stream is clean
    st = report["stream"]
    for key in ("crc_errors", "lost_frames", "dropped_events", "malformed", "unmatched"):
        if st.get(key, 0):
            failures.append("stream.%s = %s" % (key, st[key]))

    # 3. every task the script measured has the same counts, and totals within the tolerance
    tasks = {t["name"]: t for t in report["tasks"]}
    truth = truth_rows(device)
    if not truth:
        failures.append("the script reported no truth lines")
    for name, want_row in sorted(truth.items()):
        t = tasks.get(name)
        if t is None:
            failures.append("%s: not in the report" % name)
            continue
        line = "%s: count %d/%d" % (name, t["count"], want_row["count"])
        bad = t["count"] != want_row["count"]
        if t["errors"] != want_row["errors"]:
            bad = True
        line += ", errors %d/%d" % (t["errors"], want_row["errors"])
        if want_row.get("instances", -1) >= 0:
            line += ", instances %d/%d" % (t["instances"], want_row["instances"])
            bad |= t["instances"] != want_row["instances"]
        if want_row["total_us"] >= 0:
            # the hook's slice encloses what the task timed itself: never shorter (but for a
            # tick per slice of rounding), and lies within the span from the previous end() to
            # the next begin() of any task (bound_us): a preempted script widens that span as
            # much as the hook's slice, so the check holds on a loaded machine too
            low = want_row["total_us"] - want_row["count"] * tick_us
            high = want_row["bound_us"] + (slice_us + tick_us) * want_row["count"]
            line += ", total_us %d in [%d, %d]" % (t["total_us"], low, high)
            bad |= not (low <= t["total_us"] <= high)
        print(("FAIL " if bad else "ok   ") + line)
        if bad:
            failures.append(line)
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


main()
