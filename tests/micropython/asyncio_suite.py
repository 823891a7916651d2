#!/usr/bin/env python3
"""MicroPython's own asyncio tests (tests/extmod/asyncio_*.py of the source tree a firmware was
built from), through MicroPython's own test runner (tests/run-tests.py), without the hook and
with it: every test that passes without the hook must pass with it, with the same output.

How the hook is put on: each test is copied, with its .exp file, into OUT/ENGINE/tests/extmod/, and one
line is put before its first line. Under MicroPython that line enables aioprof with the engine
asked for and sends the frames away from the test's output, which run-tests.py compares; under
CPython (which run-tests.py runs to get the expected output of a test without an .exp file) it
does nothing. The test itself is unchanged: its line numbers move by one, and no asyncio test
prints one. Nothing calls disable(): the end of the program (sys.atexit on the unix port) or the
next test's soft reset (a board) ends each run, which is how a user's program ends too.
  unix:  the frames go to a file per test; aioprof-top must read each one clean (no damage, no
         drop, a HELLO), so the hook did not only stay out of the way but also worked.
  qemu:  the frames go to the board's second UART (CMSDK UART1, written through machine.mem32),
         which QEMU writes to a file; aioprof-top must read it clean, one device start per test.

usage: asyncio_suite.py --src MICROPYTHON_SOURCE --top AIOPROF_TOP --out DIR
           (--micropython UNIX_BINARY [--native-dir DIR] | --qemu-firmware FIRMWARE [--native-mpy MPY])
           ENGINE...
  ENGINE  firmware, native or python: the tests run once without the hook, then with each engine
Exits 0 when every test that passes without the hook passes with each engine and the frames read
clean."""
import argparse
import base64
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
UART1 = 0x40005000  # mps2-an385: DATA +0, STATE +4 (bit 0: TX full), CTRL +8 (bit 0: TX on), BAUDDIV +16

# The hook's code for the qemu board: the frames go out on UART1, byte by byte.
QEMU_SINK = """
from machine import mem32
mem32[%(uart)d + 16] = 16
mem32[%(uart)d + 8] = 1
def _aioprof_sink(data):
    for b in data:
        while mem32[%(uart)d + 4] & 1:
            pass
        mem32[%(uart)d] = b
"""


# A board with one UART (QEMU's virt RISC-V machine): the frames are made and thrown away, so the
# tests show the hook stays out of the way, not what it sent.
QEMU_DISCARD = """
def _aioprof_sink(data):
    return len(data)
"""


def ram_native(mpy_path):
    """Code that mounts a file system in RAM holding the native module (the board has none)."""
    sys.path.insert(0, HERE)
    import qemu_session

    with open(mpy_path, "rb") as f:
        return qemu_session.RAMFS % base64.b64encode(f.read()).decode()


def hook_line(args, test_name):
    """The line put before the test's first: one line, so that the test's lines move by one."""
    if args.micropython:
        code = "import aioprof\naioprof.enable(impl=%r, write=open(%r, 'wb').write)\n" % (
            args.engine, os.path.join(args.out, "frames", test_name + ".bin"))
    else:
        code = "import sys\n" + (QEMU_SINK % {"uart": UART1} if args.frames == "uart1" else QEMU_DISCARD)
        if args.engine == "native":
            code += ram_native(args.native_mpy)
        # the test's name first, as text between NULs: it tells the tests apart in the frames
        code += "_aioprof_sink(b'\\x00suite: %s\\n\\x00')\n" % test_name
        code += "import aioprof\naioprof.enable(impl=%r, write=_aioprof_sink)\n" % args.engine
    return 'if __import__("sys").implementation.name == "micropython": exec(%r)\n' % code


def prepare(args, tests):
    """The hooked copies, with their .exp files."""
    dest = os.path.join(args.out, "tests", "extmod")
    os.makedirs(dest)
    os.makedirs(os.path.join(args.out, "frames"))
    copies = []
    for test in tests:
        name = os.path.basename(test)
        with open(test) as f:
            text = f.read()
        with open(os.path.join(dest, name), "w") as f:
            f.write(hook_line(args, name[:-3]) + text)
        for exp in glob.glob(test + "*.exp"):
            shutil.copy(exp, dest)
        copies.append(os.path.join(dest, name))
    return copies


def python_with_serial():
    """A Python that can run run-tests.py against a board: it needs pyserial (Debian:
    python3-serial), which the first python3 on PATH may lack (a pyenv one, say)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if subprocess.call([python, "-c", "import serial"], stderr=subprocess.DEVNULL) == 0:
            return python
    return None


def run_tests(args, files, result_dir, frames_file=None):
    """MicroPython's run-tests.py on files; returns {test basename: (result, reason)}."""
    tests_dir = os.path.join(args.src, "tests")
    cmd = [args.python, "run-tests.py", "-j", "1", "--result-dir", result_dir]
    env = dict(os.environ)
    if args.micropython:
        env["MICROPY_MICROPYTHON"] = args.micropython
        env["MICROPYPATH"] = os.pathsep.join(
            [os.path.join(REPO, "device", "micropython"), args.native_dir or HERE, ".frozen"])
        cmd.append("--keep-path")
    else:
        serials = "-serial pty"
        if frames_file:
            serials += " -serial file:" + frames_file
        if args.frames != "uart1":
            serials = "-serial pty"
        cmd += ["-t", "execpty:%s -M %s -nographic -monitor none -semihosting %s %s -kernel %s" % (
            args.qemu_system, args.qemu_machine, args.qemu_args, serials, args.qemu_firmware)]
    env["MICROPY_CPYTHON3"] = env.get("MICROPY_CPYTHON3", sys.executable)
    rc = subprocess.call(cmd + files, cwd=tests_dir, env=env)
    with open(os.path.join(result_dir, "_results.json")) as f:
        results = json.load(f)["results"]
    print("run-tests.py exited with %d" % rc)
    return {os.path.basename(t): (r, reason) for t, r, reason in results}


def check_frames(args, path, what):
    """aioprof-top reads the frames clean; returns the problems and its report."""
    out = subprocess.run([args.top, "-r", path, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        return ["%s: aioprof-top could not read the frames: %s" % (what, out.stderr.strip())], None
    report = json.loads(out.stdout)
    problems = []
    st = report["stream"]
    for key in ("crc_errors", "lost_frames", "dropped_events", "malformed", "unsupported"):
        if st.get(key, 0):
            problems.append("%s: stream.%s = %s" % (what, key, st[key]))
    if report["device"] is None:
        problems.append("%s: no HELLO in the frames" % what)
    return problems, report


def hello_flags(wire, body):
    # docs/protocol.md: version, tick_hz (varints), tick_bits (a byte), ring_bytes (a varint), flags
    _, i = wire.varint(body, 0)
    _, i = wire.varint(body, i)
    _, i = wire.varint(body, i + 1)
    return body[i]


def check_per_test(path, passed):
    """The board's frames cut at each test's name: every test that passed sent its name, and one
    whose frames hold a task's record also sent a HELLO that marks a start before it (each test
    starts the hook again after a soft reset). A test with no task sends nothing: with no
    disable(), the HELLO waits for the first event."""
    sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
    import wire

    with open(path, "rb") as f:
        data = f.read()
    tests, current = {}, None
    for seg in data.split(b"\x00"):
        if seg.startswith(b"suite: "):
            current = tests.setdefault(seg[7:].strip().decode() + ".py", [])
            continue
        body = wire.frame_body(seg) if seg else None
        if body is not None and current is not None:
            current.append([(tag, payload) for tag, _, _, _, _, payload in wire.records(body)])
    problems = []
    for t in passed:
        frames = tests.get(t)
        if frames is None:
            problems.append("%s: its name never came out of UART1" % t)
            continue
        records = [r for f in frames for r in f]
        if records and not (records[0][0] == 0x70 and hello_flags(wire, records[0][1]) & 1):
            problems.append("%s: its first record is not a HELLO that marks a start" % t)
    return problems


def with_engine(args, tests, passed):
    """The hooked run of one engine; returns the problems."""
    print("== with the %s engine" % args.engine)
    out = args.out
    args.out = os.path.join(out, args.engine)
    os.makedirs(args.out)
    frames_file = None if args.micropython else os.path.join(args.out, "frames", "uart1.bin")
    hooked = run_tests(args, prepare(args, tests), os.path.join(args.out, "results"), frames_file)
    problems = []
    for t in passed:
        r, reason = hooked.get(t, ("missing", ""))
        if r != "pass":
            problems.append("%s: passes without the hook, %s with the %s engine %s" % (t, r, args.engine, reason))
    if args.micropython:
        for t in passed:
            path = os.path.join(args.out, "frames", t[:-3] + ".bin")
            if not os.path.exists(path):
                problems.append("%s: no frames written" % t)
                continue
            problems += check_frames(args, path, t)[0]
    elif args.frames == "uart1":
        problems += check_frames(args, frames_file, "UART1")[0]
        problems += check_per_test(frames_file, passed)
    else:
        print("asyncio_suite: the board has no second UART: its frames were not read")
    for problem in problems:
        print("FAIL " + problem)
    print("asyncio_suite: %s engine: %s: %d of %d tests pass as without the hook" % (
        args.engine, "FAIL" if problems else "ok",
        sum(1 for t in passed if hooked.get(t, ("",))[0] == "pass"), len(passed)))
    args.out = out
    return problems


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--src", required=True)
    p.add_argument("--top", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--micropython")
    p.add_argument("--native-dir")
    p.add_argument("--qemu-firmware")
    p.add_argument("--native-mpy")
    # another qemu board: its QEMU, machine and options, and where the frames go (uart1: the
    # MPS2 boards' second UART, read back; none: made and thrown away)
    p.add_argument("--qemu-system", default="qemu-system-arm")
    p.add_argument("--qemu-machine", default="mps2-an385")
    p.add_argument("--qemu-args", default="")
    p.add_argument("--frames", choices=("uart1", "none"), default="uart1")
    p.add_argument("engines", nargs="+", choices=("firmware", "native", "python"))
    args = p.parse_args()
    args.out = os.path.abspath(args.out)
    if bool(args.micropython) == bool(args.qemu_firmware):
        p.error("give --micropython or --qemu-firmware")
    args.python = sys.executable if args.micropython else python_with_serial()
    if args.python is None:
        print("asyncio_suite: run-tests.py needs pyserial to reach a board (apt-get install python3-serial)")
        return 1
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    tests = sorted(glob.glob(os.path.join(args.src, "tests", "extmod", "asyncio_*.py")))
    if not tests:
        print("asyncio_suite: no tests/extmod/asyncio_*.py in %s" % args.src)
        return 1

    print("== without the hook")
    base = run_tests(args, tests, os.path.join(args.out, "baseline"))
    passed = [t for t, (r, _) in sorted(base.items()) if r == "pass"]
    others = ["%s %s" % (t, r) for t, (r, _) in sorted(base.items()) if r != "pass"]
    print("without the hook: %d tests pass; the others: %s" % (len(passed), ", ".join(others) or "none"))
    problems = []
    for engine in args.engines:
        args.engine = engine
        problems += with_engine(args, tests, passed)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
