#!/usr/bin/env python3
"""What each engine of the MicroPython binding costs an asyncio application on a deterministic
board, against what the device says it costs (the header's overhead): MicroPython's qemu port on
QEMU's mps2-an385 (a Cortex-M3) under -icount, where virtual time counts instructions (8 ns each
with shift 3), so a run's time is the same on an idle or a loaded host (each figure is measured
twice and must agree: "deterministic" says whether it did).

Each run is one boot: the program comes through the raw REPL (aioprof's Python files and the native
module in a file system in RAM, so the repository's own versions run, not a frozen copy), 20 tasks
await asyncio.sleep_ms(0) N times each, timed by the board's CMSDK TIMER0 (25 MHz, read in place:
the port's ticks_us steps back now and then), with the engine enabled with enable()'s defaults
and its frames on the UART (QEMU's stdio, into a file that never blocks) or without the hook
(aioprof and the engine's module imported, not enabled) or, for the C engines, with its wrappers
forwarding alone (enabled, then the engine stopped). For each engine, runs of N and 3N switches per
task in each state, at a few paddings (names interned before the timed program: see SETUP):
  measured:    what the app pays, the extra virtual time per switch,
               ((on 3N - on N) - (off 3N - off N)) / (2N x tasks);
  work:        the same over the forwarding wrappers instead of no hook: the hook's own work;
  device says: aioprof-top's JSON of the runs' frames, the hook's time (its drain's time, plus the
               events times the cost per event it measured at enable()), 3N's less N's, per switch;
  header:      the header's overhead of the 3N run (aioprof-top's `overhead`), against the share
               of that run's time the hook took, (on 3N - off 3N) / on 3N;
  reference:   what the device's figure is judged by: the work (the C engines: the hooked run and
               the forwarding one share enable()'s heap, so the allocator's scan for asyncio's
               frame, which the padding and enable() move by thousands of instructions a switch,
               is the same in both; it leaves out the wrappers' own forwarding, docs/usage.md),
               else (python) the least hooked switch over the paddings less the least switch
               without the hook (that scan only adds).
Prints a line per padding, then per engine "engine E measured_ns M says_ns S error R spread_ns D
header H share F [work_ns W work_error R2] ref work|least ref_ns X ref_error R3 deterministic
yes|NO" (medians over the paddings; the first padding's runs are done twice, and must agree).
Exit 0 when the runs ran (the caller judges the figures), 1 when one failed, 77 when the
firmwares are not named (a sentence says which).

usage: qemu_overhead.py AIOPROF_TOP OUTDIR [ENGINE...]   (firmware, native, python; default all)
Environment: AIOPROF_MPY_QEMU_FIRMWARE (with the C module: the firmware engine),
AIOPROF_MPY_QEMU_STOCK_FIRMWARE (without: native and python), AIOPROF_MPY_QEMU_NATIVE (an armv7m
_aioprof_native.mpy), BENCH_QEMU_SWITCHES (N, default 100), BENCH_QEMU_TASKS (20),
BENCH_QEMU_SHIFT (-icount shift, default 3), BENCH_QEMU_PADS (the paddings, default "0 37 83")."""
import base64
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
PY_FILES = ("aioprof.py", "aioprof_fallback.py", "aioprof_frames.py", "aioprof_wrapper.py")
DEADLINE_S = 300  # per boot; a run takes a few seconds
sys.path.insert(0, os.path.join(REPO, "tests", "micropython"))
import qemu_session  # noqa: E402 (its file system in RAM)

TIMER_HZ = 25000000  # the MPS2's CMSDK timers count the 25 MHz peripheral clock

# Mounts a read-only file system in RAM with the given files, first on sys.path.
RAMFS = qemu_session.RAMFS_CLASSES + """\
_b = __import__("binascii").a2b_base64
vfs.mount(_RamFS({%s}), "/ram")
del _b
sys.path.insert(0, "/ram")
"""

# One run, in two programs: the first mounts the files, imports aioprof and the engine's module
# (with the hook and without, the same names are interned before the timed program) and interns
# `pad` names more; the second is timed. Why the padding: what ran before moves a switch's cost
# (the same no-hook run 92.8 or 123.1 us a switch), through the allocator (traced with
# tests/bench/qemu_trace.py, instructions per function per switch): at every switch asyncio calls
# IOQueue.wait_io_event, whose frame is too big for the C stack (fun_bc_call: more than 11 words)
# and is allocated on the heap and freed; gc_alloc's first-fit scan starts at the lowest free block
# and passes every hole smaller than the frame's five blocks, so a switch pays for the heap's
# fragmentation below its free tail: 519 instructions at padding 0 without the hook, 78 with the
# wrappers forwarding (enable()'s small allocations fill the holes: the wrappers look cheaper than
# none), 4,836 at padding 37 after the holes were filled by hand. Nothing else moved by more
# than 48 instructions (find_qstr: the padded names' pools); the map lookup cache did not move.
# Several paddings give the spread.
SETUP = """
import sys
sys.stdout.write("\\x00")
%(ramfs)s
import aioprof, %(module)s
for i in range(%(pad)d):
    exec("_qov_pad%%d = 0" %% i)
sys.stdout.write("\\x00qov: ready\\n\\x00")
"""

PROGRAM = """
import sys, asyncio, gc
from machine import mem32
T = 0x40000000  # TIMER0: CTRL +0, VALUE +4, RELOAD +8; counts down
mem32[T] = 0
mem32[T + 8] = 0xFFFFFFFF
mem32[T + 4] = 0xFFFFFFFF
mem32[T] = 1
async def spinner(n):
    for _ in range(n):
        await asyncio.sleep_ms(0)
async def main(n):
    await asyncio.gather(*[spinner(n) for _ in range(%(tasks)d)])
gc.collect()
if %(engine)r != "none":
    aioprof.enable(impl=%(engine)r)
    if %(forward)r:
        aioprof._state.eng.stop()  # its wrappers only forward: the hook's path without its work
t0 = mem32[T + 4]
asyncio.run(main(%(n)d))
t1 = mem32[T + 4]
if %(engine)r != "none":
    aioprof.disable()
sys.stdout.write("\\x00qov: ticks %%d free %%d\\n\\x00" %% ((t0 - t1) & 0xFFFFFFFF, gc.mem_free()))
"""


def ramfs(engine):
    files = [(name, os.path.join(REPO, "device", "micropython", name)) for name in PY_FILES]
    if engine != "python":
        files = files[:1]  # the other engines import aioprof.py alone
    if engine == "native":
        files.append(("_aioprof_native.mpy", os.environ["AIOPROF_MPY_QEMU_NATIVE"]))
    entries = []
    for name, path in files:
        with open(path, "rb") as f:
            entries.append("%r: memoryview(_b(%r))" % (name, base64.b64encode(f.read()).decode()))
    return RAMFS % ", ".join(entries)


def boot(firmware, capture, setup, program, shift):
    """Boots the firmware, runs program through the raw REPL, its UART into capture; the TIMER0
    ticks the program printed, or an exception saying why not."""
    with open(capture, "wb") as out:
        qemu = subprocess.Popen(["qemu-system-arm", "-M", "mps2-an385", "-display", "none", "-monitor", "none",
                                 "-no-reboot", "-semihosting", "-icount", "shift=%d" % shift, "-serial", "stdio",
                                 "-kernel", firmware], stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL)
    try:
        def wait(pattern):
            end = time.monotonic() + DEADLINE_S
            while time.monotonic() < end and qemu.poll() is None:
                with open(capture, "rb") as f:
                    m = re.search(pattern, f.read())
                if m:
                    return m
                time.sleep(0.02)
            raise RuntimeError("the board never printed %r (see %s)" % (pattern, capture))

        wait(rb">>> ")
        qemu.stdin.write(b"\r\x03\x03\x01")  # Ctrl-C twice, Ctrl-A: the raw REPL
        qemu.stdin.flush()
        wait(rb"raw REPL; CTRL-B to exit\r\n>")
        qemu.stdin.write(setup.encode() + b"\x04")
        qemu.stdin.flush()
        if wait(rb"qov: (ready)|Traceback[^\x04]*\x04").group(1) is None:
            raise RuntimeError("the setup failed on the board (see %s)" % capture)
        qemu.stdin.write(program.encode() + b"\x04")
        qemu.stdin.flush()
        m = wait(rb"qov: ticks (\d+)|Traceback[^\x04]*\x04")
        if m.group(1) is None:
            raise RuntimeError("the program failed on the board: %s" % m.group(0).decode(errors="replace"))
        return int(m.group(1))
    finally:
        qemu.kill()
        qemu.wait()


def hook_ns(top, capture):
    """What the device says its hook took in the run: (ns, the header's overhead, ns an event,
    drain us, events)."""
    out = subprocess.run([top, "-r", capture, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("aioprof-top could not read %s: %s" % (capture, out.stderr.strip()))
    j = json.loads(out.stdout)
    st, d = j["stream"], j["device"] or {}
    bad = {k: st[k] for k in ("lost_frames", "dropped_events", "malformed") if st.get(k)}
    if bad or d.get("event_cost_ns") is None:
        raise RuntimeError("the frames of %s are not clean or say no cost: %s" % (capture, bad))
    return (d["drain_us"] * 1000.0 + st["events"] * d["event_cost_ns"], d["overhead"], d["event_cost_ns"],
            d["drain_us"], st["events"])


MODULE = {"firmware": "_aioprof", "native": "_aioprof_native", "python": "aioprof_fallback"}


def measure(top, out, engine, firmware, n, tasks, shift, pad, tag):
    """{(state, switches): (TIMER0 ticks, hook_ns's figures for "on")} of the runs of n and 3n
    switches per task, with the hook ("on"), without ("off") and forwarding alone ("fwd")."""
    got = {}
    # the C engines' wrappers also forward alone (the engine stopped): "fwd"
    for state in ("off", "on", "fwd") if engine != "python" else ("off", "on"):
        for k in (n, 3 * n):
            cap = os.path.join(out, "%s-%s-%d-pad%d-%s.bin" % (engine, state, k, pad, tag))
            prog = PROGRAM % {"engine": "none" if state == "off" else engine, "forward": state == "fwd", "n": k,
                              "tasks": tasks}
            setup = SETUP % {"ramfs": ramfs(engine), "module": MODULE[engine], "pad": pad}
            ticks = boot(firmware, cap, setup, prog, shift)
            got[(state, k)] = (ticks, hook_ns(top, cap) if state == "on" else None)
    return got


def median(xs):
    xs = sorted(xs)
    k = len(xs)
    return xs[k // 2] if k % 2 else (xs[k // 2 - 1] + xs[k // 2]) / 2


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__.split("\n\n")[-1] + "\n")
        return 2
    top, out = sys.argv[1], sys.argv[2]
    engines = sys.argv[3:] or ["firmware", "native", "python"]
    fw = os.environ.get("AIOPROF_MPY_QEMU_FIRMWARE", "")
    stock = os.environ.get("AIOPROF_MPY_QEMU_STOCK_FIRMWARE", "")
    n = int(os.environ.get("BENCH_QEMU_SWITCHES", "100"))
    tasks = int(os.environ.get("BENCH_QEMU_TASKS", "20"))
    shift = int(os.environ.get("BENCH_QEMU_SHIFT", "3"))
    ns_per_tick = 1e9 / TIMER_HZ
    os.makedirs(out, exist_ok=True)
    ran = 0
    for e in engines:
        firmware = fw if e == "firmware" else stock
        if not firmware or (e == "native" and not os.environ.get("AIOPROF_MPY_QEMU_NATIVE")):
            print("qemu_overhead: %s skipped: set %s" % (e, "AIOPROF_MPY_QEMU_FIRMWARE" if e == "firmware" else
                  "AIOPROF_MPY_QEMU_STOCK_FIRMWARE" + (" and AIOPROF_MPY_QEMU_NATIVE" if e == "native" else "")))
            continue
        pads = [int(x) for x in os.environ.get("BENCH_QEMU_PADS", "0 37 83").split()]
        try:
            runs = [measure(top, out, e, firmware, n, tasks, shift, p, "1") for p in pads]
            again = measure(top, out, e, firmware, n, tasks, shift, pads[0], "2")
        except (RuntimeError, OSError) as why:
            print("qemu_overhead: %s failed: %s" % (e, why))
            return 1
        ran += 1
        # QEMU's timers tick on virtual time, but a run's start is not on the same instruction
        # every time (the raw REPL's input arrives when the host sends it), and the python
        # engine's work follows the clock's values (its period's end, its varints' lengths): the
        # repeated runs' extra time must agree within 5 % (the python engine's took 2.3 ms more in
        # one run than in its repeat: 3.2 % of its extra), what the device says within 1 %
        def extra(r):
            return (r[("on", 3 * n)][0] - r[("on", n)][0]) - (r[("off", 3 * n)][0] - r[("off", n)][0])

        a = runs[0]
        same = abs(extra(a) - extra(again)) <= abs(extra(a)) * 0.05 and \
            abs(a[("on", 3 * n)][1][0] - again[("on", 3 * n)][1][0]) <= a[("on", 3 * n)][1][0] * 0.01
        switches = 2 * n * tasks
        rows = []
        for p, r in zip(pads, runs):
            t = {k: v[0] * ns_per_tick for k, v in r.items()}

            def per_switch(state):
                return (t[(state, 3 * n)] - t[(state, n)]) / switches

            row = {"base": per_switch("off"), "measured": per_switch("on") - per_switch("off"),
                   "says": (r[("on", 3 * n)][1][0] - r[("on", n)][1][0]) / switches,
                   "header": r[("on", 3 * n)][1][1] or 0.0,
                   "share": (t[("on", 3 * n)] - t[("off", 3 * n)]) / t[("on", 3 * n)]}
            if ("fwd", n) in r:
                row["work"] = per_switch("on") - per_switch("fwd")
            _, _, cost, drain, events = r[("on", 3 * n)][1]
            print("qemu_overhead: %s, %d names padded: a switch %.0f ns without the hook, %.0f ns more with it%s; "
                  "the device says %.0f ns (%d events at %.1f ns, enable()'s measure, drain %d us in the %d-switch "
                  "run); header %.4f, share %.4f" % (
                      e, p, row["base"], row["measured"],
                      " (%.0f ns more than its wrappers forwarding alone)" % row["work"] if "work" in row else "",
                      row["says"], events, cost, drain, 3 * n, row["header"], row["share"]))
            rows.append(row)

        def med(key):
            return median([r[key] for r in rows])

        def rel(says, m):
            return says / m - 1 if m > 0 else float("nan")

        line = "engine %s measured_ns %.1f says_ns %.1f error %+.3f spread_ns %.1f header %.4f share %.4f" % (
            e, med("measured"), med("says"), rel(med("says"), med("measured")),
            max(r["measured"] for r in rows) - min(r["measured"] for r in rows), med("header"), med("share"))
        if "work" in rows[0]:
            line += " work_ns %.1f work_error %+.3f" % (med("work"), rel(med("says"), med("work")))
        # the figure the device's is judged by (REFERENCE above): the hook's work where there is a
        # forwarding state, else the least hooked switch over the least bare one (the allocator's
        # scan only ever adds)
        if "work" in rows[0]:
            kind, ref = "work", med("work")
        else:
            kind, ref = "least", min(r["base"] + r["measured"] for r in rows) - min(r["base"] for r in rows)
        line += " ref %s ref_ns %.1f ref_error %+.3f" % (kind, ref, rel(med("says"), ref))
        print(line + " deterministic " + ("yes" if same else "NO"))
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main())
