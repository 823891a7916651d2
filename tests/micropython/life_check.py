#!/usr/bin/env python3
# Checks one run of a life.py scenario: what the program wrote on stdout (frames and text) and
# stderr, against what the scenario guarantees. The frames are taken apart with tests/e2e/wire.py
# (written from docs/protocol.md, independent of the C reader) and read by aioprof-top; counts
# are compared with what the program measured itself (check_report.py).
#
# usage: life_check.py SCENARIO AIOPROF_TOP STDOUT STDERR BASELINE_STDOUT BASELINE_STDERR [TICK_US]
#   BASELINE_*: the same scenario's output without the hook (engine "none")
#   TICK_US:    the resolution of the VM's ticks_us (1000 in the WebAssembly port)
# Prints what it checked; exits 0 when the run is right, 1 otherwise.
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "e2e"))
import wire  # noqa: E402

OP_HELLO, OP_TASK_NEW, OP_TASK_INFO, OP_DROPPED = 0, 1, 2, 3


def walk(data):
    """The stream as the device wrote it: frames (seq, records) and text, in order."""
    frames, text = [], bytearray()
    for seg in data.split(b"\x00"):
        if not seg:
            continue
        body = wire.frame_body(seg)
        if body is None:
            text += seg
            continue
        recs = []
        for tag, start, end, dt, task, payload in wire.records(body):
            recs.append((tag, dt, task, payload))
        frames.append((body[0], recs))
    return frames, bytes(text)


def task_body(payload):
    tid, i = wire.varint(payload, 0)
    parent, i = wire.varint(payload, i)
    n, i = wire.varint(payload, i)
    return tid, payload[i:i + n], payload[i + n:]


def summary(frames):
    """HELLOs (flags), tasks {id: (name, label)} from TASK_NEW/TASK_INFO, ENTER count per id,
    DROPPED total, the HELLOs' event costs."""
    hellos, tasks, enters, dropped, costs = [], {}, {}, 0, []
    for seq, recs in frames:
        for tag, dt, task, payload in recs:
            if payload is not None:
                op = tag & 0x0F
                if op == OP_HELLO:
                    h = wire.hello(payload)
                    hellos.append(h["flags"])
                    costs.append(h["event_cost"])
                elif op in (OP_TASK_NEW, OP_TASK_INFO):
                    tid, name, label = task_body(payload)
                    tasks[tid] = (name, label)
                elif op == OP_DROPPED:
                    dropped += wire.varint(payload, 0)[0]
            elif task is not None:
                enters[task] = enters.get(task, 0) + 1
    return hellos, tasks, enters, dropped, costs


class Check:
    def __init__(self):
        self.failures = []

    def ok(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            self.failures.append(what)


def host_report(top, stdout_path, tick_us, baseline, slice_us, c):
    """aioprof-top reads the run as a capture; check_report.py compares its figures with the
    truth lines the program printed."""
    base = stdout_path[: -len(".out")] if stdout_path.endswith(".out") else stdout_path
    json_path, device_path = base + ".json", base + ".device"
    with open(json_path, "w") as j, open(device_path, "w") as d:
        rc = subprocess.call([top, "-r", stdout_path, "--json"], stdout=j, stderr=d)
    c.ok(rc == 0, "aioprof-top reads the run (exit %d)" % rc)
    if rc != 0:
        return
    rc = subprocess.call([sys.executable, os.path.join(here, "check_report.py"), json_path, device_path,
                          baseline, str(slice_us), str(tick_us)])
    c.ok(rc == 0, "aioprof-top's figures equal what the program measured (check_report.py)")


def ends_with_stop(top, out_path, frames, c):
    """The program ended (disable(), sys.atexit, or its main task's end): the last record sent is
    the HELLO that says the hook stopped, and aioprof-top does not say the input ended before it.
    (A LATE record ends a frame in which an ENTER was late: it lists the lateness of the frame's
    ENTERs, so it is not a record after the HELLO.)"""
    recs = [r for r in frames[-1][1] if r[3] is None or r[0] & 0x0F != wire.OP_LATE] if frames else []
    last = recs[-1] if recs else None
    stop = last is not None and last[3] is not None and last[0] & 0x0F == OP_HELLO and wire.hello(last[3])["flags"] & 2
    c.ok(bool(stop), "the last record is the HELLO that says the hook stopped")
    p = subprocess.run([top, "-r", out_path, "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ended = json.loads(p.stdout)["stream"]["ended_before_stop"] if p.returncode == 0 else None
    c.ok(ended is False, "aioprof-top does not say the input ended before the stop (%s)" % ended)


def no_repeats(frames, c):
    # every frame once, in order: a write that took everything and said nothing (None) must not
    # get the same bytes again
    seqs = [seq for seq, _ in frames]
    steps = [(b - a) % 256 for a, b in zip(seqs, seqs[1:])]
    c.ok(bool(frames) and all(s == 1 for s in steps),
         "%d frames, sequence numbers consecutive, none repeated" % len(frames))


def normalise_traceback(text):
    # object addresses differ between runs
    return re.sub(r"at [0-9a-fx]+", "at ADDR", text)


def main():
    scenario, top, out_path, err_path, base_out, base_err = sys.argv[1:7]
    tick_us = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    out = open(out_path, "rb").read()
    err = open(err_path, "rb").read().decode("utf-8", "replace")
    frames, text = walk(out)
    hellos, tasks, enters, dropped, costs = summary(frames)
    names = {tid: name for tid, (name, label) in tasks.items()}
    c = Check()
    c.ok(all("aioprof.py" not in line for line in err.splitlines()) or scenario == "traceback",
         "nothing from aioprof on stderr")
    ends_with_stop(top, out_path, frames, c)
    if tick_us == 1:
        # what an event costs, timed at enable() (a millisecond clock can not time it)
        c.ok(bool(costs) and all(cost for cost in costs), "every HELLO says what an event costs: %s" % costs)
    if scenario in ("write_none", "write_partial"):
        no_repeats(frames, c)
        main_ids = [tid for tid, n in names.items() if n == b"counted"]
        c.ok(len(main_ids) == 1, "one instance of counted (%d)" % len(main_ids))
        host_report(top, out_path, tick_us, base_out, 200, c)
    elif scenario in ("burst", "end_return", "end_exit"):
        c.ok(dropped == 0, "no event dropped (%d)" % dropped)
        host_report(top, out_path, tick_us, base_out, 600, c)
    elif scenario == "run_twice":
        c.ok(hellos == [1, 2, 0, 2], "HELLOs: a start, a stop, a reopening, a stop: %s" % hellos)
        host_report(top, out_path, tick_us, base_out, 600, c)
    elif scenario == "empty":
        c.ok(len(hellos) >= 1 and hellos[0] & 1, "a HELLO that marks the start (%d HELLO)" % len(hellos))
    elif scenario == "label":
        want = ("\u00e9" * 21).encode()
        short = [label for name, label in tasks.values() if name == b"short"]
        c.ok(b"life: label ok" in text, "label() before enable() and after disable() raised nothing")
        c.ok(want in short, "the label is cut at a character boundary: %r" % short)
        c.ok(all(b"too" not in label for label in short), "no label from outside the profiled time")
    elif scenario == "traceback":
        lines = [line for line in err.splitlines() if "aioprof.py" in line]
        c.ok(not lines, "no aioprof frame in the tracebacks %s" % lines)
        want = normalise_traceback(open(base_err, encoding="utf-8", errors="replace").read())
        same = normalise_traceback(err) == want
        c.ok(same, "stderr as without the hook" + ("" if same else ":\n%s\nwithout the hook:\n%s" % (err, want)))
    elif scenario == "reimport":
        starts = sum(1 for flags in hellos if flags & 1)
        c.ok(b"life: reimport ok" in text, "enable() after aioprof was imported again")
        c.ok(starts == 2, "two starts (HELLOs that mark one): %d" % starts)
        c.ok({b"first", b"second"} <= set(names.values()), "both runs' tasks: %s" % sorted(set(names.values())))
    else:
        c.ok(False, "unknown scenario " + scenario)
    sys.exit(1 if c.failures else 0)


main()
