#!/usr/bin/env python3
"""Makes a recording (docs/recording.md, written here from the spec) of a raw capture, with receive
times the tests choose: a chunk of CHUNK bytes every STEP_US microseconds from 0, then END. So a
replay's pace, its intervals and where a stop cuts it do not depend on how busy the machine was
when a live session was recorded.

usage: make_recording.py CAPTURE RECORDING [CHUNK [STEP_US]]   (default 512 bytes every 25 ms)"""
import json
import struct
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def main():
    capture, recording = sys.argv[1], sys.argv[2]
    chunk = int(sys.argv[3]) if len(sys.argv) > 3 else 512
    step = int(sys.argv[4]) if len(sys.argv) > 4 else 25000
    data = open(capture, "rb").read()
    meta = json.dumps({"format": "aioprof recording", "tool": "make_recording.py", "time_unit": "us"}).encode()
    out = bytearray(b"\x89AIOPREC" + struct.pack("<HI", 1, len(meta)) + meta)
    t = 0
    for i in range(0, len(data), chunk):
        piece = data[i:i + chunk]
        out += b"\x01" + varint(t) + varint(len(piece)) + piece
        t += step
    out += b"\x04" + varint(t) + varint(0)
    open(recording, "wb").write(out)


main()
