#!/usr/bin/env bash
# --budget with --run on a real MicroPython (the qemu port's firmware with the aioprof C module,
# its UART on QEMU's pty): the seed's slow example, run to its end, breaks a budget of 50 ms per
# slice (its slow task blocks 80 ms a slice): exit 3, the breach said with the slice's length, and
# the JUnit XML valid with that line failed and the other kept. --duration bounds the run.
#   AIOPROF_MPY_QEMU_FIRMWARE   the firmware (docs/micropython.md, "The qemu port")
# Skips (exit 77) without it or without qemu-system-arm.
set -euo pipefail
source "$(dirname "$0")/io_common.bash"
source "$(dirname "$0")/board_common.bash"
board_need_firmware budget_run_qemu
board_qemu_start qemu-system-arm mps2-an385 -semihosting

# the seed example (tests/micropython/aio_seed.py without its truth)
cat > "$WORK/slow.py" <<'PY'
import asyncio
import time
import aioprof

aioprof.enable()


async def slow():
    for i in range(12):
        time.sleep_ms(80)
        await asyncio.sleep_ms(10)


async def quicker():
    for i in range(150):
        time.sleep_ms(1)
        await asyncio.sleep_ms(2)


async def main():
    await asyncio.gather(slow(), quicker())
    print("seed: done")


asyncio.run(main())
PY
cat > "$WORK/budget.json" <<'JSON'
{"budgets": [
  {"name": "no hog", "task": "*", "max_slice_ms": 50},
  {"name": "a healthy link", "dropped_events": 0, "crc_errors": 0}
]}
JSON
set +e
timeout 120 "$TOP" --run "$WORK/slow.py" "$pty" --duration 60 --budget "$WORK/budget.json" --junit "$WORK/budget.xml" \
    --json > "$WORK/run.json" 2> "$WORK/run.err"
rc=$?
set -e
cat "$WORK/run.err"
[ "$rc" = 3 ] || fail "--run with a broken budget exited $rc"
grep -q '^device: seed: done$' "$WORK/run.err" || fail "the program did not run to its end"
slow_max=$(json "$WORK/run.json" '[t for t in j["tasks"] if t["name"] == "slow"][0]["max_us"]')
[ "$slow_max" -ge 80000 ] || fail "slow's longest slice is $slow_max us, under its 80 ms sleep"
grep -Fq "budget broken (no hog): slow: max slice $(python3 -c "print('%.3f' % ($slow_max / 1000))") ms > 50.000 ms, the worst at " \
    "$WORK/run.err" || fail "no breach of slow's slices with the report's value"
python3 - "$WORK/budget.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.find("testsuite").findall("testcase")
state = [(c.get("name"), c.find("failure") is not None) for c in cases]
assert state == [("no hog", True), ("a healthy link", False)], state
assert (root.get("tests"), root.get("failures")) == ("2", "1"), root.attrib
PY
echo "budget_run_qemu: all checks passed"
