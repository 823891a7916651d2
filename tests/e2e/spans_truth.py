# The spans of a capture, read from its bytes by the rules of docs/protocol.md ("Spans") and
# docs/usage.md ("Spans"), against the simulator's truth: every span of every task instance,
# count, own, inclusive, wall, max and unwound, exactly. What the wire carries is the truth, so a
# reader that follows the rules (the host's statistics) can match it.
#
# usage: python3 spans_truth.py CAPTURE TRUTH.json     exit 1 on any difference
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wire import frame_body, records, span_events, varint  # noqa: E402

OP_SPAN_ENTER, OP_SPAN_EXIT, OP_SPAN_NAME = 5, 6, 8


def figures(data):
    names, spans = {}, {}
    own_total = {}        # task id -> its own time so far
    running = []          # ids, innermost last
    open_spans = {}       # task id -> [[span id, opened, own_total at open, children's inclusive]]
    state = {"mark": 0, "bits": None, "end": None}

    def credit(now):
        if running:
            own_total[running[-1]] = own_total.get(running[-1], 0) + now - state["mark"]
        state["mark"] = now

    def close(task, now, unwound):
        sid, opened, at_open, children = open_spans[task].pop()
        inclusive = own_total.get(task, 0) - at_open
        f = spans.setdefault((task, names.get(sid, "#%d" % sid)),
                             {"count": 0, "own_us": 0, "inclusive_us": 0, "wall_us": 0, "max_us": 0, "unwound": 0})
        f["count"] += 1
        f["own_us"] += inclusive - children
        f["inclusive_us"] += inclusive
        f["wall_us"] += now - opened
        f["max_us"] = max(f["max_us"], inclusive)
        f["unwound"] += unwound
        if open_spans[task]:
            open_spans[task][-1][3] += inclusive

    for seg in data.split(b"\0"):
        body = frame_body(seg) if seg else None
        if body is None:
            continue
        bits = (body[1] & 0x1F) + 1
        base = int.from_bytes(body[2:6], "little")
        if state["end"] is None:
            t = base
        else:
            t = state["end"] + ((base - state["end"]) % (1 << bits))
        last_event = t

        def span(sdt, sid):
            # a span event of the running task: sdt after the frame's last event; sid None: an exit
            if not running:
                return
            now = last_event + sdt
            credit(now)
            task = running[-1]
            if sid is not None:
                open_spans.setdefault(task, []).append([sid, now, own_total.get(task, 0), 0])
            elif open_spans.get(task):
                close(task, now, 0)

        # the frame's span list (op 9): each event before the record at its place
        listed = span_events(body)
        for tag, start, _, dt, task, payload in records(body):
            while listed and listed[0][0] == start:
                span(listed[0][1], listed[0][2])
                listed.pop(0)
            if dt is not None:
                now = last_event = last_event + dt
                credit(now)
                if tag >= 0x80:
                    running.append(task)
                else:
                    ended = running.pop()
                    if tag >= 0x40:
                        while open_spans.get(ended):
                            close(ended, now, 1)
                continue
            op = tag & 0x0F
            if op == OP_SPAN_NAME:
                sid, i = varint(payload, 0)
                names[sid] = payload[i:].decode()
            elif op in (OP_SPAN_ENTER, OP_SPAN_EXIT):
                sdt, i = varint(payload, 0)
                span(sdt, varint(payload, i)[0] if op == OP_SPAN_ENTER else None)
        state["end"] = last_event
    return spans


def main():
    data = open(sys.argv[1], "rb").read()
    truth = json.load(open(sys.argv[2]))
    got = figures(data)
    want = {(e["instance"], e["span"]): {k: e[k] for k in ("count", "own_us", "inclusive_us", "wall_us", "max_us",
                                                           "unwound")} for e in truth.get("spans", [])
            if e["count"]}  # (a span still open when the run stopped has nothing to compare yet)
    bad = 0
    for key in sorted(set(got) | set(want)):
        if got.get(key) != want.get(key):
            print("spans_truth: task #%d span %s: the wire says %s, the truth %s" % (key[0], key[1], got.get(key),
                                                                                      want.get(key)))
            bad += 1
    print("spans_truth: %d spans (task instance and name), %d differ" % (len(want), bad))
    return 1 if bad or not want else 0


if __name__ == "__main__":
    sys.exit(main())
