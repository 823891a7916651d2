#!/usr/bin/env python3
"""Where a task switch's instructions go on the deterministic board, function by function: the
runs of tests/bench/qemu_overhead.py (its programs, its file system in RAM), each booted once
under QEMU's -d in_asm,exec,nochain (without -icount: under it a block may stop part-way and the
counts by block are wrong), the blocks executed between two calls of gc.isenabled() around the
timed run counted by the firmware's symbols, times each block's instructions. Prints, per
function, the instructions per switch of state A and of state B, ((3N) - (N)) / (2N x tasks), and
B less A, largest first: what makes B's switch dearer or cheaper than A's.

usage: qemu_trace.py ENGINE STATE_A STATE_B [PAD_A [PAD_B]]   (states: off, on, fwd; pads: 0)
Environment: as qemu_overhead.py's; BENCH_QEMU_SWITCHES (N, default 10: a run's log is about a
gigabyte), BENCH_QEMU_TASKS (20), BENCH_QEMU_TRACE_DIR (the logs, default /tmp), and
BENCH_QEMU_TRACE_TOP (the rows, 25). The python engine's setup alone logs more than the boot's
deadline allows: the C engines only. Exit 0, 1 when a run failed, 2 on bad usage."""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu_overhead as q  # noqa: E402

BLOCK = re.compile(r"Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/[0-9a-f]+\] (\S*)")
INSN = re.compile(r"0x([0-9a-f]{8}):  ")


def count(log):
    """{function: instructions} executed between the first two gc_isenabled blocks of the log."""
    size, execs, start, marks = {}, collections.Counter(), None, 0
    with open(log, errors="replace") as f:
        for line in f:
            m = INSN.match(line)
            if m:
                if start is None:
                    start = int(m.group(1), 16)
                    size[start] = 0
                size[start] += 1
                continue
            start = None  # an IN: header or a block's execution ends a translation's listing
            m = BLOCK.match(line)
            if m:
                marks += m.group(2) == "gc_isenabled"
                if marks == 1:
                    execs[(int(m.group(1), 16), m.group(2))] += 1
    if marks < 2:
        raise RuntimeError("the timed run's marks are not in %s" % log)
    fn = collections.Counter()
    for (pc, name), k in execs.items():
        fn[name or hex(pc)] += k * size.get(pc, 1)
    return fn


def run(engine, state, n, tasks, pad, logdir):
    log = os.path.join(logdir, "qemu_trace-%s-%s-%d-%d.log" % (engine, state, n, pad))
    popen = subprocess.Popen

    def traced(cmd, **kw):
        i = cmd.index("-icount")
        return popen(cmd[:i] + cmd[i + 2:] + ["-d", "in_asm,exec,nochain", "-D", log], **kw)

    mark = "gc.isenabled()\n"
    prog = q.PROGRAM.replace("t0 = mem32[T + 4]", mark + "t0 = mem32[T + 4]").replace(
        "t1 = mem32[T + 4]", "t1 = mem32[T + 4]\n" + mark) % {
        "engine": "none" if state == "off" else engine, "forward": state == "fwd", "n": n, "tasks": tasks}
    setup = q.SETUP % {"ramfs": q.ramfs(engine), "module": q.MODULE[engine], "pad": pad}
    fw = os.environ["AIOPROF_MPY_QEMU_FIRMWARE" if engine == "firmware" else "AIOPROF_MPY_QEMU_STOCK_FIRMWARE"]
    q.subprocess.Popen = traced
    try:
        q.boot(fw, log + ".bin", setup, prog, 0)
        return count(log)
    finally:
        q.subprocess.Popen = popen
        for p in (log, log + ".bin"):
            if os.path.exists(p):
                os.unlink(p)


def main():
    a = sys.argv[1:]
    if len(a) < 3 or a[0] not in q.MODULE or a[1] not in ("off", "on", "fwd") or a[2] not in ("off", "on", "fwd"):
        sys.stderr.write(__doc__.split("\n\n")[-1] + "\n")
        return 2
    engine, sa, sb = a[:3]
    pa = int(a[3]) if len(a) > 3 else 0
    pb = int(a[4]) if len(a) > 4 else pa
    n = int(os.environ.get("BENCH_QEMU_SWITCHES", "10"))
    tasks = int(os.environ.get("BENCH_QEMU_TASKS", "20"))
    logdir = os.environ.get("BENCH_QEMU_TRACE_DIR", "/tmp")
    switches = 2.0 * n * tasks
    try:
        per = []
        for state, pad in ((sa, pa), (sb, pb)):
            one, three = run(engine, state, n, tasks, pad, logdir), run(engine, state, 3 * n, tasks, pad, logdir)
            per.append({k: (three[k] - one[k]) / switches for k in set(one) | set(three)})
    except (RuntimeError, OSError, KeyError) as why:
        print("qemu_trace: %s" % why)
        return 1
    A, B = per
    keys = set(A) | set(B)
    print("qemu_trace: %s, instructions a switch: %s pad %d %.1f, %s pad %d %.1f, %+.1f" % (
        engine, sa, pa, sum(A.values()), sb, pb, sum(B.values()), sum(B.values()) - sum(A.values())))
    top = int(os.environ.get("BENCH_QEMU_TRACE_TOP", "25"))
    for k in sorted(keys, key=lambda k: -abs(B.get(k, 0) - A.get(k, 0)))[:top]:
        print("%10.1f %10.1f %+10.1f  %s" % (A.get(k, 0), B.get(k, 0), B.get(k, 0) - A.get(k, 0), k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
