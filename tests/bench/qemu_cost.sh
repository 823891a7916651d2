#!/usr/bin/env bash
# The device hook's cost on Thumb: instructions per event and code size, on QEMU's mps2-an385
# (Cortex-M3) under -icount shift=0, where one instruction is one nanosecond of virtual time and
# the board's 25 MHz timer ticks once per 40 instructions. The firmware (device/ports/mps2-an385/
# bench.c) times itself; see there for the method (N and 2N slices, minus a loop without the hook).
# The runs are deterministic: each is done twice and must give the same figures.
#
# Usage: tests/bench/qemu_cost.sh [FIRMWARE_BUILD_DIR]      (OPT=-O2 for the other build)
# Prints figures; fails only when something does not build or run, never on a figure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
QEMU_SKIP_STATUS=0 # a benchmark says what it skipped and goes on
source "$here/../e2e/qemu_common.bash"
[ $# -ge 1 ] && QEMU_FW=$1
OPT=${OPT:--Os}
qemu_need_tools qemu_cost
mkdir -p "$QEMU_FW"
flock "$QEMU_FW/.lock" make -s -C "$QEMU_SRC/device/ports/mps2-an385" BUILD="$QEMU_FW" OPT="$OPT" >"$QEMU_TMP/make.log" 2>&1 ||
    { cat "$QEMU_TMP/make.log" >&2; qemu_fail "the mps2-an385 firmware does not build"; }

# bench.elf calls the port through its structure; bench_bound.elf has it bound at compile time
for elf in bench bench_bound; do
    for run in 1 2; do
        # shellcheck disable=SC2046
        timeout 60 $(qemu_cmd) -icount shift=0 -serial file:"$QEMU_TMP/$elf$run.bin" \
            -kernel "$QEMU_FW/$elf.elf" || qemu_fail "$elf.elf exited with $? under QEMU"
    done
done
deterministic=yes
for elf in bench bench_bound; do
    cmp -s "$QEMU_TMP/${elf}1.bin" "$QEMU_TMP/${elf}2.bin" || deterministic=NO
done
for elf in bench bench_bound; do
    if [ -x "$QEMU_TOP" ]; then
        # the bench's stream must be clean for its figures to mean anything
        "$QEMU_TOP" -r "$QEMU_TMP/${elf}1.bin" --json >"$QEMU_TMP/$elf.json" 2>"$QEMU_TMP/$elf.err" ||
            qemu_fail "aioprof-top could not read the stream of $elf.elf"
    else
        echo "(no aioprof-top at $QEMU_TOP: the bench's stream is not checked)"
        : >"$QEMU_TMP/$elf.json"
    fi
done

python3 - "$QEMU_TMP/bench1.bin" "$QEMU_TMP/bench.json" "$QEMU_FW" "$OPT" "$deterministic" \
    "$QEMU_TMP/bench_bound1.bin" "$QEMU_TMP/bench_bound.json" <<'PY'
import json, os, re, sys

capture, report, fw, opt, deterministic, capture_bound, report_bound = sys.argv[1:8]
INSTR_PER_TICK = 40  # -icount shift=0: 1 ns per instruction; the timer runs at 25 MHz
GOAL = 100

def bench_rows(capture):
    """The device text lines that start with "bench", as dicts of their fields."""
    lines = [seg.decode("ascii", "replace").strip() for seg in open(capture, "rb").read().split(b"\0")
             if seg.startswith(b"bench ")]
    return [dict(re.findall(r"(\w+)=(\S+)", l)) for l in lines]


def stream_of(report):
    if os.path.getsize(report) == 0:
        return "not checked"
    s = json.load(open(report))["stream"]
    bad = {k: s[k] for k in ("crc_errors", "lost_frames", "dropped_events", "malformed") if s[k]}
    if bad:
        sys.exit(f"qemu_cost: the bench's stream is not clean: {bad}")
    return f"{s['frames']} frames, {s['events']} events, no CRC error, no loss, no drop"


def print_scenarios(rows, skip=()):
    for r in rows:
        if "scenario" not in r or r["scenario"] in skip:
            continue
        n = int(r["pairs"])
        ticks = (int(r["hook_2n"]) - int(r["hook_n"])) - (int(r["base_2n"]) - int(r["base_n"]))
        per_event = ticks * INSTR_PER_TICK / (2 * n)
        bytes_per_event = (int(r["bytes_2n"]) - int(r["bytes_n"])) / (2 * n)
        verdict = "within" if per_event <= GOAL else "OVER"
        print(f"    {r['scenario']:<16} {per_event:6.1f} instructions/event all-in "
              f"({bytes_per_event:.2f} B/event, drain every {r['drain_every']} slice(s)): {verdict} the {GOAL} goal")


rows = bench_rows(capture)
print(f"qemu_cost: hook on Cortex-M3 (mps2-an385, QEMU -icount shift=0), arm-none-eabi-gcc {opt}")
print(f"  stream: {stream_of(report)}; bound: {stream_of(report_bound)}; deterministic across two runs: {deterministic}")
print("  the port called through its structure (bench.elf):")
print_scenarios(rows)
# with the port bound, the lock is compiled in: the no-lock scenario measures nothing new
print("  the port bound at compile time, port_bound.h (bench_bound.elf):")
print_scenarios(bench_rows(capture_bound), skip=("typical-nolock",))
port = {r["port"]: r for r in rows if "port" in r}
if port:
    def net(name):
        p, loop = port[name], port["loop"]
        return ((int(p["ticks_2n"]) - int(p["ticks_n"])) - (int(loop["ticks_2n"]) - int(loop["ticks_n"]))) \
            * INSTR_PER_TICK / int(p["calls"])
    print(f"  port, per call:  ticks {net('ticks'):.0f}, lock+unlock {net('lock_unlock'):.0f}, "
          f"write {net('write16') / 16:.1f} per byte (instructions, through the hook's pointers)")

# code size: what the hook's objects put into bench.elf after --gc-sections (from the map)
hook = ("aioprof.o", "aioprof_frame_writer.o", "aioprof_crc16.o", "aioprof_varint.o")
portobj = ("uart.o", "timer.o", "critical.o")
size = {}
text = open(os.path.join(fw, "bench.map")).read()
text = text[text.index("Linker script and memory map"):]
for m in re.finditer(r"^ (\.(?:text|rodata)[^\s]*)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", text, re.M):
    sec, n, obj = m.group(1), int(m.group(2), 16), os.path.basename(m.group(3))
    kind = "text" if sec.startswith(".text") else "rodata"
    size[(obj, kind)] = size.get((obj, kind), 0) + n
def total(objs, kind):
    return sum(size.get((o, kind), 0) for o in objs)
print(f"  code size in bench.elf: hook text {total(hook, 'text')} B, rodata {total(hook, 'rodata')} B "
      f"(of which the CRC table {size.get(('aioprof_crc16.o', 'rodata'), 0)} B); "
      f"port (uart, timer, critical) text {total(portobj, 'text')} B")
for o in hook:
    print(f"    {o:<24} text {size.get((o, 'text'), 0):5d}  rodata {size.get((o, 'rodata'), 0):4d}")
PY
