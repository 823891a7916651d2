#!/usr/bin/env python3
# Checks the lateness an engine sent (each ENTER's, in the frames' LATE records) against what the
# script bounded itself (truth.py: due(), the late_* fields of its "truth" lines). The capture is
# taken apart with tests/e2e/wire.py (written from docs/protocol.md, independent of the C reader):
# per task name, the greatest lateness and the sum over its resumes, in milliseconds, must lie
# within the script's bounds, and every HELLO must say the lateness unit is a millisecond (1000
# microsecond ticks). With aioprof-top's report: its late figures per task (resumes, max_us,
# total_us) within the same bounds, and the task that kept it waiting the most (blocked_by, with
# more than half of the time) the one the script named (truth.blocker()).
#
# usage: late_check.py CAPTURE DEVICE_LINES.txt [REPORT.json]
#   CAPTURE           the program's stdout (frames and text) with the hook on
#   DEVICE_LINES.txt  aioprof-top's stderr for it: the device's text as "device: ..." lines
#   REPORT.json       aioprof-top -r CAPTURE --json
# Exits 0 when every row the script bounded matches (and says so when the script bounded none),
# 1 otherwise; says what differed.
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "e2e"))
import wire  # noqa: E402

LATE_UNIT_MS = 1000  # microsecond ticks per millisecond: the unit the engines report in


def lateness(data):
    """{task name: [lateness of each ENTER, in late_unit]} and the HELLOs' late_units."""
    names, late, units = {}, {}, []
    for seg in data.split(b"\x00"):
        body = wire.frame_body(seg) if seg else None
        if body is None:
            continue
        enters, listed = [], None
        for tag, start, end, dt, task, payload in wire.records(body):
            if payload is None:
                if tag >= 0x80:
                    enters.append(task)
                continue
            op = tag & 0x0F
            if op == wire.OP_HELLO:
                units.append(wire.hello(payload)["late_unit"])
            elif op in (wire.OP_TASK_NEW, wire.OP_TASK_INFO):
                tid, i = wire.varint(payload, 0)
                _, i = wire.varint(payload, i)
                n, i = wire.varint(payload, i)
                names[tid] = payload[i:i + n].decode("utf-8", "replace")
            elif op == wire.OP_LATE:
                listed = wire.late_values(payload)
        if listed is None:
            listed = [0] * len(enters)  # no LATE record: every ENTER of the frame was on time
        if len(listed) != len(enters):
            raise ValueError("a LATE record lists %d values for %d ENTERs" % (len(listed), len(enters)))
        for task, v in zip(enters, listed):
            late.setdefault(names.get(task, "?%d" % task), []).append(v)
    return late, units


def check_report(name, want, got, failures):
    # aioprof-top's figures (microseconds) within the script's bounds (milliseconds)
    if got is None:
        failures.append("%s: aioprof-top reports no lateness" % name)
        print("FAIL " + failures[-1])
        return
    text = "%s in the report: %d resumes, late max %d us in [%d, %d] ms, total %d us in [%d, %d] ms" % (
        name, got["resumes"], got["max_us"], want["late_lo_max"], want["late_hi_max"], got["total_us"],
        want["late_lo_sum"], want["late_hi_sum"])
    bad = got["resumes"] != want["late_n"]
    bad |= not want["late_lo_max"] * 1000 <= got["max_us"] <= want["late_hi_max"] * 1000
    bad |= not want["late_lo_sum"] * 1000 <= got["total_us"] <= want["late_hi_sum"] * 1000
    by = want.get("blocked_by")
    if by is not None:
        text += ", blocked by %s %.0f %% (want %s, more than half)" % (
            got["blocked_by"], 100 * got["blocked_share"], by)
        bad |= got["blocked_by"] != by or not got["blocked_share"] > 0.5
    print(("FAIL " if bad else "ok   ") + text)
    if bad:
        failures.append(text)


def main():
    data = open(sys.argv[1], "rb").read()
    device = [l[len("device: "):].rstrip("\n") for l in open(sys.argv[2]) if l.startswith("device: ")]
    failures = []
    report = {}
    if len(sys.argv) > 3:
        report = {t["name"]: t for t in json.load(open(sys.argv[3]))["tasks"]}
    late, units = lateness(data)
    if not units or any(u != LATE_UNIT_MS for u in units):
        failures.append("the HELLOs' late_unit: %s, not all %d" % (units, LATE_UNIT_MS))
    checked = 0
    for line in device:
        if not line.startswith("truth ") or " late_n=" not in line:
            continue
        words = line.split()
        name, want = words[1], {k: (v if k == "blocked_by" else int(v)) for k, v in (w.split("=") for w in words[2:])}
        got = late.get(name, [])
        checked += 1
        # the units are milliseconds here (checked above)
        text = "%s: %d resumes, late max %s ms in [%d, %d], sum %d ms in [%d, %d]" % (
            name, len(got), max(got) if got else None, want["late_lo_max"], want["late_hi_max"],
            sum(got), want["late_lo_sum"], want["late_hi_sum"])
        bad = len(got) != want["late_n"]
        bad |= not got or not want["late_lo_max"] <= max(got) <= want["late_hi_max"]
        bad |= not want["late_lo_sum"] <= sum(got) <= want["late_hi_sum"]
        print(("FAIL " if bad else "ok   ") + text)
        if bad:
            failures.append(text)
        if len(sys.argv) > 3:
            check_report(name, want, (report.get(name) or {}).get("late"), failures)
    if not checked:
        print("late_check: the script bounds no task's lateness")
    for f in failures:
        print("FAIL " + f)
    sys.exit(1 if failures else 0)


main()
