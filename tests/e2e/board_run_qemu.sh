#!/usr/bin/env bash
# --run on a real MicroPython: the qemu port's firmware (mps2-an385) with the aioprof C module, its
# UART on QEMU's pty. A program sent through the raw REPL runs to its end and is profiled (its
# slices are its loops' iterations, exactly); a second one after it goes through the prompt the
# first left. (The qemu port reads its UART only when it reads input: Ctrl-C cannot stop a program
# there, so the keys' Ctrl-C is tested on the simulator, tests/e2e/tui_run.sh.)
#   AIOPROF_MPY_QEMU_FIRMWARE   the firmware (docs/micropython.md, "The qemu port")
# Skips (exit 77) without it or without qemu-system-arm.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
fw=${AIOPROF_MPY_QEMU_FIRMWARE:-}
if [ -z "$fw" ]; then
    echo "board_run_qemu: SKIPPED: set AIOPROF_MPY_QEMU_FIRMWARE to a qemu-port firmware with the C module"
    exit 77
fi
[ -f "$fw" ] || fail "no firmware at $fw"
command -v qemu-system-arm > /dev/null || { echo "board_run_qemu: SKIPPED: qemu-system-arm not installed"; exit 77; }

qemu_pty_start "$WORK/qemu.out" qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting -serial pty \
    -kernel "$fw" || fail "QEMU named no pty"
IO_PIDS+=("$qemu_pid")

cat > "$WORK/app.py" <<'PY'
import asyncio
import time
import aioprof

aioprof.enable()


async def slow():
    for i in range(10):
        time.sleep_ms(20)
        await asyncio.sleep_ms(5)


async def quick():
    for i in range(50):
        await asyncio.sleep_ms(2)


async def main():
    await asyncio.gather(slow(), quick())
    print("run: done")


asyncio.run(main())
PY
check() { # the report of one run of app.py: slow 10 + 1 slices, quick 50 + 1, its text
    local n=$1
    [ "$(json "$WORK/$n.json" '{t["name"]: t["count"] for t in j["tasks"]}.get("slow")')" = 11 ] || fail "$n: slow: $(cat "$WORK/$n.json")"
    [ "$(json "$WORK/$n.json" '{t["name"]: t["count"] for t in j["tasks"]}.get("quick")')" = 51 ] || fail "$n: quick"
    [ "$(json "$WORK/$n.json" 'j["stream"]["dropped_events"] + j["stream"]["crc_errors"] + j["stream"]["lost_frames"]')" = 0 ] \
        || fail "$n: the stream was damaged: $(json "$WORK/$n.json" 'j["stream"]')"
    grep -q '^device: run: done$' "$WORK/$n.err" || fail "$n: the program's text is missing: $(cat "$WORK/$n.err")"
    grep -q 'app.py ended\.$' "$WORK/$n.err" || fail "$n: no word of the end: $(cat "$WORK/$n.err")"
}
for n in first second; do
    timeout 120 "$TOP" --run "$WORK/app.py" "$pty" --json > "$WORK/$n.json" 2> "$WORK/$n.err" \
        || fail "$n --run exited $?: $(cat "$WORK/$n.err")"
    check "$n"
done

echo "board_run_qemu: all checks passed"
