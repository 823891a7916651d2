#!/usr/bin/env python3
"""A hostile stream for lateness's host cost (issue 22, item 14): NAMES task names, each resume
late by about as long as the 65,536 turns the host keeps, so that every waiting window spans all
of them. Written from docs/protocol.md.
Usage: hostile_late.py OUT MEGABYTES [NAMES]
Then time `aioprof-top -r OUT --json > /dev/null` and divide the bytes by the seconds."""
import sys

from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "e2e"))
from wire import cobs_encode, crc16  # noqa: E402


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def control(op, payload):
    return bytes([0x70 | op]) + varint(len(payload)) + payload


def hello():
    b = varint(1) + varint(1000000) + bytes([32]) + varint(4096) + bytes([1]) + varint(0) + varint(0)
    b += varint(0) + bytes([4]) + b"test" + varint(1000000) + varint(0) + varint(1)  # late_unit 1 tick
    return control(0, b)


def frame(seq, base, body):
    raw = bytes([seq & 0xFF, (1 << 5) | 31]) + base.to_bytes(4, "little") + varint(0) + body
    crc = crc16(raw)
    return b"\0" + cobs_encode(raw + bytes([crc & 0xFF, crc >> 8])) + b"\0"


def main():
    out, megabytes = sys.argv[1], float(sys.argv[2])
    names = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    # each slice: ENTER (dt 1, id as a varint), EXIT yield (dt 1); late by 65,000 us (2 turns a us)
    enter = [bytes([0x80 | 1]) + varint(i) for i in range(names + 1)]
    exit_ = bytes([0x00 | 1])
    late = varint(65000)
    data, seq, t, task = bytearray(), 0, 0, 0
    news = [control(1, varint(i) + varint(0) + varint(len(f"t{i:04d}")) + f"t{i:04d}".encode())
            for i in range(1, names + 1)]
    first = True
    limit = int(megabytes * 1e6)
    while len(data) < limit:
        body, lates, base = bytearray(), 0, t
        if first:
            body += hello()
            first = False
        while news and len(body) < 150:
            body += news.pop(0)
        while len(body) + 4 + 3 * (lates + 1) < 240:
            task = task % names + 1
            body += enter[task] + exit_
            t += 2
            lates += 1
        body += control(4, late * lates)
        data += frame(seq, base, bytes(body))
        seq += 1
    Path(out).write_bytes(bytes(data))
    print(f"{out}: {len(data)} bytes, {names} names, {seq} frames")


if __name__ == "__main__":
    main()
