#!/usr/bin/env python3
"""Checks an `aioprof-top --export-trace` file against the statistics (used by trace_*.sh).

Usage: trace_check.py TRACE.json REPORT.json [--truth TRUTH.json] [--past-us N] [--repair]

  REPORT.json  `aioprof-top --json` of the same session (the same run, or the same recording):
               per task name and per instance, the slices in the trace must have the same count,
               the same total exclusive time (args.self_us) and the same maximum, exactly; the
               counter must add up to the events; marks and text lines to the stream counters.
  --truth      the simulator's truth: the same per-name counts and totals, exactly.
  --past-us N  some slice must end after N us of device time (a run that crossed a tick wrap).
  --by-instance  compare per instance and in total only: in a damaged or late-joined stream a
               slice can come before its task's name, so the trace shows it as "task #id" while
               the report later files it under the name.
  --repair     the file was cut short (kill -9): it must end after a whole event, and "]}" must
               complete it; then only its own consistency is checked (no report).
Spans (cat "span", pieces of a span inside one slice each): every piece lies inside a slice of
its track; with REPORT.json, per task name and span the pieces where a span closed (args.last)
are the report's spans[].count.
Always: it parses as JSON; on every track the slices come in time order without overlapping;
a slice's wall span (dur) is its own time plus exactly the time of the slices nested in it; every
track is named "name #id". Lateness ("waiting" slices, cat "late": a late resume's window on its
track): each ends where a slice of its task starts and overlaps none of that task's slices, its
blocked_us is within its dur; with REPORT.json, per name (and per instance) their count, total
and maximum are the report's late.count, late.total_us and late.max_us.
Prints one line per problem and exits 1 if there was any."""
import bisect
import json
import sys
from collections import defaultdict

PID_STREAM, PID_EPOCH0 = 1, 2
MARKS = {"events dropped": "dropped_events", "CRC errors": "crc_errors", "frames lost": "lost_frames",
         "malformed frames": "malformed", "device reset": "resets", "link down": None}


def main():
    args = sys.argv[1:]
    opts = {}
    pos = []
    i = 0
    while i < len(args):
        if args[i] in ("--truth", "--past-us"):
            opts[args[i]] = args[i + 1]
            i += 2
        elif args[i] in ("--repair", "--by-instance"):
            opts[args[i]] = True
            i += 1
        else:
            pos.append(args[i])
            i += 1
    trace_path = pos[0]
    problems = []
    fail = problems.append

    text = open(trace_path, encoding="utf-8").read()
    if opts.get("--repair"):
        if not text.rstrip().endswith(("}", "[")):
            fail(f"a cut-short file must end after a whole event, ends with {text[-40:]!r}")
        text += "]}"
    try:
        doc = json.loads(text)
    except ValueError as e:
        print(f"{trace_path}: not valid JSON: {e}")
        return 1
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        print(f"{trace_path}: no traceEvents list")
        return 1

    waits = [e for e in events if e.get("ph") == "X" and e.get("cat") == "late"]
    pieces = [e for e in events if e.get("ph") == "X" and e.get("cat") == "span"]
    slices = [e for e in events if e.get("ph") == "X" and e.get("cat") not in ("late", "span")]
    names = {}  # (pid, tid) -> last thread_name
    for e in events:
        if "ph" not in e or "name" not in e or "pid" not in e:
            fail(f"an event without ph, name or pid: {e}")
        if e.get("ph") == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]

    # per track: in time order, no overlap, named "name #id"
    tracks = defaultdict(list)
    for s in slices:
        for k in ("ts", "dur", "pid", "tid"):
            if not isinstance(s.get(k), int) or s[k] < 0:
                fail(f"slice {s} has a bad {k}")
        a = s["args"]
        if a.get("exit") not in ("yield", "return", "exception", "cancelled"):
            fail(f"slice {s}: exit {a.get('exit')!r}")
        if not 0 <= a["self_us"] <= s["dur"]:
            fail(f"slice {s}: self_us outside [0, dur]")
        tracks[(s["pid"], s["tid"])].append(s)
    for key, ss in tracks.items():
        prev_end = -1
        for s in ss:
            if s["ts"] < prev_end:
                fail(f"track {key}: slice at {s['ts']} starts before the previous one ended at {prev_end}")
                break
            prev_end = s["ts"] + s["dur"]
        name = names.get(key)
        if name is None or not name.endswith(f" #{key[1]}"):
            fail(f"track {key}: named {name!r}, not 'name #{key[1]}'")
        elif name.rsplit(" #", 1)[0] not in (ss[-1]["name"], "task"):
            fail(f"track {key}: named {name!r} but its slices are {ss[-1]['name']!r}")

    # dur = self + the time of the slices nested in it (one event loop: slices nest or follow)
    order = sorted(slices, key=lambda s: (s["ts"], -s["dur"]))
    starts = [s["ts"] for s in order]
    prefix = [0]
    for s in order:
        prefix.append(prefix[-1] + s["args"]["self_us"])
    nested_bad = 0
    for j, s in enumerate(order):
        end = s["ts"] + s["dur"]
        hi = bisect.bisect_left(starts, end)
        inside = prefix[hi] - prefix[j + 1]  # slices after it in the order that start before its end
        if inside != s["dur"] - s["args"]["self_us"]:
            nested_bad += 1
            if nested_bad <= 3:
                fail(f"slice {s}: dur - self_us = {s['dur'] - s['args']['self_us']}, nested slices hold {inside}")
    if nested_bad > 3:
        fail(f"... {nested_bad} slices whose span is not their time plus their nested slices' time")

    # lateness: each window ends where its task's slice starts, on a named track, and overlaps
    # none of that task's slices
    starts = {key: {s["ts"] for s in ts} for key, ts in tracks.items()}
    track_ts = {key: [s["ts"] for s in ts] for key, ts in tracks.items()}  # once: not per window
    late_name = defaultdict(lambda: [0, 0, 0])
    late_inst = defaultdict(lambda: [0, 0, 0])
    # where the stream lost something, a window may reach back over the time it lost (the time
    # line cuts it out) or end at a slice that was not counted: said only of a clean stream
    clean = True
    if len(pos) > 1:
        st = json.load(open(pos[1]))["stream"]
        clean = not any(st[k] for k in ("crc_errors", "lost_frames", "dropped_events", "malformed", "unmatched"))
    waiting_problems = []
    for w in waits:
        key = (w["pid"], w["tid"])
        end = w["ts"] + w["dur"]
        if key not in names:
            fail(f"waiting {w}: on a track without a name")
        if end not in starts.get(key, ()):
            waiting_problems.append(f"waiting {w}: no slice of its task starts where it ends")
        a = w.get("args", {})
        if not 0 <= a.get("blocked_us", -1) <= w["dur"]:
            fail(f"waiting {w}: blocked_us outside [0, dur]")
        ts = tracks.get(key, [])
        k = bisect.bisect_right(track_ts.get(key, []), w["ts"]) - 1
        if k >= 0 and ts[k]["ts"] + ts[k]["dur"] > w["ts"] and ts[k]["ts"] < end:
            waiting_problems.append(f"waiting {w}: overlaps its task's slice {ts[k]}")
        task = names.get(key, "?").rsplit(" #", 1)[0]
        for row in (late_name[task], late_inst[(w["pid"] - PID_EPOCH0, w["tid"])]):
            row[0] += 1
            row[1] += w["dur"]
            row[2] = max(row[2], w["dur"])

    if clean:
        for p in waiting_problems:
            fail(p)

    # spans: each piece inside a slice of its track, the pieces of one slice nested by depth; per
    # task name and span, the pieces that closed a span are the report's count
    span_closed = defaultdict(int)
    for sp in pieces:
        key = (sp["pid"], sp["tid"])
        ts, end = sp["ts"], sp["ts"] + sp["dur"]
        k = bisect.bisect_right(track_ts.get(key, []), ts) - 1
        own = tracks.get(key, [])
        if k < 0 or not (own[k]["ts"] <= ts and end <= own[k]["ts"] + own[k]["dur"]):
            fail(f"span piece {sp}: not inside a slice of its task")
        if sp["args"].get("last"):
            span_closed[(names.get(key, "?").rsplit(" #", 1)[0], sp["name"])] += 1

    # the counter: one value per second, in order
    counter = [e for e in events if e.get("ph") == "C"]
    cts = [e["ts"] for e in counter]
    if cts != sorted(set(cts)):
        fail("the events-per-second counter is not in strictly increasing time order")
    if any(t % 1000000 for t in cts):
        fail("a counter value not at a whole second")

    per_name = defaultdict(lambda: [0, 0, 0])
    per_inst = defaultdict(lambda: [0, 0, 0])
    for s in slices:
        us = s["args"]["self_us"]
        for row in (per_name[s["name"]], per_inst[(s["pid"] - PID_EPOCH0, s["tid"])]):
            row[0] += 1
            row[1] += us
            row[2] = max(row[2], us)

    if "--past-us" in opts:
        last = max((s["ts"] + s["dur"] for s in slices), default=0)
        if last <= int(opts["--past-us"]):
            fail(f"the last slice ends at {last} us, not past {opts['--past-us']}")

    if len(pos) > 1:
        rep = json.load(open(pos[1]))
        tasks = {t["name"]: t for t in rep["tasks"]}
        by_name = not opts.get("--by-instance")
        all_n, all_total = sum(r[0] for r in per_name.values()), sum(r[1] for r in per_name.values())
        rep_n, rep_total = sum(t["count"] for t in tasks.values()), sum(t["total_us"] for t in tasks.values())
        if (all_n, all_total) != (rep_n, rep_total):
            fail(f"all slices: trace {all_n}/{all_total} us != report {rep_n}/{rep_total} us")
        for name, (n, total, mx) in (per_name.items() if by_name else ()):
            t = tasks.get(name)
            if t is None:
                fail(f"{name}: {n} slices in the trace, not in the report")
                continue
            if (n, total, mx) != (t["count"], t["total_us"], t["max_us"]):
                fail(f"{name}: trace count/total/max {n}/{total}/{mx} != report {t['count']}/{t['total_us']}/{t['max_us']}")
        for name, t in (tasks.items() if by_name else ()):
            if t["count"] and name not in per_name and t.get("kind") not in ("instance", "unnamed", "other"):
                fail(f"{name}: {t['count']} slices in the report, none in the trace")
        if not rep.get("folded_instances"):
            for r in rep["instances"]:
                got = per_inst.get((r["epoch"], r["id"]), [0, 0, 0])
                if (got[0], got[1]) != (r["count"], r["total_us"]):
                    fail(f"instance {r['epoch']}/{r['id']}: trace {got[0]}/{got[1]} != report {r['count']}/{r['total_us']}")
        for t in (tasks.values() if by_name else ()):
            late = t.get("late")
            got = late_name.get(t["name"], [0, 0, 0])
            want = [late["count"], late["total_us"], late["max_us"]] if late else [0, 0, 0]
            if t.get("kind") == "name" and got != want:
                fail(f"{t['name']}: waiting count/total/max {got} != report late {want}")
        if not rep.get("folded_instances"):
            for r in rep["instances"]:
                late = r.get("late")
                got = late_inst.get((r["epoch"], r["id"]), [0, 0, 0])
                want = [late["count"], late["total_us"], late["max_us"]] if late else [0, 0, 0]
                if got != want:
                    fail(f"instance {r['epoch']}/{r['id']}: waiting {got} != report late {want}")
        want_spans = {(t["name"], x["name"]): x["count"] for t in rep["tasks"] for x in t.get("spans", [])
                       if x["count"]}
        if by_name and dict(span_closed) != want_spans:
            fail(f"spans closed in the trace {dict(span_closed)} != the report's counts {want_spans}")
        stream = rep["stream"]
        counted = sum(e["args"]["events"] for e in counter)
        if counted != stream["events"]:
            fail(f"the counter adds up to {counted} events, the report says {stream['events']}")
        marks = defaultdict(int)
        for e in events:
            if e.get("ph") == "i" and e.get("s") == "g":
                marks[e["name"]] += e["args"]["count"]
        for mark, key in MARKS.items():
            if key is not None and marks.get(mark, 0) != stream[key]:
                fail(f"'{mark}' marks add up to {marks.get(mark, 0)}, the report's {key} is {stream[key]}")
        texts = sum(1 for e in events if e.get("ph") == "i" and e.get("s") == "t")
        if texts != stream["text_lines"]:
            fail(f"{texts} text lines in the trace, the report says {stream['text_lines']}")
        if doc.get("otherData", {}).get("slices") != len(slices):
            fail(f"otherData.slices {doc.get('otherData', {}).get('slices')} != {len(slices)} slices")

    if "--truth" in opts:
        tru = json.load(open(opts["--truth"]))
        for t in tru["tasks"]:
            n, total, mx = per_name.get(t["name"], [0, 0, 0])
            if (n, total, mx) != (t["count"], t["total_us"], t["max_us"]):
                fail(f"{t['name']}: trace count/total/max {n}/{total}/{mx} != truth {t['count']}/{t['total_us']}/{t['max_us']}")

    for p in problems:
        print(f"{trace_path}: {p}")
    if not problems:
        print(f"{trace_path}: {len(slices)} slices, {len(pieces)} span pieces and {len(waits)} waiting windows on "
              f"{len(tracks)} tracks, "
              f"{len(events)} events: consistent")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
