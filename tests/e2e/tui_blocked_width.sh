#!/usr/bin/env bash
# The live table's blocked-by column takes the width its cells need from the name column's unused
# room: in a 130-column terminal a task whose waiting was all outside tasks shows
# "(outside tasks) 100 %" whole (it was cut to "(outside ta…" beside a name column 20 wider than
# its names). The capture is built here: a task resumed 5 ms late after 5 ms of idle, 400 times.
set -euo pipefail
source "$(dirname "$0")/tui_common.bash"

python3 - "$TUI_WORK/outside.bin" "$(dirname "$0")" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from wire import cobs_encode, crc16

def v(x):
    out = bytearray()
    while True:
        b, x = x & 0x7F, x >> 7
        out.append(b | (0x80 if x else 0))
        if not x:
            return bytes(out)

def ev(tag, bits, dt):
    low, rest = dt & ((1 << bits) - 1), dt >> bits
    return bytes([tag | low | (1 << bits)]) + v(rest) if rest else bytes([tag | low])

def ctl(op, body):
    return bytes([0x70 | op]) + v(len(body)) + body

out, seq, t = bytearray(), 0, 1000
def frame(recs, base):
    global seq
    body = bytes([seq & 0xFF, (1 << 5) | 29]) + (base & 0x3FFFFFFF).to_bytes(4, "little") + v(0) + recs
    body += crc16(body).to_bytes(2, "little")
    out.extend(b"\0" + cobs_encode(body) + b"\0")
    seq += 1

plat = b"outside"
hello = (v(1) + v(1000000) + bytes([30]) + v(2048) + bytes([1]) + v(0) + v(0) + v(0) + v(len(plat)) + plat +
         v(1000000) + v(0) + v(1000))
frame(ctl(0, hello) + ctl(1, v(1) + v(0) + v(4) + b"tick"), t)
for _ in range(400):
    # ENTER task 1 after 5 ms of idle, 5 ms late (LATE: 5 units of 1000 ticks), EXIT after 100 us
    frame(ev(0x80 | (1 << 3), 2, 5000) + ev(0x00, 5, 100) + ctl(4, v(5)), t)
    t += 5100
open(sys.argv[1], "wb").write(out)
PY

tui_start 130 30 C.UTF-8 -r "$TUI_WORK/outside.bin" --speed 0
tui_wait 'end of recording' || fail "the replay did not reach its end"
tui_wait '^tick ' || fail "no row for tick"
tui_has 'blocked by'
tui_until "tick's blocked by is not (outside tasks) 100 % whole" grep -qE '^tick .* \(outside tasks\) 100 %$' "$TUI_SHOT"
echo "ok: tui_blocked_width"
