#!/usr/bin/env python3
"""Compares aioprof-top's JSON report of the emulated board with the firmware's own account, which
the firmware sent as device text and aioprof-top printed on stderr ("device: account ...").

Usage: qemu_compare.py REPORT.json STDERR MODE
  exact   nothing was dropped: every name's instances, count, total_us, max_us, slow and errors
          equal the account (the account uses the very ticks the hook stamped, so equal means
          equal, not "close"), and every ENTER and EXIT arrived.
  drops   the ring was too small for the port: the host's drop count equals the firmware's exactly,
          every event the firmware did not drop arrived, and no figure is above the account.
In both modes: no CRC error, no lost frame, nothing malformed, the firmware ended with status 0.
Prints one line per problem and exits 1 if there was any."""
import json
import re
import sys

FIELDS = ("instances", "count", "total_us", "max_us", "slow", "errors")


def parse_account(path):
    rows, summary, status = {}, None, None
    for line in open(path, encoding="utf-8", errors="replace"):
        if not line.startswith("device: "):
            continue
        text = line[len("device: "):].strip()
        fields = dict(re.findall(r"(\w+)=(\S+)", text))
        if text.startswith("account name="):
            name = fields.pop("name")
            rows[name] = {k: int(v) for k, v in fields.items()}
        elif text.startswith("account summary"):
            summary = {k: int(v) for k, v in fields.items()}
        elif text.startswith("demo: done"):
            status = int(fields.get("status", -1))
    return rows, summary, status


def main():
    report, stderr, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    j = json.load(open(report))
    rows, summary, status = parse_account(stderr)
    problems = []
    if summary is None or not rows:
        print("the firmware's account is missing from aioprof-top's device text")
        return 1
    if status != 0:
        problems.append(f"the firmware ended with status {status}")
    s = j["stream"]
    for k in ("crc_errors", "lost_frames", "malformed", "unsupported", "resets"):
        if s[k] != 0:
            problems.append(f"stream.{k} = {s[k]}, expected 0")
    if s["dropped_events"] != summary["dropped_total"]:
        problems.append(f"dropped_events: host {s['dropped_events']}, device {summary['dropped_total']}")
    if s["events"] != summary["events"]:
        problems.append(f"events: host decoded {s['events']}, the device recorded {summary['events']}")
    if j["device"] is None or j["device"]["tick_bits"] != 27:
        problems.append(f"device: {j['device']} (expected the port's 27-bit microsecond clock)")
    host = {t["name"]: t for t in j["tasks"]}
    # With drops, a task whose creation and first enter were both dropped can still be seen running
    # (a frame's `running`, its EXIT): the host shows it as "task #ID" until a name arrives.
    unnamed = [n for n, t in host.items() if t["kind"] == "instance" and mode == "drops"]
    extra = set(host) - set(rows) - set(unnamed)
    if extra:
        problems.append(f"names the device never ran: {sorted(extra)}")
    for k in ("count", "errors", "total_us"):
        got = sum(t[k] for t in host.values())
        want = sum(r[k] for r in rows.values())
        if got > want:
            problems.append(f"all tasks' {k}: host {got} above the device's {want}")
    if mode == "exact":
        if summary["dropped_total"] != 0:
            problems.append(f"the device dropped {summary['dropped_total']} events with the full ring")
        if s["unmatched"] != 0:
            problems.append(f"stream.unmatched = {s['unmatched']}")
        for name, want in rows.items():
            got = host.get(name)
            if got is None:
                problems.append(f"{name}: missing from the report")
                continue
            for k in FIELDS:
                if got[k] != want[k]:
                    problems.append(f"{name}.{k}: host {got[k]}, device {want[k]}")
            if got["lower_bound"]:
                problems.append(f"{name}: marked lower_bound on a clean stream")
    elif mode == "drops":
        if summary["events_dropped"] == 0:
            problems.append("the small ring dropped no event: the test proves nothing")
        for name, want in rows.items():
            got = host.get(name)
            if got is None:
                continue  # every event of it may have been dropped
            for k in ("count", "total_us", "max_us", "slow", "errors", "instances"):
                if got[k] > want[k]:
                    problems.append(f"{name}.{k}: host {got[k]} above the device's {want[k]}")
            if got["count"] < want["count"] and not got["lower_bound"]:
                problems.append(f"{name}: {got['count']} of {want['count']} slices, not marked lower_bound")
    else:
        problems.append(f"unknown mode {mode}")
    for p in problems:
        print(p)
    names = ", ".join(f"{n} {host[n]['count'] if n in host else 0}/{r['count']}" for n, r in rows.items())
    print(f"{mode}: {'ok' if not problems else 'FAIL'}: slices host/device {names}; "
          f"events {s['events']}/{summary['events']}, dropped {s['dropped_events']}/{summary['dropped_total']}, "
          f"crc_errors {s['crc_errors']}, lost_frames {s['lost_frames']}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
